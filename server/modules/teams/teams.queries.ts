/**
 * The statements of teams (behaviour §12): each builds, queues or runs SQL and returns rows; none
 * decides anything or throws. The rules are teams.service.ts's.
 *
 * team_members rows rest on the membership by a foreign key, so the database itself takes a member
 * who leaves out of every team, and refuses a team member who is not a member. A membership that
 * has expired counts as none (memberships.ts, `unexpired`): its team rows stay until the sweep
 * removes it, but no read counts them.
 */
import type { Role } from '../../../shared/fields.ts';
import { nowFor, unexpired, type ClockedReader } from '../../platform/authorization/memberships.ts';
import { pagedList, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import type { StoredTimestamp } from '../../platform/database/timestamps.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

/** A team's row, with how many current members it has. */
export interface TeamRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  created_at: StoredTimestamp;
  updated_at: StoredTimestamp;
  member_count: number | string | null;
}

/** The team `t` with its current members counted: those whose membership has not expired. */
const teamColumns = (sql: Sql, now: DbTimestamp) =>
  sql.selectFrom('teams as t').select((eb) => [
    't.id',
    't.organization_id',
    't.name',
    't.description',
    't.created_at',
    't.updated_at',
    eb
      .selectFrom('team_members as tm')
      .innerJoin('organization_users as m', (join) =>
        join
          .onRef('m.organization_id', '=', 'tm.organization_id')
          .onRef('m.user_id', '=', 'tm.user_id')
          .on(unexpired('m', now)),
      )
      .select((count) => count.fn.countAll<number | string>().as('members'))
      .whereRef('tm.team_id', '=', 't.id')
      .as('member_count'),
  ]);

/** The roles each of `teamIds` gives, by team. */
export async function rolesOfTeams(reader: Reader, teamIds: readonly string[]): Promise<Map<string, Role[]>> {
  const roles = new Map<string, Role[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return roles;
  const rows = await reader.all(
    reader.sql.selectFrom('team_roles').select(['team_id', 'role']).where('team_id', 'in', teamIds),
  );
  for (const row of rows) roles.get(row.team_id)?.push(row.role);
  return roles;
}

const teamListRows = pagedList(
  (sql: Sql, organizationId: string, now: DbTimestamp) =>
    teamColumns(sql, now).where('t.organization_id', '=', organizationId),
  { createdAt: 't.created_at', id: 't.id' },
);

export const teamRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  teamListRows(reader, reader.dialect, page, organizationId, nowFor(reader));

const oneTeam = prepare((sql, organizationId: string, teamId: string, now: DbTimestamp) =>
  teamColumns(sql, now).where('t.organization_id', '=', organizationId).where('t.id', '=', teamId),
);

export const teamRow = (reader: ClockedReader, organizationId: string, teamId: string) =>
  reader.first(oneTeam(reader.sql, organizationId, teamId, nowFor(reader)));

const teamsOfUser = prepare((sql, userId: string, now: DbTimestamp) =>
  teamColumns(sql, now)
    .innerJoin('team_members as mine', 'mine.team_id', 't.id')
    .innerJoin('organization_users as me', (join) =>
      join
        .onRef('me.organization_id', '=', 'mine.organization_id')
        .onRef('me.user_id', '=', 'mine.user_id')
        .on(unexpired('me', now)),
    )
    .where('mine.user_id', '=', userId)
    .orderBy('t.organization_id')
    .orderBy('t.created_at')
    .orderBy('t.id'),
);

/** The teams of a user in every organization they are a current member of. */
export const teamRowsOfUser = (reader: ClockedReader, userId: string) =>
  reader.all(teamsOfUser(reader.sql, userId, nowFor(reader)));

const teamMemberList = pagedList(
  (sql: Sql, organizationId: string, teamId: string, now: DbTimestamp) =>
    sql
      .selectFrom('team_members as tm')
      .innerJoin('organization_users as m', (join) =>
        join
          .onRef('m.organization_id', '=', 'tm.organization_id')
          .onRef('m.user_id', '=', 'tm.user_id')
          .on(unexpired('m', now)),
      )
      .innerJoin('users as u', 'u.id', 'tm.user_id')
      .select(['u.id as user_id', 'u.first_name', 'u.last_name', 'u.email', 'tm.added_at'])
      .where('tm.team_id', '=', teamId)
      .where('tm.organization_id', '=', organizationId),
  { createdAt: 'tm.added_at', id: 'tm.user_id' },
);

export const teamMemberRows = (reader: ClockedReader, organizationId: string, teamId: string, page: PageRequest) =>
  teamMemberList(reader, reader.dialect, page, organizationId, teamId, nowFor(reader));

const teamExists = prepare((sql, organizationId: string, teamId: string) =>
  sql.selectFrom('teams').select('id').where('organization_id', '=', organizationId).where('id', '=', teamId),
);

export const teamIdOf = (reader: Reader, organizationId: string, teamId: string) =>
  reader.first(teamExists(reader.sql, organizationId, teamId));

/** Whether a team of the organization has this name key, and how many teams it has. */
export const nameAndCount = (tx: Tx, organizationId: string, nameKey: string) =>
  tx.first(
    tx.sql
      .selectFrom('organizations as o')
      .leftJoin('teams as same', (join) =>
        join.onRef('same.organization_id', '=', 'o.id').on('same.name_key', '=', nameKey),
      )
      .select((eb) => [
        'same.id as same_name',
        eb
          .selectFrom('teams as c')
          .select((count) => count.fn.countAll<number | string>().as('teams'))
          .whereRef('c.organization_id', '=', 'o.id')
          .as('team_count'),
      ])
      .where('o.id', '=', organizationId),
  );

/** The team of that name key, if the organization has one. */
export const teamNamed = (tx: Tx, organizationId: string, nameKey: string) =>
  tx.first(
    tx.sql
      .selectFrom('teams')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('name_key', '=', nameKey),
  );

/** A team (null columns: none) with a user's current membership and place in it, if any. */
export const teamAndMember = (tx: Tx, organizationId: string, teamId: string, userId: string) =>
  tx.first(
    tx.sql
      .selectFrom('organizations as o')
      .leftJoin('teams as t', (join) => join.onRef('t.organization_id', '=', 'o.id').on('t.id', '=', teamId))
      .leftJoin('organization_users as m', (join) =>
        join.onRef('m.organization_id', '=', 'o.id').on('m.user_id', '=', userId).on(unexpired('m', tx.timestamp())),
      )
      .leftJoin('team_members as tm', (join) =>
        join
          .onRef('tm.team_id', '=', 't.id')
          .onRef('tm.organization_id', '=', 'm.organization_id')
          .onRef('tm.user_id', '=', 'm.user_id'),
      )
      .select(['t.id as team_id', 't.name as team_name', 'm.role as member_role', 'tm.added_at'])
      .where('o.id', '=', organizationId),
  );

export interface NewTeam {
  id: string;
  organizationId: string;
  name: string;
  nameKey: string;
  description: string;
}

export function insertTeam(tx: Tx, team: NewTeam): void {
  const now = tx.timestamp();
  tx.later(
    tx.sql.insertInto('teams').values({
      id: team.id,
      organization_id: team.organizationId,
      name: team.name,
      name_key: team.nameKey,
      description: team.description,
      created_at: now,
      updated_at: now,
    }),
  );
}

export function updateTeamRow(
  tx: Tx,
  teamId: string,
  changes: { name?: string; nameKey?: string; description?: string },
): void {
  tx.later(
    tx.sql
      .updateTable('teams')
      .set({
        name: changes.name,
        name_key: changes.nameKey,
        description: changes.description,
        updated_at: tx.timestamp(),
      })
      .where('id', '=', teamId),
  );
}

export function deleteTeam(tx: Tx, teamId: string): void {
  tx.later(tx.sql.deleteFrom('teams').where('id', '=', teamId));
}

/**
 * Queues the rows of the roles a team gives, each of the organization's own with a copy of its
 * permissions (entities.ts, TeamRole), read under the lock that every change of a role takes too.
 * With `replace`, the team's roles before are deleted first.
 */
export async function writeTeamRoles(
  tx: Tx,
  organizationId: string,
  teamId: string,
  roles: readonly Role[],
  { replace }: { replace: boolean },
): Promise<void> {
  if (replace) tx.later(tx.sql.deleteFrom('team_roles').where('team_id', '=', teamId));
  if (roles.length === 0) return;
  const own = await tx.all(
    tx.sql
      .selectFrom('organization_roles')
      .select(['name', 'permissions'])
      .where('organization_id', '=', organizationId)
      .where('name', 'in', roles),
  );
  const permissionsOf = new Map(own.map((row) => [row.name, row.permissions]));
  tx.later(
    tx.sql
      .insertInto('team_roles')
      .values(roles.map((role) => ({ team_id: teamId, role, permissions: permissionsOf.get(role) ?? null }))),
  );
}

/**
 * Queues the copy of an organization role's permissions into the rows of the organization's teams
 * that give it (entities.ts, TeamRole): a team may name a role that was an instance role when it
 * was given and is the organization's own now.
 */
export function copyRolePermissionsToTeams(tx: Tx, organizationId: string, role: Role, permissions: string): void {
  tx.later(
    tx.sql
      .updateTable('team_roles')
      .set({ permissions })
      .where('role', '=', role)
      .where('team_id', 'in', (eb) =>
        eb.selectFrom('teams').select('id').where('organization_id', '=', organizationId),
      ),
  );
}

export function insertTeamMember(tx: Tx, teamId: string, organizationId: string, userId: string): void {
  tx.later(
    tx.sql.insertInto('team_members').values({
      team_id: teamId,
      organization_id: organizationId,
      user_id: userId,
      added_at: tx.timestamp(),
    }),
  );
}

export function deleteTeamMember(tx: Tx, teamId: string, organizationId: string, userId: string): void {
  tx.later(
    tx.sql
      .deleteFrom('team_members')
      .where('team_id', '=', teamId)
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId),
  );
}

const teamsOfMember = prepare((sql, organizationId: string, userId: string) =>
  sql
    .selectFrom('team_members as tm')
    .innerJoin('teams as t', 't.id', 'tm.team_id')
    .select(['t.id', 't.name'])
    .where('tm.organization_id', '=', organizationId)
    .where('tm.user_id', '=', userId)
    .orderBy('t.created_at')
    .orderBy('t.id'),
);

/** A team as a removal's events name it. */
interface TeamRef {
  id: string;
  name: string;
}

/**
 * Queues the read of the teams of the organization a user is in, oldest first, to go out with the
 * change's next read (a removal's first round trip); what it returns gives them, sending the read
 * first if nothing has sent it yet.
 */
export function teamsOfMemberIn(tx: Tx, organizationId: string, userId: string): () => Promise<TeamRef[]> {
  let read: TeamRef[] | undefined;
  tx.later(teamsOfMember(tx.sql, organizationId, userId), (result) => {
    read = result.rows;
  });
  return async () => {
    if (!read) await tx.flush();
    return read!;
  };
}

/** How many teams of the organization give `role`. */
export async function teamsGiving(tx: Tx, organizationId: string, role: Role): Promise<number> {
  const row = await tx.first(
    tx.sql
      .selectFrom('teams as t')
      .innerJoin('team_roles as tr', 'tr.team_id', 't.id')
      .select((count) => count.fn.countAll<number | string>().as('teams'))
      .where('t.organization_id', '=', organizationId)
      .where('tr.role', '=', role),
  );
  return Number(row?.teams ?? 0);
}
