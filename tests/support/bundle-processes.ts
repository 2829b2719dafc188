/**
 * More ways to start the bundle as `npm start` runs it (./process.ts): several instances at once,
 * and one whose LOG_LEVEL hides the start line that `spawnService` waits for. And a plain GET on a
 * connection of its own, which tells an address nothing listens on from one that answers.
 */
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_ARGUMENTS, spawnCollecting, spawnService, type ServiceProcess } from './process.ts';

/** How long a start may take on a loaded machine: as long as `spawnService` waits. */
const START_TIMEOUT_MS = 20_000;

/** Starts one service per environment, all at once; when one does not start, kills those that did. */
export async function spawnServices(envs: Array<Record<string, string>>): Promise<ServiceProcess[]> {
  const results = await Promise.allSettled(envs.map((env) => spawnService(env)));
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) {
    for (const service of started) service.kill();
    throw failure.reason;
  }
  return started;
}

/**
 * The status of a GET of `url`, or the error code of a request that got no answer (`ECONNREFUSED`
 * where nothing listens, `ECONNRESET` for a connection refused after it was accepted). Each call
 * has a connection of its own, closed after the answer, so it never holds one of the service's.
 */
export function statusOf(url: string, headers: Record<string, string> = {}): Promise<number | string> {
  return new Promise((resolve) => {
    const call = request(url, { agent: false, headers, timeout: 5_000 }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode!));
    });
    call.once('timeout', () => call.destroy(Object.assign(new Error('no answer'), { code: 'TIMEOUT' })));
    call.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    call.end();
  });
}

export interface QuietService {
  baseUrl: string;
  child: ChildProcess;
  /** The pino JSON lines of stdout so far, parsed. */
  entries(): Record<string, any>[];
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  kill(): void;
}

/**
 * The bundle started with a LOG_LEVEL above `info`, which leaves out the start line: it is taken to
 * have started once `GET /healthz` answers at HOST:PORT (both set in `env`).
 */
export async function spawnQuietService(env: Record<string, string> & { HOST: string; PORT: string }) {
  const { child, lines, entries, stderr, exited } = spawnCollecting(process.execPath, SERVICE_ARGUMENTS, env);
  const baseUrl = `http://${env.HOST}:${env.PORT}`;
  const service: QuietService = {
    baseUrl,
    child,
    entries,
    exited,
    kill: () => child.kill('SIGKILL'),
  };
  for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline && child.exitCode === null;) {
    if ((await statusOf(`${baseUrl}/healthz`)) === 200) return service;
    await sleep(50);
  }
  service.kill();
  throw new Error(`service did not answer at ${baseUrl}:\n${lines.join('\n')}\n${stderr()}`);
}
