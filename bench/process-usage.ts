/** What a process on this machine uses, read from Linux's /proc: for the bench scripts' figures. */
import { readFileSync } from 'node:fs';

/** USER_HZ: what /proc counts CPU time in on Linux (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

export function rssMegabytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** CPU time the process has used (user + system, all threads), in microseconds. */
export function cpuMicroseconds(pid: number): number {
  // Fields 14 and 15 of /proc/<pid>/stat, counted after the command name in parentheses.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND;
}

/**
 * CPU time the hypervisor has taken from this virtual machine since it booted, in ms, summed over
 * its CPUs: `steal` in /proc/stat's first line, time a virtual CPU was ready to run and was not run.
 */
export function machineStolenMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  return (Number(fields[8]) * 1000) / TICKS_PER_SECOND;
}
