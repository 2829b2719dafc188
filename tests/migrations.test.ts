import { createHash } from 'node:crypto';
import type { Connection } from '@mikro-orm/core';
import { expect, it } from 'vitest';
import { searchWords } from '../shared/search.ts';
import { locateDatabase } from '../server/platform/database/engine.ts';
import { migrate, openDatabase, type Orm } from '../server/platform/database/orm.ts';
import { toDbTimestamp, type Database } from '../server/platform/database/schema.ts';
import { memberMatches, organizationMatches, userMatches, wordRanges } from '../server/platform/database/word-index.ts';
import { storedTeamNameKey } from '../server/modules/teams/name-key.ts';
import { ORGANIZATIONS_BATCH } from '../migrations/team-name-keys.ts';
import { describeOnEachDatabase, type TestDatabase } from './support/databases.ts';

const INITIAL = 'Migration20261122212048_initial';
const LIFECYCLE = 'Migration20261123170000_lifecycle_events_idempotency';
/** MySQL and MariaDB only: SQLite compares text byte for byte already. */
const EXACT_IDENTITY = 'Migration20261124230000_exact_identity';
const ROLES_AND_EXPIRY = 'Migration20261125120000_roles_and_expiry';
const TEAMS = 'Migration20261126090000_teams';
const WEBHOOKS = 'Migration20261126120000_webhooks';
const TEAM_NAME_KEYS = 'Migration20261128120000_team_name_keys';
const MACHINES_AND_DIRECTORY = 'Migration20261129090000_machines_and_directory';
const SEARCH_WORDS = 'Migration20261129100000_search_words';
const DOMAINS_AND_JOINING = 'Migration20261129120000_domains_and_joining';
const SCIM = 'Migration20261129130000_scim';
const ACCOUNT_DELETION = 'Migration20261129150000_account_deletion';
const DELIVERY_RESPONSE_BODY = 'Migration20261129160000_delivery_response_body';
const REDUNDANT_INDEXES = 'Migration20261130090000_redundant_indexes';
const DIRECTORY_USER_LINKS = 'Migration20261201090000_directory_user_links';
const CASE_FOLDED_WORDS = 'Migration20261201120000_case_folded_words';
const CASE_FOLDED_TEAM_NAMES = 'Migration20261201140000_case_folded_team_names';
/** Every migration, in the order they apply (migrations/index.ts lists them for the service). */
const MIGRATIONS = [
  INITIAL,
  LIFECYCLE,
  EXACT_IDENTITY,
  ROLES_AND_EXPIRY,
  TEAMS,
  WEBHOOKS,
  TEAM_NAME_KEYS,
  MACHINES_AND_DIRECTORY,
  SEARCH_WORDS,
  DOMAINS_AND_JOINING,
  SCIM,
  ACCOUNT_DELETION,
  DELIVERY_RESPONSE_BODY,
  REDUNDANT_INDEXES,
  DIRECTORY_USER_LINKS,
  CASE_FOLDED_WORDS,
  CASE_FOLDED_TEAM_NAMES,
];

/**
 * The service's tables (not the migrator's own) and text columns whose collation is not MariaDB's
 * binary NO PAD one: ids must compare byte for byte, trailing spaces included.
 */
const notBinaryNoPad = (orm: Orm) =>
  orm.em.getConnection().execute(
    `select table_name, column_name, collation_name from information_schema.columns
       where table_schema = database() and table_name <> 'mikro_orm_migrations' and collation_name <> 'utf8mb4_nopad_bin'
     union all
     select table_name, null, table_collation from information_schema.tables
       where table_schema = database() and table_name <> 'mikro_orm_migrations' and table_collation <> 'utf8mb4_nopad_bin'`,
  );

/**
 * The schema diff, less one rebuild MikroORM always asks for on the embedded database: it reads a
 * composite foreign key there as one key per column (its SQLite schema helper names each row of
 * `pragma foreign_key_list` by its column, not by the key's id), so it never finds team_members'
 * key to its membership (organization_id, user_id) and rebuilds the table with that same key.
 */
async function schemaDiff(orm: Orm, engine: string): Promise<string> {
  const diff = (await orm.schema.getUpdateSchemaSQL()).trim();
  if (engine !== 'embedded') return diff;
  const statements = diff.split('\n').filter((line) => line.trim() !== '');
  const rebuild = statements.filter((line) => /team_members|^pragma foreign_keys/.test(line));
  if (rebuild.length > 0) {
    expect(rebuild.join('\n')).toContain(
      'foreign key (`organization_id`, `user_id`) references `organization_users` (`organization_id`, `user_id`) on update cascade on delete cascade',
    );
  }
  return statements.filter((line) => !rebuild.includes(line)).join('\n');
}

interface Index {
  table: string;
  name: string;
  unique: boolean;
  columns: string[];
}

/** One column of one index, as both databases' catalogues are asked for it below. */
type IndexColumn = { table: string; name: string; unique: number; column: string };

/** Every index of the service's tables (the primary key's too), with its columns in order. */
async function indexesOf(orm: Orm, engine: string): Promise<Index[]> {
  const connection = orm.em.getConnection();
  const rows =
    engine === 'embedded'
      ? await connection.execute<IndexColumn[]>(
          `select t.name as \`table\`, l.name as name, l."unique" as \`unique\`, i.name as \`column\`
             from sqlite_master t, pragma_index_list(t.name) l, pragma_index_info(l.name) i
             where t.type = 'table' and t.name not like 'sqlite_%' and t.name <> 'mikro_orm_migrations'
             order by t.name, l.name, i.seqno`,
        )
      : await connection.execute<IndexColumn[]>(
          `select table_name as \`table\`, index_name as name, 1 - non_unique as \`unique\`, column_name as \`column\`
             from information_schema.statistics
             where table_schema = database() and table_name <> 'mikro_orm_migrations'
             order by table_name, index_name, seq_in_index`,
        );
  const indexes = new Map<string, Index>();
  for (const row of rows) {
    const key = `${row.table}.${row.name}`;
    const index: Index = indexes.get(key) ?? {
      table: row.table,
      name: row.name,
      unique: Number(row.unique) === 1,
      columns: [],
    };
    index.columns.push(row.column);
    indexes.set(key, index);
  }
  return [...indexes.values()];
}

/** The indexes that do nothing another does not: not unique, and their columns begin another's. */
const redundantIndexes = (indexes: Index[]): string[] =>
  indexes
    .filter((index) => !index.unique)
    .filter((index) =>
      indexes.some(
        (other) =>
          other !== index &&
          other.table === index.table &&
          other.columns.length >= index.columns.length &&
          index.columns.every((column, position) => other.columns[position] === column),
      ),
    )
    .map((index) => `${index.table}.${index.name} (${index.columns.join(', ')})`);

/** What a test of a migration gets of the database an earlier release made (onEarlierRelease). */
interface EarlierRelease {
  orm: Orm;
  database: TestDatabase;
  connection: Connection;
  run: (sql: string, params: unknown[]) => Promise<unknown>;
  at: number | string;
  later: number | string;
}

describeOnEachDatabase('migrations', (target) => {
  const all = target.name === 'embedded' ? MIGRATIONS.filter((name) => name !== EXACT_IDENTITY) : MIGRATIONS;
  /** The migrations from `first` on: what a database made by the release before `first` is given. */
  const from = (first: string) => {
    expect(all).toContain(first);
    return all.slice(all.indexOf(first));
  };

  /**
   * A database an earlier release made, its migrations applied up to `last`, given to `test` with
   * what writing that release's rows takes, then dropped: `run` a statement, `at` a time as the
   * database stores it (and `later`, a millisecond after).
   */
  const onEarlierRelease = async (last: string, test: (earlier: EarlierRelease) => Promise<void>) => {
    const database = await target.create();
    const orm = await openDatabase(database.url);
    try {
      await orm.migrator.up({ to: last });
      const connection = orm.em.getConnection();
      const embedded = target.name === 'embedded';
      await test({
        orm,
        database,
        connection,
        run: (sql, params) => connection.execute(sql, params, 'run'),
        at: embedded ? 1_700_000_000_123 : '2023-11-14 22:13:20.123',
        later: embedded ? 1_700_000_000_124 : '2023-11-14 22:13:20.124',
      });
    } finally {
      await orm.close();
      await database.drop();
    }
  };

  it('build exactly the schema the entities describe, no index beginning another, and apply once', async () => {
    const database = await target.create();
    const orm = await openDatabase(database.url);
    try {
      expect(await migrate(orm)).toEqual(all);
      expect(await migrate(orm)).toEqual([]);
      // Empty diff: the hand-kept migrations and the entity definitions agree.
      expect(await schemaDiff(orm, target.name)).toBe('');
      // The diff does not see a table's collation, which every column inherits.
      if (target.name === 'mariadb') expect(await notBinaryNoPad(orm)).toEqual([]);
      // No foreign key keeps an index of its own where another begins with its column (entities.ts).
      const indexes = await indexesOf(orm, target.name);
      expect(indexes.length).toBeGreaterThan(40);
      expect(redundantIndexes(indexes)).toEqual([]);
    } finally {
      await orm.close();
      await database.drop();
    }
  });

  it('keep the rows of a database made by an earlier release', () =>
    onEarlierRelease(INITIAL, async ({ orm, run, at: created }) => {
      await run('insert into users values (?, ?, ?, ?, ?, ?)', [
        'u1',
        'Ann',
        'Lee',
        'ann@example.com',
        created,
        created,
      ]);
      await run('insert into organizations values (?, ?, ?, ?, ?)', ['o1', 'Acme', '', 'u1', created]);
      await run('insert into organization_users values (?, ?, ?, ?, ?)', ['o1', 'u1', 'owner', created, created]);

      expect(await migrate(orm)).toEqual(all.slice(1));

      const organizations = await orm.em
        .getConnection()
        .execute('select id, created_at, updated_at, version from organizations');
      expect(organizations).toEqual([{ id: 'o1', created_at: created, updated_at: created, version: 0 }]);
      // Rebuilding the organizations table must not cascade to its memberships.
      const members = await orm.em
        .getConnection()
        .execute('select organization_id, user_id, role, expires_at from organization_users');
      expect(members).toEqual([{ organization_id: 'o1', user_id: 'u1', role: 'owner', expires_at: null }]);
      expect(await schemaDiff(orm, target.name)).toBe('');
    }));

  it("recompute an earlier release's team name keys, keeping the teams whose names are now one (behaviour §4.4)", () =>
    onEarlierRelease(WEBHOOKS, async ({ orm, connection, run, at }) => {
      await run('insert into users values (?, ?, ?, ?, ?, ?)', ['u1', 'Ann', 'Lee', 'ann@example.com', at, at]);
      for (const organization of ['o1', 'o2']) {
        await run(
          'insert into organizations (id, name, description, created_by, created_at, updated_at, version) values (?, ?, ?, ?, ?, ?, ?)',
          [organization, 'Acme', '', 'u1', at, at, 0],
        );
      }
      // Keys as the earlier release made them: the name, upper then lower case.
      const teams = [
        ['t1', 'o1', 'Managers'],
        ['t2', 'o1', 'Mana\u200bgers'],
        ['t3', 'o1', 'Café'],
        ['t4', 'o2', 'Ｍａｎａｇｅｒｓ'],
      ];
      for (const [id, organization, name] of teams) {
        await run(
          'insert into teams (id, organization_id, name, name_key, description, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)',
          [id, organization, name, name!.toUpperCase().toLowerCase(), '', at, at],
        );
      }

      expect(await migrate(orm)).toEqual(from(TEAM_NAME_KEYS));

      const managers = storedTeamNameKey('Managers');
      expect(await connection.execute('select id, name, name_key from teams order by id')).toEqual([
        { id: 't1', name: 'Managers', name_key: managers },
        { id: 't2', name: 'Mana\u200bgers', name_key: `${managers} t2` },
        { id: 't3', name: 'Café', name_key: storedTeamNameKey('Cafe\u0301') },
        { id: 't4', name: 'Ｍａｎａｇｅｒｓ', name_key: managers },
      ]);
      // No third team of o1 may take the name, in any spelling.
      await expect(
        run(
          'insert into teams (id, organization_id, name, name_key, description, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)',
          ['t5', 'o1', 'MANAGERS', storedTeamNameKey('MANAGERS'), '', at, at],
        ),
      ).rejects.toThrow(/unique|duplicate/i);
      expect(await schemaDiff(orm, target.name)).toBe('');
    }));

  it('recompute the team name keys of the organizations with a name holding "ẞ", in batches, the older of two names now one keeping the key (behaviour §4.4)', () =>
    onEarlierRelease(CASE_FOLDED_WORDS, async ({ orm, connection, run, at, later }) => {
      const insert = (table: string, columns: string[], rows: unknown[][]) =>
        run(
          `insert into ${table} (${columns.join(', ')}) values ${rows.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ')}`,
          rows.flat(),
        );
      await insert(
        'users',
        ['id', 'first_name', 'last_name', 'email', 'created_at', 'updated_at'],
        [['u1', 'Ann', 'Lee', 'ann@example.com', at, at]],
      );
      // More organizations with a name holding "ẞ" than the migration takes at a time (b000…),
      // each with a team of its own, before those the cases below are about (o1…).
      const many = Array.from({ length: ORGANIZATIONS_BATCH + 1 }, (_, index) => `b${String(index).padStart(3, '0')}`);
      const organizations = [...many, 'o1', 'o2', 'o3'];
      await insert(
        'organizations',
        ['id', 'name', 'slug', 'description', 'created_by', 'created_at', 'updated_at', 'version'],
        organizations.map((id) => [id, 'Acme', `acme-${id}`, '', 'u1', at, at, 0]),
      );
      // Keys as the earlier release made them: the digest of the name upper then lower cased, so
      // that "STRAẞE" was "straße" and "Strasse" "strasse". In o1 the name holding "ẞ" is the
      // older of the two now one, in o3 the newer; o2 has no such name, and its key, one no fold
      // makes, shows it is left alone.
      const earlierKey = (name: string) =>
        createHash('sha256').update(name.toUpperCase().toLowerCase()).digest('base64url');
      const teams: Array<[string, string, string, string | number]> = [
        ['t1', 'o1', 'STRAẞE', at],
        ['t2', 'o1', 'Strasse', later],
        ['t3', 'o1', 'Maße', at],
        ['t4', 'o2', 'Strasse', at],
        ['t5', 'o3', 'Gross', at],
        ['t6', 'o3', 'GROẞ', later],
        ...many.map((organization): [string, string, string, string | number] => [
          `t-${organization}`,
          organization,
          'STRAẞE',
          at,
        ]),
      ];
      await insert(
        'teams',
        ['id', 'organization_id', 'name', 'name_key', 'description', 'created_at', 'updated_at'],
        teams.map(([id, organization, name, createdAt]) => [
          id,
          organization,
          name,
          id === 't4' ? 'left-as-it-was' : earlierKey(name),
          '',
          createdAt,
          createdAt,
        ]),
      );

      expect(await migrate(orm)).toEqual(from(CASE_FOLDED_TEAM_NAMES));

      const strasse = storedTeamNameKey('strasse');
      const gross = storedTeamNameKey('gross');
      expect(storedTeamNameKey('STRAẞE')).toBe(strasse);
      expect(await connection.execute("select id, name_key from teams where id like 't_' order by id")).toEqual([
        { id: 't1', name_key: strasse },
        { id: 't2', name_key: `${strasse} t2` },
        { id: 't3', name_key: storedTeamNameKey('MASSE') },
        { id: 't4', name_key: 'left-as-it-was' },
        { id: 't5', name_key: gross },
        { id: 't6', name_key: `${gross} t6` },
      ]);
      const batched = (await connection.execute("select name_key from teams where id like 't-b%'")) as Array<{
        name_key: string;
      }>;
      expect(batched).toHaveLength(many.length);
      expect(new Set(batched.map((team) => team.name_key))).toEqual(new Set([strasse]));
      // No third team of o3 may take the name, in any spelling.
      await expect(
        insert(
          'teams',
          ['id', 'organization_id', 'name', 'name_key', 'description', 'created_at', 'updated_at'],
          [['t7', 'o3', 'GROSS', storedTeamNameKey('GROSS'), '', at, at]],
        ),
      ).rejects.toThrow(/unique|duplicate/i);
      expect(await schemaDiff(orm, target.name)).toBe('');
    }));

  it("give an earlier release's organizations their slugs and member counts, and keep their events and invitations (behaviour §15, §16)", () =>
    onEarlierRelease(TEAM_NAME_KEYS, async ({ orm, connection, run, at, later }) => {
      for (const user of ['u1', 'u2']) {
        await run('insert into users values (?, ?, ?, ?, ?, ?)', [user, 'Ann', 'Lee', `${user}@example.com`, at, at]);
      }
      const organizations: Array<[string, string, unknown]> = [
        ['o1', 'Acme', at],
        ['o2', 'ACME!', later],
        ['o3', '日本', later],
      ];
      for (const [id, name, created] of organizations) {
        await run(
          'insert into organizations (id, name, description, created_by, created_at, updated_at, version) values (?, ?, ?, ?, ?, ?, ?)',
          [id, name, '', 'u1', created, created, 0],
        );
      }
      for (const [organization, user] of [
        ['o1', 'u1'],
        ['o1', 'u2'],
        ['o2', 'u1'],
      ]) {
        await run(
          'insert into organization_users (organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, ?, ?)',
          [organization, user, 'owner', at, at],
        );
      }
      await run(
        'insert into organization_events (event_id, organization_id, type, actor_user_id, subject_user_id, data, created_at) values (?, ?, ?, ?, ?, ?, ?)',
        ['e1', 'o1', 'organization.created', 'u1', 'u1', '{}', at],
      );
      await run(
        'insert into invitations (id, organization_id, email, role, status, invited_by, created_at, expires_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        ['i1', 'o1', 'x@example.com', 'member', 'pending', 'u1', at, at, at],
      );

      expect(await migrate(orm)).toEqual(from(MACHINES_AND_DIRECTORY));

      expect(
        await connection.execute(
          'select id, slug, member_count, public_metadata, private_metadata, max_members from organizations order by id',
        ),
      ).toEqual([
        { id: 'o1', slug: 'acme', member_count: 2, public_metadata: '{}', private_metadata: '{}', max_members: null },
        { id: 'o2', slug: 'acme-2', member_count: 1, public_metadata: '{}', private_metadata: '{}', max_members: null },
        { id: 'o3', slug: 'org', member_count: 0, public_metadata: '{}', private_metadata: '{}', max_members: null },
      ]);
      expect(await connection.execute('select event_id, actor_user_id, actor_key_id from organization_events')).toEqual(
        [{ event_id: 'e1', actor_user_id: 'u1', actor_key_id: null }],
      );
      expect(await connection.execute('select id, invited_by, invited_by_key_id from invitations')).toEqual([
        { id: 'i1', invited_by: 'u1', invited_by_key_id: null },
      ]);
      // Rebuilding the invitations and events tables must not cascade to anything.
      const [{ members }] = (await connection.execute('select count(*) as members from organization_users')) as [
        { members: number | string },
      ];
      expect(Number(members)).toBe(3);
      // The word tables of the search (behaviour §15), filled for what existed.
      expect(await connection.execute("select word from user_words where user_id = 'u1' order by word")).toEqual(
        ['ann', 'com', 'example', 'lee', 'u1', 'u1@example.com'].map((word) => ({ word })),
      );
      const memberWords = (await connection.execute(
        "select organization_id, user_id from member_words where word = 'ann' order by organization_id, user_id",
      )) as Array<{ organization_id: string; user_id: string }>;
      expect(memberWords.map((row) => `${row.organization_id} ${row.user_id}`)).toEqual(['o1 u1', 'o1 u2', 'o2 u1']);
      expect(
        await connection.execute("select word from organization_words where organization_id = 'o3' order by word"),
      ).toEqual([{ word: 'org' }, { word: '日本' }]);
      expect(await schemaDiff(orm, target.name)).toBe('');
    }));

  it("keep an earlier release's webhook deliveries, with no answer body kept for them (behaviour §13)", () =>
    onEarlierRelease(ACCOUNT_DELETION, async ({ orm, connection, run, at }) => {
      await run(
        'insert into organizations (id, name, description, created_by, created_at, updated_at, version, slug) values (?, ?, ?, ?, ?, ?, ?, ?)',
        ['o1', 'Acme', '', 'u1', at, at, 0, 'acme'],
      );
      await run(
        'insert into webhooks (id, organization_id, url, event_types, description, secret, enabled, created_event_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        ['w1', 'o1', 'https://hooks.example.com/', '["*"]', '', 'whsec_x', 1, 'e0', at, at],
      );
      await run(
        'insert into webhook_deliveries (id, webhook_id, organization_id, event_id, event_type, status, attempts, last_status_code, last_error, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        ['d1', 'w1', 'o1', 'e1', 'organization.updated', 'failed', 8, 500, 'HTTP 500: boom', at, at],
      );

      expect(await migrate(orm)).toEqual(from(DELIVERY_RESPONSE_BODY));

      expect(
        await connection.execute(
          'select id, status, last_status_code, last_error, last_response_body from webhook_deliveries',
        ),
      ).toEqual([
        { id: 'd1', status: 'failed', last_status_code: 500, last_error: 'HTTP 500: boom', last_response_body: null },
      ]);
      expect(await schemaDiff(orm, target.name)).toBe('');
    }));

  it('fold anew the search words of an earlier release\'s names outside ASCII: `strasse` finds "Straße" (behaviour §15)', () =>
    onEarlierRelease(DIRECTORY_USER_LINKS, async ({ orm, database }) => {
      const dialect = locateDatabase(database.url).dialect;
      const sql = orm.em.getKysely<Database>();
      const at = toDbTimestamp(dialect, new Date('2026-11-30T12:00:00.000Z'));
      // More people than one batch of the migration reads, each with the words the earlier release
      // kept: its fold lower-cased and dropped accents only, so "Straße" stayed "straße".
      const people = [
        ...Array.from({ length: 1001 }, (_, index) => {
          const id = `u-${String(index).padStart(4, '0')}`;
          const email = `${id}@example.com`;
          return {
            user: { id, first_name: 'Jörg', last_name: 'Straße', email },
            words: ['jorg', 'straße', 'u', id.slice(2), 'example', 'com', email],
          };
        }),
        {
          user: { id: 'kassandra', first_name: 'Κασσάνδρα', last_name: 'ΟΔΥΣΣΕΥΣ', email: 'k@example.com' },
          words: ['κασσανδρα', 'οδυσσευς', 'k', 'example', 'com', 'k@example.com'],
        },
        // All ASCII: its words are left as they are, the one no fold makes included.
        {
          user: { id: 'bob', first_name: 'Bob', last_name: 'Strasse', email: 'bob@example.com' },
          words: ['bob', 'strasse', 'example', 'com', 'bob@example.com', 'left-as-it-was'],
        },
      ];
      await sql
        .insertInto('users')
        .values(people.map(({ user }) => ({ ...user, created_at: at, updated_at: at })))
        .execute();
      await sql
        .insertInto('organizations')
        .values({
          id: 'o1',
          name: 'Straße AG',
          slug: 'stra-e-ag',
          description: '',
          created_by: 'bob',
          created_at: at,
          updated_at: at,
          version: 0,
          member_count: people.length,
        })
        .execute();
      await sql
        .insertInto('organization_words')
        .values(['straße', 'ag', 'stra', 'e', 'stra-e-ag'].map((word) => ({ organization_id: 'o1', word })))
        .execute();
      await sql
        .insertInto('organization_users')
        .values(
          people.map(({ user }) => ({
            organization_id: 'o1',
            user_id: user.id,
            role: 'member',
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
      const words = people.flatMap(({ user, words }) => words.map((word) => ({ user_id: user.id, word })));
      for (let start = 0; start < words.length; start += 2000) {
        const batch = words.slice(start, start + 2000);
        await sql.insertInto('user_words').values(batch).execute();
        await sql
          .insertInto('member_words')
          .values(batch.map((row) => ({ ...row, organization_id: 'o1' })))
          .execute();
      }

      expect(await migrate(orm)).toEqual(from(CASE_FOLDED_WORDS));

      // Found as the service searches: the member list, every user, the organizations.
      const members = async (search: string) =>
        (
          await sql
            .selectFrom('organization_users as m')
            .select('m.user_id')
            .where('m.organization_id', '=', 'o1')
            .where((eb) => eb.and(memberMatches(dialect, 'm', 'o1', wordRanges(searchWords(search)))))
            .orderBy('m.user_id')
            .execute()
        ).map((row) => row.user_id);
      const users = async (search: string) =>
        (
          await sql
            .selectFrom('users as u')
            .select('u.id')
            .where((eb) => eb.and(userMatches('u', searchWords(search))))
            .orderBy('u.id')
            .execute()
        ).map((row) => row.id);
      const jorgs = people.slice(0, 1001).map(({ user }) => user.id);
      for (const search of ['strasse', 'STRASSE', 'straße']) expect(await members(search)).toEqual(['bob', ...jorgs]);
      expect(await members('jörg STRAẞE')).toEqual(jorgs);
      expect(await users('Straße u-0500')).toEqual(['u-0500']);
      expect(await members('ΚΑΣ οδυσσευσ')).toEqual(['kassandra']);
      const organizations = await sql
        .selectFrom('organizations as o')
        .select('o.id')
        .where((eb) => eb.and(organizationMatches('o', searchWords('STRASSE ag'))))
        .execute();
      expect(organizations).toEqual([{ id: 'o1' }]);
      const wordsOf = async (table: 'user_words' | 'member_words', userId: string) =>
        (await sql.selectFrom(table).select('word').where('user_id', '=', userId).orderBy('word').execute()).map(
          (row) => row.word,
        );
      expect(await wordsOf('user_words', 'u-0007')).toEqual([
        '0007',
        'com',
        'example',
        'jorg',
        'strasse',
        'u',
        'u-0007@example.com',
      ]);
      expect(await wordsOf('member_words', 'u-0007')).toEqual(await wordsOf('user_words', 'u-0007'));
      expect(await wordsOf('member_words', 'bob')).toContain('left-as-it-was');
      expect(await schemaDiff(orm, target.name)).toBe('');
    }));

  // Only MySQL and MariaDB had a collation to change: the embedded database compares bytes already.
  if (target.name === 'mariadb')
    it('make an existing database compare ids byte for byte, keeping its rows and what they reference', () =>
      onEarlierRelease(LIFECYCLE, async ({ orm, connection, run, at }) => {
        await run('insert into users values (?, ?, ?, ?, ?, ?)', [
          'alice',
          'Alice',
          'Lee',
          'alice@example.com',
          at,
          at,
        ]);
        await run('insert into organizations values (?, ?, ?, ?, ?, ?, ?)', ['o1', 'Acme', '', 'alice', at, at, 0]);
        await run('insert into organization_users values (?, ?, ?, ?, ?)', ['o1', 'alice', 'owner', at, at]);
        // What a lookalike caller could write before: rows whose references name Alice's row in
        // other letters, which the old collation took for hers.
        await run('insert into organizations values (?, ?, ?, ?, ?, ?, ?)', ['o2', 'Other', '', 'Alice ', at, at, 0]);
        await run('insert into organization_users values (?, ?, ?, ?, ?)', ['o2', 'ALICE', 'owner', at, at]);
        await run('insert into invitations values (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
          'i1',
          'o2',
          'bob@example.com',
          'member',
          'pending',
          'alicé',
          at,
          at,
          at,
        ]);
        await run('insert into organization_events values (?, ?, ?, ?, ?, ?, ?)', [
          'e1',
          'o2',
          'organization.created',
          'Alice ',
          'Alice ',
          '{}',
          at,
        ]);
        await run('insert into idempotency_keys values (?, ?, ?, ?, ?)', ['alice', 'Key-1', 'f1', '{}', at]);

        expect(await migrate(orm)).toEqual(from(EXACT_IDENTITY));

        // Every row kept; a reference now names the row it referenced exactly. The audit trail keeps
        // the actor as it was written (it references no row).
        expect(await connection.execute('select id, email from users')).toEqual([
          { id: 'alice', email: 'alice@example.com' },
        ]);
        expect(await connection.execute('select id, created_by from organizations order by id')).toEqual([
          { id: 'o1', created_by: 'alice' },
          { id: 'o2', created_by: 'alice' },
        ]);
        expect(await connection.execute('select organization_id, user_id from organization_users order by 1')).toEqual([
          { organization_id: 'o1', user_id: 'alice' },
          { organization_id: 'o2', user_id: 'alice' },
        ]);
        expect(await connection.execute('select id, invited_by from invitations')).toEqual([
          { id: 'i1', invited_by: 'alice' },
        ]);
        expect(await connection.execute('select actor_user_id, subject_user_id from organization_events')).toEqual([
          { actor_user_id: 'Alice ', subject_user_id: 'Alice ' },
        ]);

        // Ids and keys now match byte for byte only.
        for (const lookalike of ['Alice', 'alice ', 'alicé', 'ALICE']) {
          expect(await connection.execute('select id from users where id = ?', [lookalike])).toEqual([]);
          await run('insert into users values (?, ?, ?, ?, ?, ?)', [
            lookalike,
            'A',
            'L',
            `${lookalike.trim()}@x.test`,
            at,
            at,
          ]);
        }
        for (const [caller, key] of [
          ['alice', 'key-1'],
          ['alice', 'Key-1 '],
          ['Alice', 'Key-1'],
        ]) {
          await run('insert into idempotency_keys values (?, ?, ?, ?, ?)', [caller, key, 'f2', null, at]);
        }
        const stored = await connection.execute('select caller_id, idempotency_key, fingerprint from idempotency_keys');
        expect(stored).toHaveLength(4);
        expect(stored).toContainEqual({ caller_id: 'alice', idempotency_key: 'Key-1', fingerprint: 'f1' });
        await run(
          'insert into organizations (id, name, description, created_by, created_at, updated_at, version, slug) values (?, ?, ?, ?, ?, ?, ?, ?)',
          ['O1', 'Upper', '', 'alice', at, at, 0, 'upper'],
        );
        // The foreign keys are back, and as exact: 'aLice' names no user.
        await expect(
          run(
            'insert into organization_users (organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, ?, ?)',
            ['o1', 'aLice', 'member', at, at],
          ),
        ).rejects.toThrow(/foreign key/i);
        expect(await notBinaryNoPad(orm)).toEqual([]);
        expect(await schemaDiff(orm, target.name)).toBe('');
      }));
});
