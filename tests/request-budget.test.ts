/**
 * One DB_TIMEOUT_MS budget per request, on MariaDB: a transaction that starts late in its request's
 * budget waits for a connection, and runs each statement (a lock wait included), only for what is
 * left of it, not for a whole DB_TIMEOUT_MS of its own. tests/faults.test.ts sees the same through
 * HTTP, under load.
 */
import mysql from 'mysql2/promise';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolAcquireTimeoutError } from '../server/platform/database/failures.ts';
import type { Orm } from '../server/platform/database/orm.ts';
import type { Database } from '../server/platform/database/schema.ts';
import { Db } from '../server/platform/database/transaction.ts';
import { databaseTarget, openMigrated, type TestDatabase } from './support/databases.ts';
import { failWithout } from './support/needs.ts';
import { LOADED_MACHINE_SLACK_MS } from './support/timing.ts';

const mariadb = databaseTarget('mariadb');

const TIMEOUT_MS = 2000;
/**
 * Spent before the transaction starts, as a request's reads and checks would: a loaded machine's
 * slack, so that failing at the end of the request's budget (TIMEOUT_MS) and at the end of a budget
 * of the transaction's own (SPENT_MS + TIMEOUT_MS) stay that far apart.
 */
const SPENT_MS = LOADED_MACHINE_SLACK_MS;

describe('a request budget of DB_TIMEOUT_MS on MariaDB', () => {
  failWithout(mariadb.missing);
  let database: TestDatabase;
  let orm: Orm;
  let db: Db;

  beforeAll(async () => {
    ({ database, orm } = await openMigrated(mariadb, { poolSize: 2, timeoutMs: TIMEOUT_MS }));
    db = Db.open(orm.em, 'mariadb', {
      timeoutMs: TIMEOUT_MS,
      maxAttempts: 20,
      writeSlots: 2,
      statementsTogether: true,
      changesPerOrganization: 2,
    });
    // Set-up and checks on the ORM's Kysely: db.sql only builds (transaction.ts).
    await orm.em
      .getKysely<Database>()
      .insertInto('users')
      .values({
        id: 'locked',
        first_name: 'Locked',
        last_name: 'User',
        email: 'locked@example.com',
        created_at: db.timestamp(new Date()),
        updated_at: db.timestamp(new Date()),
      })
      .execute();
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  /** Runs a transaction of `request` after SPENT_MS; how it failed, and when, from the request's start. */
  async function lateTransaction(work: Parameters<Db['transaction']>[0]) {
    const startedAt = performance.now();
    const request = db.forRequest({});
    await sleep(SPENT_MS);
    const error = await request.transaction(work).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    return { error, ms: performance.now() - startedAt };
  }

  it('waits for a connection only until the end of the budget', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holders = [0, 1].map(() =>
      orm.em
        .getKysely<Database>()
        .connection()
        .execute(() => held),
    );
    try {
      const { error, ms } = await lateTransaction((tx) => tx.first(tx.sql.selectFrom('users').select('id')));
      expect(error).toBeInstanceOf(PoolAcquireTimeoutError);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(ms).toBeLessThan(SPENT_MS + TIMEOUT_MS);
    } finally {
      release();
      await Promise.all(holders);
    }
  });

  it('ends a statement waiting for a row lock at the end of the budget, and rolls the transaction back', async () => {
    const blocker = await mysql.createConnection({ uri: database.url.replace(/^mariadb:/, 'mysql:') });
    try {
      await blocker.query('begin');
      await blocker.query("select id from users where id = 'locked' for update");
      const { error, ms } = await lateTransaction(async (tx) => {
        await tx.run(
          tx.sql.insertInto('idempotency_keys').values({
            caller_id: 'budget',
            idempotency_key: 'rolled-back',
            fingerprint: '',
            response_body: null,
            created_at: tx.timestamp(),
          }),
        );
        await tx.run(tx.sql.updateTable('users').set({ first_name: 'Changed' }).where('id', '=', 'locked'));
      });
      expect(error).toMatchObject({ errno: 1969 }); // max_statement_time exceeded
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(ms).toBeLessThan(SPENT_MS + TIMEOUT_MS);
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    const stored = await orm.em
      .getKysely<Database>()
      .selectFrom('idempotency_keys')
      .select('idempotency_key')
      .execute();
    expect(stored).toEqual([]);
  });
});
