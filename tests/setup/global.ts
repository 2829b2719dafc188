/**
 * Runs once before the suite: builds the server's bundle (server/build.ts), which the tests that
 * start the service as a process run, and the console it serves (console/build.ts), and finds out whether the MariaDB the tests use is reachable,
 * and tells the test files through `inject('mariadbUrl')`. On a developer machine where the test
 * account is missing it is created over the local socket as root; in CI (CI=true) an unreachable
 * MariaDB fails the run instead of skipping its tests.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import type { TestProject } from 'vitest/node';
import { buildConsole } from '../../console/build.ts';
import { buildServer } from '../../server/build.ts';

export const DEFAULT_TEST_MARIADB_URL = 'mariadb://orgs_test:orgs_test@127.0.0.1:3306';

async function reachable(url: string): Promise<string | undefined> {
  try {
    const connection = await mysql.createConnection({ uri: url.replace(/^mariadb:/, 'mysql:'), connectTimeout: 3000 });
    await connection.end();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function createTestAccount(): void {
  const sql = readFileSync(new URL('./mariadb-test-user.sql', import.meta.url), 'utf8');
  execFileSync('mariadb', ['-uroot'], { input: sql, stdio: ['pipe', 'ignore', 'ignore'], timeout: 10_000 });
}

export default async function setup(project: TestProject): Promise<void> {
  // The tests that start the service as a process run what `npm start` runs: the bundle.
  await buildServer();
  await buildConsole();
  const url = process.env.TEST_MARIADB_URL ?? DEFAULT_TEST_MARIADB_URL;
  let problem = await reachable(url);
  if (problem && !process.env.TEST_MARIADB_URL) {
    try {
      createTestAccount();
      problem = await reachable(url);
    } catch {
      // No local root access: reported below.
    }
  }
  if (problem) {
    if (process.env.CI) throw new Error(`MariaDB tests must run in CI, but ${url} is unreachable: ${problem}`);
    console.warn(`\n!! MariaDB at ${url} is unreachable (${problem}): its tests are skipped on this machine.\n`);
  }
  project.provide('mariadbUrl', problem ? '' : url);
}

declare module 'vitest' {
  export interface ProvidedContext {
    mariadbUrl: string;
  }
}
