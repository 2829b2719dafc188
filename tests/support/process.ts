/** The service as its own process, started as `npm start` starts it, with its JSON log lines collected. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const projectRoot = join(import.meta.dirname, '..', '..');

export interface ServiceProcess {
  baseUrl: string;
  child: ChildProcess;
  lines: string[];
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

export async function spawnService(env: Record<string, string>): Promise<ServiceProcess> {
  // SCRIPT: another entry point with the same conventions (bench/baseline.ts).
  const child = spawn(process.execPath, [env.SCRIPT ?? 'server/main.ts'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', PORT: '0', ...env },
  });
  const lines: string[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    lines.push(...complete.filter(Boolean));
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for (let waited = 0; waited < 20_000; waited += 50) {
    const listening = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'listening');
    if (listening) return { baseUrl: `http://127.0.0.1:${listening.address[0].port}`, child, lines, exited };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`service did not start:\n${lines.join('\n')}\n${stderr}`);
}
