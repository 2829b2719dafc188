/** `npm run app-key` (server/cli/app-key.ts), the operator's tool for the application's keys (behaviour §16). */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from './process.ts';

export interface AppKeyRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface AppKeyOptions {
  /** Through the README's command, `npm run -s app-key -- …`, in the project's folder. */
  npm?: boolean;
  /** The folder it runs in (node on the script only): where the default embedded database is. */
  cwd?: string;
}

export function runAppKey(
  args: string[],
  env: Record<string, string>,
  options: AppKeyOptions = {},
): Promise<AppKeyRun> {
  const [command, commandArgs] = options.npm
    ? ['npm', ['run', '-s', 'app-key', '--', ...args]]
    : [process.execPath, [join(projectRoot, 'server', 'cli', 'app-key.ts'), ...args]];
  const settings = {
    cwd: options.npm ? projectRoot : (options.cwd ?? projectRoot),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    encoding: 'utf8' as const,
    timeout: 60_000,
  };
  return new Promise((resolve) => {
    execFile(command, commandArgs, settings, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status, stdout, stderr });
    });
  });
}

/** The secret `create` printed: its last line. */
export const printedSecret = (run: AppKeyRun): string => run.stdout.trim().split('\n').at(-1)!;
