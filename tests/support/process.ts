/** The service as its own process, started as `npm start` starts it, with its JSON log lines collected. */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { join, relative } from 'node:path';
import { buildConsole } from '../../console/build.ts';
import { bundledEntry, buildServer } from '../../server/build.ts';

export const projectRoot = join(import.meta.dirname, '..', '..');

/** The service as `npm start` runs it: the bundle of server/build.ts, built by the tests' global setup. */
export const SERVICE_ENTRY = relative(projectRoot, bundledEntry);

/**
 * Builds what `npm start` builds before it runs the bundle: the server's bundle and the console,
 * which the service serves unless CONSOLE=false (it refuses to start without it).
 */
export async function buildService(): Promise<void> {
  await buildServer();
  await buildConsole();
}

/** Node's flags in package.json's start script, before the bundle's entry. */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=16'];
/** Node's arguments in package.json's start script (tests/startup.test.ts checks that they agree). */
export const SERVICE_ARGUMENTS = [...SERVICE_NODE_FLAGS, SERVICE_ENTRY];

export interface ServiceProcess {
  baseUrl: string;
  child: ChildProcess;
  /** The service's own process id (the child is npm's when started through `npm start`). */
  pid: number;
  /** Every line of stdout; the service's own are pino JSON. */
  lines: string[];
  /** The pino JSON lines of stdout, parsed. */
  entries(): Record<string, any>[];
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Kills whatever is still running (npm and the service), for a test's `finally`. */
  kill(): void;
}

export interface SpawnOptions {
  /** Start it with the README's command, `npm start`, instead of node on the bundle. */
  npmStart?: boolean;
  /**
   * Drop stdout once the service listens, instead of keeping every line (`lines` then stops at the
   * start). For the benchmark: millions of kept log lines would grow this process's heap, and its
   * garbage collection would take CPU from the servers being measured on the same cores.
   */
  discardLogsAfterStart?: boolean;
  /** Node's arguments instead of SERVICE_ARGUMENTS (other flags for the bundle: bench/open-loop.ts). */
  nodeArguments?: string[];
  /** The folder it runs in (node on the bundle only): where the default embedded database is. */
  cwd?: string;
}

const parseJsonLine = (line: string): Record<string, any> | undefined => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined; // npm's banner, say
  }
};

/** How to kill each service started and still running. */
const running = new Set<() => void>();

/**
 * For a bench: on SIGINT or SIGTERM, kills the services it started, then exits as the signal would.
 * Without it, a signal sent to the bench alone (`timeout`, a stopped CI job) left them running, each
 * polling its database; the databases the bench made are left for `DROP DATABASE`.
 */
export function killServicesOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const kill of running) kill();
      process.exit(128 + constants.signals[signal]);
    });
  }
}

/** The child, its stdout lines and stderr collected as they come. */
export function spawnCollecting(command: string, args: string[], env: Record<string, string>, cwd = projectRoot) {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  const lines: string[] = [];
  let buffered = '';
  const collect = (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    lines.push(...complete.filter(Boolean));
  };
  child.stdout.on('data', collect);
  // Still read, so that the service never blocks on a full pipe, but no longer kept.
  const stopCollecting = () => child.stdout.off('data', collect).resume();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    lines,
    entries: () => lines.map(parseJsonLine).filter((entry) => entry !== undefined),
    stderr: () => stderr,
    exited,
    stopCollecting,
  };
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SERVICE_ARGUMENTS, with the bundle's absolute path when the service runs in another folder. */
const serviceArguments = (cwd: string | undefined) =>
  cwd ? SERVICE_ARGUMENTS.map((argument) => (argument === SERVICE_ENTRY ? bundledEntry : argument)) : SERVICE_ARGUMENTS;

export async function spawnService(env: Record<string, string>, options: SpawnOptions = {}): Promise<ServiceProcess> {
  // SCRIPT: another entry point with the same conventions (bench/baseline.ts).
  const started = options.npmStart
    ? spawnCollecting('npm', ['start'], { PORT: '0', ...env })
    : spawnCollecting(
        process.execPath,
        env.SCRIPT ? [env.SCRIPT] : (options.nodeArguments ?? serviceArguments(options.cwd)),
        { PORT: '0', ...env },
        options.cwd,
      );
  // Generous: several services start at once beside the rest of the suite on 2 cores.
  for (let waited = 0; waited < 60_000; waited += 50) {
    // The start's line carries the addresses it listens on.
    const listening = started.entries().find((entry) => Array.isArray(entry.address));
    if (listening) {
      const pid: number = listening.pid ?? started.child.pid;
      if (options.discardLogsAfterStart) started.stopCollecting();
      const kill = () => {
        started.child.kill('SIGKILL');
        if (isRunning(pid)) process.kill(pid, 'SIGKILL');
      };
      running.add(kill);
      void started.exited.then(() => running.delete(kill));
      return { ...started, baseUrl: `http://127.0.0.1:${listening.address[0].port}`, pid, kill };
    }
    if (started.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  started.child.kill('SIGKILL');
  throw new Error(`service did not start:\n${started.lines.join('\n')}\n${started.stderr()}`);
}
