/**
 * Runs once before the suite: builds the server's bundle (server/build.ts), which the tests that
 * start the service as a process run, and the console it serves (console/build.ts), and finds out
 * whether the MariaDB the tests use is reachable, and tells the test files through
 * `inject('mariadbUrl')`, or, where it is not, what to do about it through `inject('mariadbMissing')`.
 * Where the test account is missing and `mariadb -uroot` works over the local socket, it is
 * created. An unreachable MariaDB fails the tests on MariaDB (tests/support/databases.ts), not the
 * run: the other tests still run.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import type { TestProject } from 'vitest/node';
import { buildService } from '../support/process.ts';

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
  await buildService();
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
  project.provide('mariadbUrl', problem ? '' : url);
  project.provide('mariadbMissing', problem ? unreachable(url, problem) : '');
}

/** What the tests on MariaDB fail with where it is unreachable: how to make it reachable. */
function unreachable(url: string, problem: string): string {
  // Host and user only: a TEST_MARIADB_URL's password stays out of the test log.
  const { host, username } = new URL(url);
  const setUrl =
    'set TEST_MARIADB_URL=mariadb://user:pass@host:3306 to an account that may create and drop orgs_test_* databases';
  if (process.env.TEST_MARIADB_URL)
    return `MariaDB at ${host} refused or did not answer ${username} (${problem}): ${setUrl}`;
  return (
    `MariaDB at ${host} refused or did not answer the test account ${username} (${problem}). ` +
    "Install and start MariaDB (Debian's `mariadb-server` package: apt-get install mariadb-server), then create the " +
    'account as root: mariadb -uroot < tests/setup/mariadb-test-user.sql (the tests do it themselves where ' +
    `mariadb -uroot works). Or ${setUrl}. bash .ci/run, as root, does all of this.`
  );
}

declare module 'vitest' {
  export interface ProvidedContext {
    mariadbUrl: string;
    /** Where MariaDB is unreachable: what to do about it; empty otherwise. */
    mariadbMissing: string;
  }
}
