/** What a process on this machine uses, read from Linux's /proc: for the bench scripts' figures. */
import { readFileSync } from 'node:fs';

export function rssMegabytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** CPU time the process has used (user + system, all threads), in microseconds. */
export function cpuMicroseconds(pid: number): number {
  // Fields 14 and 15 of /proc/<pid>/stat, counted after the command name in parentheses.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticksPerSecond = 100; // USER_HZ: what /proc counts in on Linux (`getconf CLK_TCK`)
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / ticksPerSecond;
}
