/**
 * The databases every integration test runs on: the embedded libSQL default and MariaDB. Each test
 * file gets a fresh database of its own; the server applies the migrations to it at start.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { describe, inject } from 'vitest';
import { migrate, openDatabase, type DatabaseBounds, type Orm } from '../../server/platform/database/orm.ts';
import { failWithout } from './needs.ts';

export interface TestDatabase {
  url: string;
  /** A function of its own (no `this`): the tests keep it to call after their servers stop. */
  drop: () => Promise<void>;
}

export interface DatabaseTarget {
  name: 'embedded' | 'mariadb';
  /** What this machine lacks to give the tests this database, and how to get it; undefined when nothing. */
  missing: string | undefined;
  /** A fresh database; throws `missing` when there is one. */
  create(): Promise<TestDatabase>;
}

const embedded: DatabaseTarget = {
  name: 'embedded',
  missing: undefined,
  create() {
    const dir = mkdtempSync(join(tmpdir(), 'orgs-test-'));
    const drop = () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    };
    return Promise.resolve({ url: `file:${join(dir, 'orgs.db')}`, drop });
  },
};

function mariadbTarget(adminUrl: string, missing: string): DatabaseTarget {
  const uri = adminUrl.replace(/^mariadb:/, 'mysql:');
  return {
    name: 'mariadb',
    missing: adminUrl === '' ? missing : undefined,
    async create() {
      if (adminUrl === '') throw new Error(missing);
      const name = `orgs_test_${randomBytes(6).toString('hex')}`;
      const admin = await mysql.createConnection({ uri });
      await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
      await admin.end();
      return {
        url: `${adminUrl.replace(/\/$/, '')}/${name}`,
        async drop() {
          const connection = await mysql.createConnection({ uri });
          await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
          await connection.end();
        },
      };
    },
  };
}

export const databaseTargets = (): DatabaseTarget[] => [
  embedded,
  mariadbTarget(inject('mariadbUrl'), inject('mariadbMissing')),
];

/** The target of that name. */
export const databaseTarget = (name: DatabaseTarget['name']): DatabaseTarget =>
  databaseTargets().find((target) => target.name === name)!;

/** The URL of the MariaDB test account (tests/setup/global.ts); throws what is missing when it is unreachable. */
export function mariadbUrl(): string {
  if (inject('mariadbUrl') === '') throw new Error(inject('mariadbMissing'));
  return inject('mariadbUrl');
}

/** Declares the same tests once per database target; on MariaDB they fail at once where it is unreachable. */
export function describeOnEachDatabase(title: string, body: (target: DatabaseTarget) => void): void {
  for (const target of databaseTargets()) describeOn(target, title, body);
}

/**
 * Declares tests on one database target: for the console's tests in Chromium, which see the service
 * only through the API that the other tests check on both databases (docs/development.md, "Tests").
 */
export function describeOnDatabase(
  name: DatabaseTarget['name'],
  title: string,
  body: (target: DatabaseTarget) => void,
): void {
  describeOn(databaseTarget(name), title, body);
}

function describeOn(target: DatabaseTarget, title: string, body: (target: DatabaseTarget) => void): void {
  describe(`${title} on ${target.name}`, () => {
    failWithout(target.missing);
    body(target);
  });
}

/**
 * A fresh database of the target with the migrations applied, then opened as the service serves
 * it (its pool and waits bounded), for tests of the data layer below HTTP.
 */
export async function openMigrated(
  target: DatabaseTarget,
  bounds: DatabaseBounds,
): Promise<{ database: TestDatabase; orm: Orm }> {
  const database = await target.create();
  const unbounded = await openDatabase(database.url);
  await migrate(unbounded);
  await unbounded.close();
  return { database, orm: await openDatabase(database.url, bounds) };
}

/**
 * The database of a running service, opened as the service opens it, for a test that writes beside
 * it. On the embedded database no statement waits for the file's lock (behaviour §10): the service
 * runs in the test's own process, where such a wait would only hold up the service's transaction
 * that holds the lock; in WAL mode the test's reads never meet one.
 */
export const openBesideService = (url: string): Promise<Orm> => openDatabase(url, { poolSize: 1, timeoutMs: 10_000 });
