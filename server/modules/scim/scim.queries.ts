/**
 * The statements of the directory (behaviour §18): directory users, directory groups (teams the
 * identity provider made) and their members. Each builds, queues (`tx.later`) or runs SQL and
 * returns rows; none decides anything or throws. The rules are the services'.
 */
import type { Compilable, ExpressionBuilder, ExpressionWrapper, SqlBool } from 'kysely';
import {
  currentMembershipOfDirectoryUser,
  nowFor,
  type ClockedReader,
} from '../../platform/authorization/memberships.ts';
import type { Database, DbTimestamp, Sql } from '../../platform/database/schema.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Condition, GroupAttribute, UserAttribute } from './filter.ts';

export interface DirectoryUserRow {
  id: string;
  organization_id: string;
  user_name: string;
  user_name_key: string;
  email_key: string;
  external_id: string | null;
  given_name: string;
  family_name: string;
  display_name: string;
  emails: string;
  active: boolean | number;
  user_id: string | null;
  created_at: DbTimestamp;
  updated_at: DbTimestamp;
}

/** What a directory user is made of, as the service writes it. */
export type DirectoryUserFields = Omit<DirectoryUserRow, 'organization_id' | 'created_at' | 'updated_at' | 'active'> & {
  active: boolean;
};

/**
 * A boolean as both databases take it bound: 1 or 0 (the embedded database's driver binds no
 * JavaScript boolean; MariaDB's tinyint(1) reads it back as a number too).
 */
const stored = (value: boolean) => (value ? 1 : 0) as unknown as boolean;

type UsersExpression = ExpressionBuilder<Database, 'directory_users'>;
type GroupsExpression = ExpressionBuilder<Database, 'directory_groups' | 'teams'>;

/** The column a user is compared by, for each attribute, and the value it holds for what is asked. */
const USER_COLUMNS = {
  // userName and e-mail compare ignoring case, by their lower-cased keys.
  userName: { column: 'directory_users.user_name_key', key: (value: string) => value.toLowerCase() },
  'emails.value': { column: 'directory_users.email_key', key: (value: string) => value.toLowerCase() },
  externalId: { column: 'directory_users.external_id', key: (value: string) => value },
  id: { column: 'directory_users.id', key: (value: string) => value },
} as const satisfies Record<UserAttribute, { column: string; key: (value: string) => string }>;

/** A user filter as SQL. */
function userWhere(
  eb: UsersExpression,
  condition: Condition<UserAttribute>,
): ExpressionWrapper<Database, 'directory_users', SqlBool> {
  if ('all' in condition) return eb.and(condition.all.map((part) => userWhere(eb, part)));
  if ('any' in condition) return eb.or(condition.any.map((part) => userWhere(eb, part)));
  const { column, key } = USER_COLUMNS[condition.attribute];
  return eb(column, '=', key(condition.value));
}

/**
 * The rows of `page`, read at `offset` (SCIM's startIndex, from 0) with `limit`, and how many rows
 * match in all. A page that is not full tells the total itself (a lookup by userName, the identity
 * providers' most frequent request, is one): only a full page, or an empty one past the first, is
 * counted, with a statement of its own.
 */
async function offsetPage<Row>(
  reader: Reader,
  page: Compilable<Row>,
  count: () => Compilable<{ total: number | string }>,
  offset: number,
  limit: number,
): Promise<{ rows: Row[]; total: number }> {
  const rows = limit === 0 ? [] : await reader.all(page);
  if (limit > 0 && rows.length < limit && (rows.length > 0 || offset === 0)) {
    return { rows, total: offset + rows.length };
  }
  return { rows, total: Number((await reader.first(count()))?.total ?? 0) };
}

const usersOf = (sql: Sql, organizationId: string) =>
  sql.selectFrom('directory_users').where('directory_users.organization_id', '=', organizationId);

/** Oldest first. */
const pageOfUsers = (matching: ReturnType<typeof usersOf>, limit: number, offset: number) =>
  matching.selectAll().orderBy('directory_users.created_at').orderBy('directory_users.id').limit(limit).offset(offset);

// The page unfiltered and by each attribute alone, the identity providers' requests, are prepared
// (a page's rows: not server-side); a filter of several comparisons is built for its shape.
const allUsersPage = prepare(
  (sql, organizationId: string, limit: number, offset: number) =>
    pageOfUsers(usersOf(sql, organizationId), limit, offset),
  { serverSide: false },
);
const usersPageByKey = (column: (typeof USER_COLUMNS)[UserAttribute]['column']) =>
  prepare(
    (sql, organizationId: string, key: string, limit: number, offset: number) =>
      pageOfUsers(usersOf(sql, organizationId).where(column, '=', key), limit, offset),
    { serverSide: false },
  );
const usersPageBy = Object.fromEntries(
  Object.entries(USER_COLUMNS).map(([attribute, { column }]) => [attribute, usersPageByKey(column)]),
) as Record<UserAttribute, ReturnType<typeof usersPageByKey>>;

function usersPage(
  sql: Sql,
  organizationId: string,
  condition: Condition<UserAttribute> | undefined,
  limit: number,
  offset: number,
) {
  if (condition === undefined) return allUsersPage(sql, organizationId, limit, offset);
  if ('attribute' in condition) {
    const { attribute, value } = condition;
    return usersPageBy[attribute](sql, organizationId, USER_COLUMNS[attribute].key(value), limit, offset);
  }
  return pageOfUsers(
    usersOf(sql, organizationId).where((eb) => userWhere(eb, condition)),
    limit,
    offset,
  );
}

/** A page of the organization's directory users (oldest first), and how many match in all. */
export function directoryUserPage(
  reader: Reader,
  organizationId: string,
  condition: Condition<UserAttribute> | undefined,
  offset: number,
  limit: number,
): Promise<{ rows: DirectoryUserRow[]; total: number }> {
  const counted = () =>
    usersOf(reader.sql, organizationId)
      .$if(condition !== undefined, (query) => query.where((eb) => userWhere(eb, condition!)))
      .select((eb) => eb.fn.countAll<number | string>().as('total'));
  return offsetPage(reader, usersPage(reader.sql, organizationId, condition, limit, offset), counted, offset, limit);
}

const userById = prepare((sql, organizationId: string, id: string, now: DbTimestamp) =>
  sql
    .selectFrom('directory_users as u')
    .leftJoin('organization_users as m', (join) => join.on(currentMembershipOfDirectoryUser('m', 'u', now)))
    .selectAll('u')
    .select('m.user_id as member_id')
    .where('u.organization_id', '=', organizationId)
    .where('u.id', '=', id),
);

/**
 * A directory user with `member_id`: their user record while it is a member of the organization.
 * The link (`user_id`) names the record; whether it is a member is read from the membership, which
 * may have ended another way (removed, left, expired: behaviour §18).
 */
export type DirectoryUser = DirectoryUserRow & { member_id: string | null };

export const directoryUser = (reader: ClockedReader, organizationId: string, id: string) =>
  reader.first(userById(reader.sql, organizationId, id, nowFor(reader))) as Promise<DirectoryUser | undefined>;

export function insertDirectoryUser(tx: Tx, organizationId: string, fields: DirectoryUserFields): void {
  const now = tx.timestamp();
  tx.later(
    tx.sql.insertInto('directory_users').values({
      ...fields,
      active: stored(fields.active),
      organization_id: organizationId,
      created_at: now,
      updated_at: now,
    }),
  );
}

/**
 * Queues the update of a directory user's fields, each named: a row read with more (`member_id`,
 * its organization) may be passed as it is.
 */
export function updateDirectoryUser(tx: Tx, fields: DirectoryUserFields): void {
  const { id, user_name, user_name_key, email_key, external_id, given_name, family_name, display_name, emails } =
    fields;
  tx.later(
    tx.sql
      .updateTable('directory_users')
      .set({
        user_name,
        user_name_key,
        email_key,
        external_id,
        given_name,
        family_name,
        display_name,
        emails,
        active: stored(fields.active),
        user_id: fields.user_id,
        updated_at: tx.timestamp(),
      })
      .where('id', '=', id),
  );
}

/**
 * Deletes a directory user, and so their places in groups: each of those groups changed, and its
 * `meta.lastModified` (its team's `updated_at`) moves with it.
 */
export function deleteDirectoryUser(tx: Tx, id: string): void {
  tx.later(
    tx.sql
      .updateTable('teams')
      .set({ updated_at: tx.timestamp() })
      .where('id', 'in', (eb) =>
        eb.selectFrom('directory_group_members').select('team_id').where('directory_user_id', '=', id),
      ),
  );
  tx.later(tx.sql.deleteFrom('directory_users').where('id', '=', id));
}

/** The active directory users, of any organization, whose userName is this e-mail and who have no record yet. */
export const awaitingRecord = (reader: Reader, userNameKey: string) =>
  reader.all(
    reader.sql
      .selectFrom('directory_users')
      .select(['id', 'organization_id'])
      .where('user_name_key', '=', userNameKey)
      .where('active', '=', stored(true))
      .where('user_id', 'is', null),
  );

/** The teams (directory groups) a directory user is in, and whether `userId` is in each already. */
export const groupsOfUser = (reader: Reader, directoryUserId: string, userId: string) =>
  reader.all(
    reader.sql
      .selectFrom('directory_group_members as gm')
      .innerJoin('teams as t', 't.id', 'gm.team_id')
      .leftJoin('team_members as tm', (join) => join.onRef('tm.team_id', '=', 't.id').on('tm.user_id', '=', userId))
      .select(['t.id', 't.name', 'tm.user_id as in_team'])
      .where('gm.directory_user_id', '=', directoryUserId)
      .orderBy('t.created_at')
      .orderBy('t.id'),
  );

export interface DirectoryGroupRow {
  id: string;
  name: string;
  external_id: string | null;
  created_at: DbTimestamp;
  updated_at: DbTimestamp;
}

function groupWhere(
  eb: GroupsExpression,
  condition: Condition<GroupAttribute>,
  nameKey: (name: string) => string,
): ExpressionWrapper<Database, 'directory_groups' | 'teams', SqlBool> {
  if ('all' in condition) return eb.and(condition.all.map((part) => groupWhere(eb, part, nameKey)));
  if ('any' in condition) return eb.or(condition.any.map((part) => groupWhere(eb, part, nameKey)));
  const { attribute, value } = condition;
  if (attribute === 'displayName') return eb('teams.name_key', '=', nameKey(value));
  if (attribute === 'externalId') return eb('directory_groups.external_id', '=', value);
  return eb('teams.id', '=', value);
}

const groupColumns = [
  'teams.id',
  'teams.name',
  'directory_groups.external_id',
  'teams.created_at',
  'teams.updated_at',
] as const;

/** A page of the organization's directory groups (oldest first), and how many match in all. */
export async function directoryGroupPage(
  reader: Reader,
  organizationId: string,
  condition: Condition<GroupAttribute> | undefined,
  nameKey: (name: string) => string,
  offset: number,
  limit: number,
): Promise<{ rows: DirectoryGroupRow[]; total: number }> {
  const matching = reader.sql
    .selectFrom('directory_groups')
    .innerJoin('teams', 'teams.id', 'directory_groups.team_id')
    .where('directory_groups.organization_id', '=', organizationId)
    .$if(condition !== undefined, (query) => query.where((eb) => groupWhere(eb, condition!, nameKey)));
  return offsetPage(
    reader,
    matching.select(groupColumns).orderBy('teams.created_at').orderBy('teams.id').limit(limit).offset(offset),
    () => matching.select((eb) => eb.fn.countAll<number | string>().as('total')),
    offset,
    limit,
  );
}

export const directoryGroup = (reader: Reader, organizationId: string, teamId: string) =>
  reader.first(
    reader.sql
      .selectFrom('directory_groups')
      .innerJoin('teams', 'teams.id', 'directory_groups.team_id')
      .select(groupColumns)
      .where('directory_groups.organization_id', '=', organizationId)
      .where('directory_groups.team_id', '=', teamId),
  );

/** Groups' directory members, each with their userName, the user record they are linked to (if any) and whether it is in the team. */
export const groupMembers = (reader: Reader, teamIds: readonly string[]) =>
  teamIds.length === 0
    ? Promise.resolve([])
    : reader.all(
        reader.sql
          .selectFrom('directory_group_members as gm')
          .innerJoin('directory_users as u', 'u.id', 'gm.directory_user_id')
          .leftJoin('team_members as tm', (join) =>
            join.onRef('tm.team_id', '=', 'gm.team_id').onRef('tm.user_id', '=', 'u.user_id'),
          )
          .select(['gm.team_id', 'u.id', 'u.user_name', 'u.user_id', 'tm.user_id as in_team'])
          .where('gm.team_id', 'in', teamIds)
          .orderBy('u.created_at')
          .orderBy('u.id'),
      );

/**
 * The organization's directory users among these ids, with `member_id` (their user record while it
 * is a member of the organization, as `directoryUser` tells it) and whether it is in the team already.
 */
export const directoryUsersAmong = (tx: Tx, organizationId: string, teamId: string, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : tx.all(
        tx.sql
          .selectFrom('directory_users as u')
          .leftJoin('organization_users as m', (join) =>
            join.on(currentMembershipOfDirectoryUser('m', 'u', tx.timestamp())),
          )
          .leftJoin('team_members as tm', (join) =>
            join.on('tm.team_id', '=', teamId).onRef('tm.user_id', '=', 'm.user_id'),
          )
          .select(['u.id', 'm.user_id as member_id', 'tm.user_id as in_team'])
          .where('u.organization_id', '=', organizationId)
          .where('u.id', 'in', ids),
      );

export function insertDirectoryGroup(tx: Tx, organizationId: string, teamId: string, externalId: string | null): void {
  tx.later(
    tx.sql
      .insertInto('directory_groups')
      .values({ team_id: teamId, organization_id: organizationId, external_id: externalId }),
  );
}

export function updateGroupExternalId(tx: Tx, teamId: string, externalId: string | null): void {
  tx.later(tx.sql.updateTable('directory_groups').set({ external_id: externalId }).where('team_id', '=', teamId));
}

export function insertGroupMembers(tx: Tx, teamId: string, directoryUserIds: readonly string[]): void {
  if (directoryUserIds.length === 0) return;
  tx.later(
    tx.sql
      .insertInto('directory_group_members')
      .values(directoryUserIds.map((id) => ({ team_id: teamId, directory_user_id: id }))),
  );
}

export function deleteGroupMembers(tx: Tx, teamId: string, directoryUserIds: readonly string[]): void {
  if (directoryUserIds.length === 0) return;
  tx.later(
    tx.sql
      .deleteFrom('directory_group_members')
      .where('team_id', '=', teamId)
      .where('directory_user_id', 'in', directoryUserIds),
  );
}

/** The organization's default role for a directory user's new membership, and who has a userName. */
export interface DirectoryDefaults {
  defaultRole: string;
  userNamedId: string | null;
}

/**
 * Queues the read of the organization's default role for a directory user's new membership and of
 * the directory user who has this userName, to go out with the change's next read: `now()` tells
 * them once that read has run, `read()` sends what is queued first if it has not.
 */
export function directoryDefaults(
  tx: Tx,
  organizationId: string,
  userNameKey: string,
): { now(): DirectoryDefaults; read(): Promise<DirectoryDefaults> } {
  let read: DirectoryDefaults | undefined;
  tx.later(
    tx.sql
      .selectFrom('organizations as o')
      .leftJoin('directory_users as u', (join) =>
        join.onRef('u.organization_id', '=', 'o.id').on('u.user_name_key', '=', userNameKey),
      )
      .select(['o.directory_default_role', 'u.id'])
      .where('o.id', '=', organizationId),
    (result) => {
      const row = result.rows[0];
      read = { defaultRole: row?.directory_default_role ?? 'member', userNamedId: row?.id ?? null };
    },
  );
  const now = () => {
    if (!read) throw new Error('The defaults are read with the change’s next read: read before asking for them');
    return read;
  };
  return {
    now,
    read: async () => {
      if (!read) await tx.flush();
      return now();
    },
  };
}
