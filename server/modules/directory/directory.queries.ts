/**
 * The statements of the directory's settings and overview (behaviour §18): SQL only, no rules,
 * nothing thrown. What SCIM writes is in scim/scim.queries.ts.
 */
import {
  currentMembershipOfDirectoryUser,
  nowFor,
  type ClockedReader,
} from '../../platform/authorization/memberships.ts';
import { pagedList, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

const defaultRoleOf = prepare((sql, organizationId: string) =>
  sql.selectFrom('organizations').select('directory_default_role').where('id', '=', organizationId),
);

/** The organization's directory default role; undefined when there is no such organization. */
export const directoryDefaultRole = async (reader: Reader, organizationId: string) =>
  (await reader.first(defaultRoleOf(reader.sql, organizationId)))?.directory_default_role;

export function setDirectoryDefaultRole(tx: Tx, organizationId: string, role: string): void {
  tx.later(tx.sql.updateTable('organizations').set({ directory_default_role: role }).where('id', '=', organizationId));
}

const userCounts = prepare((sql, organizationId: string) =>
  sql
    .selectFrom('directory_users')
    .select(['active', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('organization_id', '=', organizationId)
    .groupBy('active'),
);

/** How many directory users are active and how many are not. */
export async function directoryUserCounts(
  reader: Reader,
  organizationId: string,
): Promise<{ active: number; inactive: number }> {
  const rows = await reader.all(userCounts(reader.sql, organizationId));
  const counted = (active: boolean) => Number(rows.find((row) => Boolean(row.active) === active)?.count ?? 0);
  return { active: counted(true), inactive: counted(false) };
}

const groupCount = prepare((sql, organizationId: string) =>
  sql
    .selectFrom('directory_groups')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('organization_id', '=', organizationId),
);

export const directoryGroupCount = async (reader: Reader, organizationId: string) =>
  Number((await reader.first(groupCount(reader.sql, organizationId)))?.count ?? 0);

const userList = pagedList(
  (sql: Sql, organizationId: string, now: DbTimestamp) =>
    sql
      .selectFrom('directory_users as u')
      .leftJoin('organization_users as m', (join) => join.on(currentMembershipOfDirectoryUser('m', 'u', now)))
      .select([
        'u.id',
        'u.user_name',
        'u.display_name',
        'u.active',
        'u.user_id',
        'm.user_id as member_id',
        'u.created_at',
      ])
      .where('u.organization_id', '=', organizationId),
  { createdAt: 'u.created_at', id: 'u.id' },
);

/**
 * The organization's directory users, oldest first, each with `member_id`: their user record while
 * it is a member, read from the membership, which may have ended another way than the directory's.
 */
export const directoryUserRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  userList(reader, reader.dialect, page, organizationId, nowFor(reader));

const groupList = pagedList(
  (sql: Sql, organizationId: string) =>
    sql
      .selectFrom('directory_groups as g')
      .innerJoin('teams as t', 't.id', 'g.team_id')
      .select((eb) => [
        't.id',
        't.name',
        't.created_at',
        eb
          .selectFrom('directory_group_members as gm')
          .select(eb.fn.countAll<number | string>().as('count'))
          .whereRef('gm.team_id', '=', 't.id')
          .as('member_count'),
      ])
      .where('g.organization_id', '=', organizationId),
  { createdAt: 't.created_at', id: 't.id' },
);

/** The organization's directory groups (their teams), oldest first, with how many directory users each has. */
export const directoryGroupRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  groupList(reader, reader.dialect, page, organizationId);
