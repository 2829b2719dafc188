/**
 * The authorization guard's mechanism on the real databases, below HTTP (tests/authorization.test.ts
 * holds every procedure to it over HTTP): a guard whose check throws lets nothing through. A
 * transaction commits nothing, however its statements were queued (UnitOfWork sends a queued guard
 * before COMMIT, never with it); GuardedReads hands back no read's rows (on MariaDB the guard and
 * the read go out in one multi-statement query, or as one statement when the guard is one value, so the
 * rows have come back from the database by the time the check runs); an organization's change whose work reads nothing has its guard run before
 * it commits.
 */
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OrganizationAccess, type Guardable, type Requirement } from '../server/platform/authorization/access.ts';
import { InOrganization } from '../server/platform/authorization/in-organization.ts';
import { GuardedReads } from '../server/platform/database/guarded-reads.ts';
import { prepare } from '../server/platform/database/prepared.ts';
import { newId } from '../server/platform/database/ids.ts';
import type { Orm } from '../server/platform/database/orm.ts';
import type { Database, Dialect, Sql } from '../server/platform/database/schema.ts';
import { Db, type Tx } from '../server/platform/database/transaction.ts';
import { buildOnlySql } from '../server/platform/database/unit-of-work.ts';
import { idempotencyHook, KeysInFlight } from '../server/platform/idempotency.ts';
import { appendEvent } from '../server/platform/organization-changes.ts';
import { RoleCatalogue } from '../server/platform/role-catalogue.ts';
import { describeOnEachDatabase, openMigrated, type TestDatabase } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';

const TIMEOUT_MS = 5000;

class Refusal extends Error {
  override name = 'Refusal';
}

describeOnEachDatabase('the authorization guard', (target) => {
  const dialect: Dialect = target.name === 'mariadb' ? 'mariadb' : 'sqlite';
  // As the service opens it (app.ts): statements go together on MariaDB, one by one embedded.
  const together = dialect === 'mariadb';
  let database: TestDatabase;
  let orm: Orm;
  let db: Db;
  let sql: Sql;

  beforeAll(async () => {
    ({ database, orm } = await openMigrated(target, { poolSize: 4, timeoutMs: TIMEOUT_MS }));
    db = Db.open(orm.em, dialect, {
      timeoutMs: TIMEOUT_MS,
      maxAttempts: 3,
      writeSlots: 2,
      statementsTogether: together,
      changesPerOrganization: 1,
    });
    // The test's own set-up and checks run on the ORM's Kysely; db.sql only builds (transaction.ts).
    sql = orm.em.getKysely<Database>();
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  const now = () => db.timestamp(new Date());

  const userRow = (id: string) => ({
    id,
    first_name: 'First',
    last_name: 'Last',
    email: `${id}@example.com`,
    created_at: now(),
    updated_at: now(),
  });

  async function insertUser(id: string): Promise<void> {
    await sql.insertInto('users').values(userRow(id)).execute();
  }

  /** Which of `ids` are users now. */
  async function usersAmong(ids: string[]): Promise<string[]> {
    const rows = await sql.selectFrom('users').select('id').where('id', 'in', ids).orderBy('id').execute();
    return rows.map((row) => row.id);
  }

  /** A guard as the platform's: a read whose check throws `refusal` (or passes without one). */
  function queueGuard(on: Guardable, refusal: Refusal | undefined): void {
    on.guard(on.sql.selectFrom('users').select('id').limit(1), () => {
      if (refusal) throw refusal;
    });
  }

  const insert = (tx: Tx, id: string) => tx.later(tx.sql.insertInto('users').values(userRow(id)));
  const readUsers = (tx: Tx) => tx.all(tx.sql.selectFrom('users').select('id').limit(1));

  /**
   * How a transaction's work may queue its statements around the guard, reading nothing after its
   * last write: the guard goes out with a read, or else before COMMIT.
   */
  const shapes: Array<[string, (tx: Tx, ids: [string, string], refusal?: Refusal) => Promise<void>]> = [
    [
      'the guard, then writes; nothing read (all of it goes out before COMMIT, together)',
      (tx, [first, second], refusal) => {
        queueGuard(tx, refusal);
        insert(tx, first);
        insert(tx, second);
        return Promise.resolve();
      },
    ],
    [
      'writes, then the guard, then more writes; nothing read',
      (tx, [first, second], refusal) => {
        insert(tx, first);
        queueGuard(tx, refusal);
        insert(tx, second);
        return Promise.resolve();
      },
    ],
    [
      'a read first (BEGIN has gone out, as an Idempotency-Key claim sends it), then the guard and writes; nothing read after',
      async (tx, [first, second], refusal) => {
        await readUsers(tx);
        queueGuard(tx, refusal);
        insert(tx, first);
        insert(tx, second);
      },
    ],
    [
      'writes, then the guard, then a read, then writes; nothing read after',
      async (tx, [first, second], refusal) => {
        insert(tx, first);
        queueGuard(tx, refusal);
        await readUsers(tx).catch((error: unknown) => {
          // The work may swallow the refusal: the transaction must still commit nothing.
          if (error !== refusal) throw error;
        });
        insert(tx, second);
      },
    ],
  ];

  it.each(shapes)('a transaction whose guard refuses commits nothing: %s', async (_shape, work) => {
    const ids: [string, string] = [uniqueId('refused'), uniqueId('refused')];
    const refusal = new Refusal('refused by the guard');
    await expect(db.transaction((tx) => work(tx, ids, refusal))).rejects.toBe(refusal);
    expect(await usersAmong(ids)).toEqual([]);
  });

  it.each(shapes)('a transaction whose guard passes commits its writes: %s', async (_shape, work) => {
    const ids: [string, string] = [uniqueId('passed'), uniqueId('passed')];
    await db.transaction((tx) => work(tx, ids));
    expect(await usersAmong(ids)).toEqual([...ids].sort());
  });

  /** Reads that count the queries their pool runs (one multi-statement query counts once). */
  function countedReads(): { reads: GuardedReads; queries: () => number } {
    let queries = 0;
    const counter: KyselyPlugin = {
      transformQuery: ({ node }) => node,
      transformResult: ({ result }) => {
        queries++;
        return Promise.resolve(result);
      },
    };
    const reads = new GuardedReads(sql.withPlugin(counter), buildOnlySql(dialect), dialect, together);
    return { reads, queries: () => queries };
  }

  const everyUser = (reads: GuardedReads) => reads.all(reads.sql.selectFrom('users').select('id'));

  it("runs no statement past the data layer's one path: Db's, Tx's and GuardedReads' builders refuse .execute()", async () => {
    const id = uniqueId('builder');
    const refused = /not \.execute\(\)/;
    await expect(db.sql.insertInto('users').values(userRow(id)).execute()).rejects.toThrow(refused);
    await expect(
      db.transaction(async (tx) => {
        await tx.sql.insertInto('users').values(userRow(id)).execute();
      }),
    ).rejects.toThrow(refused);
    await expect(db.guardedReads().sql.selectFrom('users').select('id').execute()).rejects.toThrow(refused);
    expect(await usersAmong([id])).toEqual([]);
    await db.run(db.sql.insertInto('users').values(userRow(id)));
    expect(await usersAmong([id])).toEqual([id]);
  });

  it("hands back no read's rows when the guard refuses: the guard goes out with the read, or alone", async () => {
    await insertUser(uniqueId('listed'));
    const refusal = new Refusal('refused by the guard');
    const { reads, queries } = countedReads();
    queueGuard(reads, refusal);
    await expect(everyUser(reads)).rejects.toBe(refusal);
    // MariaDB: one multi-statement query of both; embedded: the guard alone, the read never sent.
    expect(queries()).toBe(1);

    const passing = countedReads();
    queueGuard(passing.reads, undefined);
    expect((await everyUser(passing.reads)).length).toBeGreaterThan(0);
    expect(passing.queries()).toBe(together ? 1 : 2);
  });

  it("hands back no read's rows when the guard refuses: reads made while it is under way, or after", async () => {
    await insertUser(uniqueId('listed'));
    const refusal = new Refusal('refused by the guard');
    const { reads } = countedReads();
    queueGuard(reads, refusal);
    const carrying = everyUser(reads);
    const meanwhile = everyUser(reads);
    await expect(carrying).rejects.toBe(refusal);
    await expect(meanwhile).rejects.toBe(refusal);
    await expect(everyUser(reads)).rejects.toBe(refusal);
  });

  /** A read that runs as a server-side prepared statement on MariaDB (database/prepared.ts). */
  const preparedUserRead = prepare((on: Sql, id: string) =>
    on.selectFrom('users').select(['id', 'email']).where('id', '=', id),
  );
  const wholeUserRead = prepare((on: Sql, id: string) => on.selectFrom('users').selectAll().where('id', '=', id));
  const userById = prepare((on: Sql, id: string) => on.selectFrom('users').select('id').where('id', '=', id));

  /**
   * A guard of one value, as a member's role or a slug's organization is (database/guarded-reads.ts):
   * the id of `guardUser` when it is a user; its check sees what the statement found, and refuses
   * with `refusal` when given one.
   */
  function queueScalarGuard(reads: GuardedReads, guardUser: string, refusal: Refusal | undefined) {
    const seen: unknown[][] = [];
    const query = userById(reads.sql, guardUser);
    reads.guard(
      query,
      (result) => {
        seen.push(result.rows);
        if (refusal) throw refusal;
      },
      { asColumn: () => query.compile(), resultOf: (id) => ({ rows: id === null ? [] : [{ id: id as string }] }) },
    );
    return seen;
  }

  it('a guard of one value goes as a column of a prepared read on MariaDB, and refuses as one going alone', async () => {
    const [guardUser, readUser] = [uniqueId('guard'), uniqueId('read')];
    await insertUser(guardUser);
    await insertUser(readUser);
    const refusal = new Refusal('refused by the guard');

    const refused = countedReads();
    const refusedSeen = queueScalarGuard(refused.reads, guardUser, refusal);
    await expect(refused.reads.first(preparedUserRead(refused.reads.sql, readUser))).rejects.toBe(refusal);
    expect(refusedSeen).toEqual([[{ id: guardUser }]]);
    // MariaDB: one statement of both; embedded: the guard alone, the read never sent.
    expect(refused.queries()).toBe(1);

    const passing = countedReads();
    const passingSeen = queueScalarGuard(passing.reads, guardUser, undefined);
    // The read's row as the read selects it: the guard's column is not handed back.
    expect(await passing.reads.first(preparedUserRead(passing.reads.sql, readUser))).toEqual({
      id: readUser,
      email: `${readUser}@example.com`,
    });
    expect(passingSeen).toEqual([[{ id: guardUser }]]);
    expect(passing.queries()).toBe(together ? 1 : 2);

    // A read of every column (`select *`) takes the guard's too, and hands back its own alone.
    const whole = countedReads();
    queueScalarGuard(whole.reads, guardUser, undefined);
    const row = await whole.reads.first(wholeUserRead(whole.reads.sql, readUser));
    expect(row).toEqual((await sql.selectFrom('users').selectAll().where('id', '=', readUser).execute())[0]);
    expect(whole.queries()).toBe(together ? 1 : 2);

    // A guard that finds nothing is seen as finding nothing, folded or not.
    const missing = countedReads();
    const missingSeen = queueScalarGuard(missing.reads, uniqueId('nobody'), undefined);
    await missing.reads.first(preparedUserRead(missing.reads.sql, readUser));
    expect(missingSeen).toEqual([[]]);

    // A read that finds nothing brings no answer of the guard back: the guard goes on its own.
    const empty = countedReads();
    const emptySeen = queueScalarGuard(empty.reads, guardUser, refusal);
    await expect(empty.reads.first(preparedUserRead(empty.reads.sql, uniqueId('nobody')))).rejects.toBe(refusal);
    expect(emptySeen).toEqual([[{ id: guardUser }]]);
    expect(empty.queries()).toBe(together ? 2 : 1);
  });

  /** An organization with one member, `member` holding `role`, written straight into the tables. */
  async function seedOrganization(member: string, role: string): Promise<string> {
    const organizationId = newId();
    await insertUser(member);
    await sql
      .insertInto('organizations')
      .values({
        id: organizationId,
        name: 'Guarded',
        description: '',
        // Slugs are unique over the service (behaviour §15): the organization's own id's digits.
        slug: `guarded-${organizationId.replaceAll('-', '')}`,
        created_by: member,
        created_at: now(),
        updated_at: now(),
        version: 0,
      })
      .execute();
    await sql
      .insertInto('organization_users')
      .values({
        organization_id: organizationId,
        user_id: member,
        role,
        created_at: now(),
        updated_at: now(),
        expires_at: null,
      })
      .execute();
    return organizationId;
  }

  const versionOf = async (organizationId: string) =>
    (await sql.selectFrom('organizations').select('version').where('id', '=', organizationId).executeTakeFirstOrThrow())
      .version;

  /**
   * A change by `actor` needing `requirement` whose work only queues a write (a user row, `written`),
   * reading nothing, through an organization scope as the platform builds one (procedures.ts);
   * `withKey`: with an Idempotency-Key, whose claim sends BEGIN before the guard is queued.
   */
  function writeOnlyChange(
    organizationId: string,
    actor: string,
    requirement: Requirement,
    written: string,
    withKey: boolean,
  ): { done: Promise<string>; access: OrganizationAccess } {
    const access = new OrganizationAccess(
      { kind: 'person', userId: actor },
      organizationId,
      requirement,
      new RoleCatalogue(),
    );
    const request = withKey
      ? db.forRequest({}).withChangeHook(
          idempotencyHook(
            {
              callerId: actor,
              key: uniqueId('key'),
              fingerprint: 'f'.repeat(64),
              staleAfterMs: 60_000,
              keepForMs: 60_000,
            },
            new KeysInFlight(),
          ),
          () => undefined,
        )
      : db.forRequest({});
    const org = new InOrganization(request, access);
    const done = org.change((tx) => {
      insert(tx, written);
      return Promise.resolve('changed');
    });
    return { done, access };
  }

  it("a person's change reads the organization's newest event with its guard: the event it appends sorts after it", async () => {
    const member = uniqueId('member');
    const organizationId = await seedOrganization(member, 'owner');
    // The newest event, made by an instance whose clock runs a minute ahead of this one.
    const ahead = newId(Date.now() + 60_000);
    await sql
      .insertInto('organization_events')
      .values({
        event_id: ahead,
        organization_id: organizationId,
        type: 'organization.updated',
        actor_user_id: member,
        actor_key_id: null,
        subject_user_id: null,
        data: JSON.stringify({ changes: {} }),
        created_at: now(),
      })
      .execute();
    const access = new OrganizationAccess(
      { kind: 'person', userId: member },
      organizationId,
      'organization:update',
      new RoleCatalogue(),
    );
    expect(access.newestEventRead).toBe('with the guard');
    const org = new InOrganization(db.forRequest({}), access);
    const appended = await org.change((tx, change) =>
      appendEvent(tx, change, { type: 'organization.updated', subjectUserId: null, data: { changes: {} } }),
    );
    expect(appended > ahead).toBe(true);
    const newest = await sql
      .selectFrom('organization_events')
      .select('event_id')
      .where('organization_id', '=', organizationId)
      .orderBy('event_id', 'desc')
      .executeTakeFirstOrThrow();
    expect(newest.event_id).toBe(appended);
  });

  it.each([false, true])(
    'runs the guard of a change whose work reads nothing before it commits (with an Idempotency-Key: %s)',
    async (withKey) => {
      const member = uniqueId('member');
      const organizationId = await seedOrganization(member, 'member');
      const stranger = uniqueId('stranger');
      await insertUser(stranger);
      const version = await versionOf(organizationId);

      const refusedWrites = [uniqueId('refused'), uniqueId('refused')];
      // A non-member, then a member lacking the permission (role member: no members:add).
      const byStranger = writeOnlyChange(organizationId, stranger, 'organization:read', refusedWrites[0]!, withKey);
      await expect(byStranger.done).rejects.toMatchObject({ code: 'FORBIDDEN' });
      const lacking = writeOnlyChange(organizationId, member, 'members:add', refusedWrites[1]!, withKey);
      await expect(lacking.done).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining('(members:add)'),
      });
      expect(await usersAmong(refusedWrites)).toEqual([]);
      expect(await versionOf(organizationId)).toBe(version);
      expect(
        await sql
          .selectFrom('idempotency_keys')
          .select('caller_id')
          .where('caller_id', 'in', [stranger, member])
          .execute(),
      ).toEqual([]);

      const allowedWrite = uniqueId('allowed');
      const allowed = writeOnlyChange(organizationId, member, 'organization:read', allowedWrite, withKey);
      expect(await allowed.done).toBe('changed');
      expect(allowed.access.passed).toBe(true);
      expect(await usersAmong([allowedWrite])).toEqual([allowedWrite]);
    },
  );
});
