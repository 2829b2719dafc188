/** Start to first answer, as `npm run bench` and `npm run bench:scale` measure it. */
import { spawn } from 'node:child_process';
import { freePorts } from '../tests/support/ports.ts';
import { projectRoot } from '../tests/support/process.ts';

/**
 * Milliseconds from spawning a server (`node <nodeArguments>`, from the project's folder, with `env`
 * and a free PORT) to its first answer to an authenticated `GET /api/users`, which needs the
 * database: any status but a 5xx counts. Polled every 10 ms; given up after `giveUpMs`.
 */
export async function startToFirstAnswer(
  nodeArguments: string[],
  env: Record<string, string>,
  token: string,
  giveUpMs = 60_000,
): Promise<number> {
  const [port] = await freePorts(1);
  const started = performance.now();
  const child = spawn(process.execPath, nodeArguments, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null || performance.now() - started > giveUpMs) {
        throw new Error(`${nodeArguments.join(' ')} gave no answer (exit code ${child.exitCode}):\n${stderr}`);
      }
      const status = await fetch(`http://127.0.0.1:${port}/api/users`, {
        headers: { authorization: `Bearer ${token}` },
      }).then(
        (response) => response.status,
        () => 0,
      );
      if (status > 0 && status < 500) return Math.round(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}
