/**
 * server/platform/database/mysql-pool.ts on MariaDB: the prepared queries (prepared.ts) run as server-side prepared
 * statements and answer with the same rows as the text protocol; everything else stays text. And
 * statements.ts: the requests' statements, sent to the pool directly, go on connections bounded as
 * Kysely's are, answer in Kysely's shape, and give their connection back whatever happens.
 */
import { CompiledQuery, type Compilable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Sql } from '../server/platform/database/schema.ts';
import type { Orm } from '../server/platform/database/orm.ts';
import { prepare } from '../server/platform/database/prepared.ts';
import { Db } from '../server/platform/database/transaction.ts';
import { databaseTarget, openMigrated, type TestDatabase } from './support/databases.ts';
import { failWithout } from './support/needs.ts';

const mariadb = databaseTarget('mariadb');

const userById = prepare((sql: Sql, id: string) =>
  sql.selectFrom('users').select(['id', 'first_name', 'email', 'created_at', 'updated_at']).where('id', '=', id),
);
const usersAfter = (sql: Sql, after: string) =>
  sql
    .selectFrom('users')
    .select(['id', 'first_name', 'email', 'created_at', 'updated_at'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(10);
const usersAfterPrepared = prepare(usersAfter);
const memberCount = prepare((sql: Sql, organizationId: string) =>
  sql
    .selectFrom('organization_users')
    .select((eb) => eb.fn.countAll<number>().as('members'))
    .where('organization_id', '=', organizationId),
);

describe('the serving pool on MariaDB', () => {
  failWithout(mariadb.missing);
  let database: TestDatabase;
  let orm: Orm;
  let db: Db;

  beforeAll(async () => {
    ({ database, orm } = await openMigrated(mariadb, { poolSize: 2, timeoutMs: 2000 }));
    db = Db.open(orm.em, 'mariadb', {
      timeoutMs: 2000,
      maxAttempts: 3,
      writeSlots: 1,
      statementsTogether: true,
      changesPerOrganization: 2,
    });
    // Set-up on the ORM's Kysely: db.sql only builds (transaction.ts).
    await orm.em
      .getKysely<Database>()
      .insertInto('users')
      .values(
        ['u1', 'u2', "o'brien\u{1F600}"].map((id, index) => ({
          id,
          first_name: `Name ${index}`,
          last_name: 'Last',
          email: `${index}@example.com`,
          created_at: db.timestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6 + index))),
          updated_at: db.timestamp(new Date(Date.UTC(2026, 10, 22, 12, 34, 56, 789))),
        })),
      )
      .execute();
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  /** Runs `queries` on one connection; how many of them MariaDB ran as prepared statements, and their rows. */
  const onOneConnection = (queries: Array<Compilable<unknown>>) =>
    orm.em
      .getKysely<Database>()
      .connection()
      .execute(async (connection) => {
        const executed = async () => {
          const { rows } = await connection.executeQuery<{ Value: string }>(
            CompiledQuery.raw("show session status like 'Com_stmt_execute'"),
          );
          return Number(rows[0]!.Value);
        };
        const before = await executed();
        const results = [];
        for (const query of queries) results.push((await connection.executeQuery(query.compile())).rows);
        return { prepared: (await executed()) - before, results };
      });

  it('runs prepared queries as prepared statements, the rest as text', async () => {
    const { prepared } = await onOneConnection([
      userById(db.sql, 'u1'),
      usersAfter(db.sql, 'u1'),
      memberCount(db.sql, 'none'),
      db.sql.selectFrom('users').select('id').where('id', 'in', ['u1', 'u2']),
    ]);
    expect(prepared).toBe(2);
  });

  it('answers a prepared statement with the rows the text protocol gives, values of every kind alike', async () => {
    const id = "o'brien\u{1F600}";
    const { results: binary } = await onOneConnection([
      userById(db.sql, id),
      usersAfterPrepared(db.sql, ''),
      memberCount(db.sql, 'none'),
    ]);
    // The same reads, told apart by a condition that holds for every row: text, not prepared.
    const { results: text, prepared } = await onOneConnection([
      usersAfter(db.sql, '').where('id', '=', id).where('email', '!=', ''),
      usersAfter(db.sql, '').where('email', '!=', ''),
      db.sql
        .selectFrom('organization_users')
        .select((eb) => eb.fn.countAll<number>().as('members'))
        .where('organization_id', '=', 'none')
        .where('user_id', '!=', ''),
    ]);
    expect(prepared).toBe(0);
    expect(binary).toEqual(text);
    expect(binary[0]).toEqual([
      {
        id,
        first_name: 'Name 2',
        email: '2@example.com',
        created_at: '2026-01-02 03:04:05.008',
        updated_at: '2026-11-22 12:34:56.789',
      },
    ]);
    expect(binary[2]).toEqual([{ members: 0 }]);
  });

  /** A statement as db.first and db.run take them. */
  const raw = (sql: string): Compilable<Record<string, unknown>> => ({ compile: () => CompiledQuery.raw(sql) });

  it('sends reads and transactions on connections that have the session bounds (orm.ts)', async () => {
    const bounds =
      'select @@session.max_statement_time as statement_seconds, @@session.innodb_lock_wait_timeout as lock_seconds';
    // More at once than the pool holds: every connection of the pool serves some of them.
    const reads = await Promise.all(Array.from({ length: 6 }, () => db.first(raw(bounds))));
    for (const row of reads) {
      expect({ statement: Number(row!.statement_seconds), lock: Number(row!.lock_seconds) }).toEqual({
        statement: 2,
        lock: 2,
      });
    }
    // A transaction's statements are bounded tighter, by what is left of its budget (unit-of-work.ts).
    const inTransaction = await db.transaction((tx) => tx.first(raw(bounds)));
    expect(Number(inTransaction!.lock_seconds)).toBe(2);
    expect(Number(inTransaction!.statement_seconds)).toBeGreaterThan(0);
    expect(Number(inTransaction!.statement_seconds)).toBeLessThanOrEqual(2);
  });

  it("answers writes in Kysely's shape, and gives a connection back when its statement fails", async () => {
    const updated = await db.run(raw("update users set last_name = 'Changed' where id in ('u1', 'u2')"));
    expect(updated).toMatchObject({ numAffectedRows: 2n, numChangedRows: 2n, rows: [] });
    // Twice as many failures as the pool has connections, then a read: none was kept.
    for (let attempt = 0; attempt < 4; attempt++) {
      await expect(db.first(raw('select * from no_such_table'))).rejects.toMatchObject({ code: 'ER_NO_SUCH_TABLE' });
    }
    expect(await db.first(raw("select last_name from users where id = 'u2'"))).toEqual({ last_name: 'Changed' });
  });
});
