/**
 * An organization's teams (behaviour §12). Every change takes the organization first
 * (organization-changes.ts), as membership and role changes do, and reads what it decides on under
 * that lock: two creations of one name, or a removal from the organization and an addition to one
 * of its teams, run one after the other. team_members rows rest on the membership by a foreign key,
 * so the database itself takes a member who leaves out of every team, and refuses a team member
 * who is not a member.
 *
 * A membership that has expired counts as none (access.ts, `unexpired`): its team rows stay until
 * the sweep removes it, but no read counts them.
 */
import type { z } from 'zod';
import type { EventData } from '../../../shared/events.ts';
import type { Role } from '../../../shared/fields.ts';
import {
  MAX_TEAMS,
  type createTeamInput,
  type TeamMemberView,
  type TeamView,
  type updateTeamInput,
} from '../../../shared/teams.ts';
import {
  assertHoldsAll,
  assertMay,
  assertMayAndGetHeld,
  assertMayGive,
  assertMember,
  notInOrganization,
  nowFor,
  permissionsOfRole,
  unexpired,
  type ClockedReader,
  type OrganizationActor,
} from '../../platform/access.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { sameList } from '../../platform/same-list.ts';
import {
  appendEvent,
  changeOrganization,
  organizationWithActor,
  type OrganizationChange,
} from '../../platform/organization-changes.ts';
import { newId } from '../../platform/database/ids.ts';
import { pagedList, toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import { isoTimestamp, type StoredTimestamp } from '../../platform/database/timestamps.ts';
import type { Db, Reader, Tx } from '../../platform/database/transaction.ts';
import { storedTeamNameKey } from './name-key.ts';

const noSuchTeam = () => notFound('The organization has no such team');
const nameInUse = (name: string) => conflict(`The organization has a team named ${name} already (ignoring case)`);

/** A team's row, with how many current members it has. */
interface TeamRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  created_at: StoredTimestamp;
  updated_at: StoredTimestamp;
  member_count: number | string | null;
}

const teamView = (row: TeamRow, roles: readonly Role[]): TeamView => ({
  team_id: row.id,
  organization_id: row.organization_id,
  name: row.name,
  description: row.description,
  roles: [...roles].sort(),
  member_count: Number(row.member_count),
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

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
async function rolesOfTeams(reader: Reader, teamIds: readonly string[]): Promise<Map<string, Role[]>> {
  const roles = new Map<string, Role[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return roles;
  const rows = await reader.all(
    reader.sql.selectFrom('team_roles').select(['team_id', 'role']).where('team_id', 'in', teamIds),
  );
  for (const row of rows) roles.get(row.team_id)?.push(row.role);
  return roles;
}

/** Rows of teams as the API shows them, with their roles (one more query for all of them). */
async function teamViews(reader: Reader, rows: readonly TeamRow[]): Promise<TeamView[]> {
  const roles = await rolesOfTeams(
    reader,
    rows.map((row) => row.id),
  );
  return rows.map((row) => teamView(row, roles.get(row.id) ?? []));
}

const teamListRows = pagedList(
  (sql: Sql, organizationId: string, now: DbTimestamp) =>
    teamColumns(sql, now).where('t.organization_id', '=', organizationId),
  { createdAt: 't.created_at', id: 't.id' },
);

/** The organization's teams, oldest first: one page or all of them (the caller's access is checked first). */
export async function listTeams(db: Db, actor: OrganizationActor, page: PageRequest = {}): Promise<Page<TeamView>> {
  const rows = await teamListRows(db, db.dialect, page, actor.organizationId, nowFor(db));
  const { items, nextCursor } = toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.id }),
    (row) => row,
  );
  return { items: await teamViews(db, items), nextCursor };
}

const oneTeam = prepare((sql, organizationId: string, teamId: string, now: DbTimestamp) =>
  teamColumns(sql, now).where('t.organization_id', '=', organizationId).where('t.id', '=', teamId),
);

/** One team of the organization, or 404. */
export async function getTeam(reader: ClockedReader, actor: OrganizationActor, teamId: string): Promise<TeamView> {
  const row = await reader.first(oneTeam(reader.sql, actor.organizationId, teamId, nowFor(reader)));
  if (!row) throw noSuchTeam();
  const [view] = await teamViews(reader, [row]);
  return view!;
}

const myTeamRows = prepare((sql, userId: string, now: DbTimestamp) =>
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

/** The caller's teams in every organization they are a current member of, by organization, oldest first. */
export async function listMyTeams(reader: ClockedReader, userId: string): Promise<TeamView[]> {
  return teamViews(reader, await reader.all(myTeamRows(reader.sql, userId, nowFor(reader))));
}

const teamMemberRows = pagedList(
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

const teamExists = prepare((sql, organizationId: string, teamId: string) =>
  sql.selectFrom('teams').select('id').where('organization_id', '=', organizationId).where('id', '=', teamId),
);

/**
 * A team's current members, by when they joined it, then user id: one page or all. An empty page
 * is told from a team that does not exist (404) by one more read.
 */
export async function listTeamMembers(
  db: Db,
  actor: OrganizationActor,
  teamId: string,
  page: PageRequest = {},
): Promise<Page<TeamMemberView>> {
  const rows = await teamMemberRows(db, db.dialect, page, actor.organizationId, teamId, nowFor(db));
  if (rows.length === 0 && !(await db.first(teamExists(db.sql, actor.organizationId, teamId)))) throw noSuchTeam();
  return toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.added_at, id: row.user_id }),
    (row): TeamMemberView => ({
      user_id: row.user_id,
      first_name: row.first_name,
      last_name: row.last_name,
      email: row.email,
      added_at: isoTimestamp(row.added_at),
    }),
  );
}

/**
 * The roles a team is to give: each one the organization has (400 on `roles.N`) and none holding a
 * permission the actor lacks (403): no one grants what they do not hold (behaviour §11).
 */
async function assertMayGiveAll(tx: Tx, actor: OrganizationActor, held: ReadonlySet<string>, roles: readonly Role[]) {
  for (const [index, role] of roles.entries()) await assertMayGive(tx, actor, held, role, `roles.${index}`);
}

/**
 * Queues the rows of the roles a team gives, each of the organization's own with a copy of its
 * permissions (entities.ts, TeamRole), read under the lock that every change of a role takes too.
 */
async function insertRoles(tx: Tx, organizationId: string, teamId: string, roles: readonly Role[]): Promise<void> {
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
 * Creates a team. Its name must be free in the organization, ignoring case (409), the organization
 * may have at most MAX_TEAMS (409), and the actor must be able to give each of its roles.
 */
export async function createTeam(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof createTeamInput>,
): Promise<TeamView> {
  const nameKey = storedTeamNameKey(input.name);
  try {
    return await changeOrganization(db, actor, async (tx, change) => {
      const row = await tx.first(
        organizationWithActor(tx, actor)
          .leftJoin('teams as same', (join) =>
            join.onRef('same.organization_id', '=', 'o.id').on('same.name_key', '=', nameKey),
          )
          .select((eb) => [
            'a.role as actor_role',
            'same.id as same_name',
            eb
              .selectFrom('teams as c')
              .select((count) => count.fn.countAll<number | string>().as('teams'))
              .whereRef('c.organization_id', '=', 'o.id')
              .as('team_count'),
          ]),
      );
      if (!row) throw notInOrganization();
      const held = await assertMayAndGetHeld(tx, actor, row.actor_role);
      await assertMayGiveAll(tx, actor, held, input.roles);
      if (row.same_name !== null) throw nameInUse(input.name);
      if (Number(row.team_count) >= MAX_TEAMS) {
        throw conflict(`The organization has ${MAX_TEAMS} teams, the most it may have: delete one first`);
      }
      const teamId = newId(tx.now.getTime());
      const now = tx.timestamp();
      tx.later(
        tx.sql.insertInto('teams').values({
          id: teamId,
          organization_id: actor.organizationId,
          name: input.name,
          name_key: nameKey,
          description: input.description,
          created_at: now,
          updated_at: now,
        }),
      );
      await insertRoles(tx, actor.organizationId, teamId, input.roles);
      const roles = [...input.roles].sort();
      await appendEvent(tx, change, {
        type: 'team.created',
        actorUserId: actor.userId,
        subjectUserId: null,
        data: { team_id: teamId, name: input.name, description: input.description, roles },
      });
      const at = tx.now.toISOString();
      return {
        team_id: teamId,
        organization_id: actor.organizationId,
        name: input.name,
        description: input.description,
        roles,
        member_count: 0,
        created_at: at,
        updated_at: at,
      };
    });
  } catch (error) {
    // Defence in depth: the organization's lock already keeps two creations of one name apart.
    if (db.isUniqueViolation(error)) throw nameInUse(input.name);
    throw error;
  }
}

/** The actor's role and the team, read under the organization's lock for a change (404: no such team). */
async function teamForChange(tx: Tx, actor: OrganizationActor, teamId: string) {
  const row = await tx.first(
    organizationWithActor(tx, actor)
      .leftJoin('teams as t', (join) => join.onRef('t.organization_id', '=', 'o.id').on('t.id', '=', teamId))
      .select(['a.role as actor_role', 't.id', 't.name']),
  );
  if (!row) throw notInOrganization();
  return row;
}

type TeamChanges = EventData['team.updated']['changes'];

/**
 * Changes a team's name, description and/or roles. Given roles replace the team's, and the actor
 * must be able to give every one of them. A request that changes nothing records no event and
 * leaves `updated_at` as it was.
 */
export async function updateTeam(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof updateTeamInput>,
): Promise<TeamView> {
  try {
    return await changeOrganization(db, actor, async (tx, change) => {
      const row = await teamForChange(tx, actor, input.team_id);
      const held = await assertMayAndGetHeld(tx, actor, row.actor_role);
      if (row.id === null) throw noSuchTeam();
      if (input.roles) await assertMayGiveAll(tx, actor, held, input.roles);
      const before = await getTeam(tx, actor, row.id);
      const changes: TeamChanges = {};
      if (input.name !== undefined && input.name !== before.name) {
        const nameKey = storedTeamNameKey(input.name);
        if (nameKey !== storedTeamNameKey(before.name) && (await nameTaken(tx, actor.organizationId, nameKey))) {
          throw nameInUse(input.name);
        }
        changes.name = { from: before.name, to: input.name };
      }
      if (input.description !== undefined && input.description !== before.description) {
        changes.description = { from: before.description, to: input.description };
      }
      const roles = input.roles ? [...input.roles].sort() : before.roles;
      if (!sameList(roles, before.roles)) changes.roles = { from: before.roles, to: roles };
      if (!changes.name && !changes.description && !changes.roles) return before;
      tx.later(
        tx.sql
          .updateTable('teams')
          .set({
            name: changes.name?.to,
            name_key: changes.name && storedTeamNameKey(changes.name.to),
            description: changes.description?.to,
            updated_at: tx.timestamp(),
          })
          .where('id', '=', before.team_id),
      );
      if (changes.roles) {
        tx.later(tx.sql.deleteFrom('team_roles').where('team_id', '=', before.team_id));
        await insertRoles(tx, actor.organizationId, before.team_id, roles);
      }
      await appendEvent(tx, change, {
        type: 'team.updated',
        actorUserId: actor.userId,
        subjectUserId: null,
        data: { team_id: before.team_id, changes },
      });
      return {
        ...before,
        name: changes.name?.to ?? before.name,
        description: changes.description?.to ?? before.description,
        roles,
        updated_at: tx.now.toISOString(),
      };
    });
  } catch (error) {
    if (db.isUniqueViolation(error) && input.name !== undefined) throw nameInUse(input.name);
    throw error;
  }
}

async function nameTaken(tx: Tx, organizationId: string, nameKey: string): Promise<boolean> {
  const row = await tx.first(
    tx.sql
      .selectFrom('teams')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('name_key', '=', nameKey),
  );
  return row !== undefined;
}

/** Deletes a team, its roles and its memberships (their foreign keys). Taking power away needs no more than teams:manage. */
export async function removeTeam(db: Db, actor: OrganizationActor, teamId: string): Promise<{ message: string }> {
  return changeOrganization(db, actor, async (tx, change) => {
    const row = await teamForChange(tx, actor, teamId);
    await assertMay(tx, actor, row.actor_role);
    if (row.id === null || row.name === null) throw noSuchTeam();
    tx.later(tx.sql.deleteFrom('teams').where('id', '=', row.id));
    await appendEvent(tx, change, {
      type: 'team.deleted',
      actorUserId: actor.userId,
      subjectUserId: null,
      data: { team_id: row.id, name: row.name },
    });
    return { message: 'Team deleted' };
  });
}

/**
 * What adding `userId` to the team decides on, under the organization's lock: the actor's role, the
 * team, the user's current membership, and whether they are in the team already.
 */
async function teamAndMember(tx: Tx, actor: OrganizationActor, teamId: string, userId: string) {
  const now = tx.timestamp();
  const row = await tx.first(
    organizationWithActor(tx, actor)
      .leftJoin('teams as t', (join) => join.onRef('t.organization_id', '=', 'o.id').on('t.id', '=', teamId))
      .leftJoin('organization_users as m', (join) =>
        join.onRef('m.organization_id', '=', 'o.id').on('m.user_id', '=', userId).on(unexpired('m', now)),
      )
      .leftJoin('team_members as tm', (join) =>
        join
          .onRef('tm.team_id', '=', 't.id')
          .onRef('tm.organization_id', '=', 'm.organization_id')
          .onRef('tm.user_id', '=', 'm.user_id'),
      )
      .select([
        'a.role as actor_role',
        't.id as team_id',
        't.name as team_name',
        'm.role as member_role',
        'tm.added_at',
      ]),
  );
  if (!row) throw notInOrganization();
  return row;
}

/**
 * Adds a member of the organization to a team. Joining a team gives its roles, so the actor must
 * hold every permission they give (behaviour §11), whoever joins, the actor included.
 */
export async function addTeamMember(
  db: Db,
  actor: OrganizationActor,
  teamId: string,
  userId: string,
): Promise<{ team_id: string; user_id: string; added_at: string }> {
  try {
    return await changeOrganization(db, actor, async (tx, change) => {
      const row = await teamAndMember(tx, actor, teamId, userId);
      const held = await assertMayAndGetHeld(tx, actor, row.actor_role);
      if (row.team_id === null || row.team_name === null) throw noSuchTeam();
      if (row.member_role === null) throw notFound('The user is not a member of this organization');
      if (row.added_at !== null) throw alreadyInTeam();
      for (const role of (await rolesOfTeams(tx, [row.team_id])).get(row.team_id) ?? []) {
        const given = await permissionsOfRole(tx, actor, role);
        if (given) assertHoldsAll(held, given, `give the role ${role} (through the team ${row.team_name})`);
      }
      tx.later(
        tx.sql.insertInto('team_members').values({
          team_id: row.team_id,
          organization_id: actor.organizationId,
          user_id: userId,
          added_at: tx.timestamp(),
        }),
      );
      await appendEvent(tx, change, {
        type: 'team.member_added',
        actorUserId: actor.userId,
        subjectUserId: userId,
        data: { team_id: row.team_id, name: row.team_name },
      });
      return { team_id: row.team_id, user_id: userId, added_at: tx.now.toISOString() };
    });
  } catch (error) {
    if (db.isUniqueViolation(error)) throw alreadyInTeam();
    throw error;
  }
}

const alreadyInTeam = () => conflict('The user is in this team already');

/** Takes a member out of a team: with teams:manage, or the member themselves, who needs nothing more. */
export async function removeTeamMember(
  db: Db,
  actor: OrganizationActor,
  teamId: string,
  userId: string,
): Promise<{ message: string }> {
  return changeOrganization(db, actor, async (tx, change) => {
    const row = await teamAndMember(tx, actor, teamId, userId);
    assertMember(row.actor_role);
    if (userId !== actor.userId) await assertMay(tx, actor, row.actor_role);
    if (row.team_id === null || row.team_name === null) throw noSuchTeam();
    if (row.added_at === null) throw notFound('The user is not in this team');
    tx.later(
      tx.sql
        .deleteFrom('team_members')
        .where('team_id', '=', row.team_id)
        .where('organization_id', '=', actor.organizationId)
        .where('user_id', '=', userId),
    );
    await appendEvent(tx, change, {
      type: 'team.member_removed',
      actorUserId: actor.userId,
      subjectUserId: userId,
      data: { team_id: row.team_id, name: row.team_name },
    });
    return { message: 'Removed from the team' };
  });
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

/**
 * Records `team.member_removed` for each team of the organization `userId` is in, in a change that
 * removes their membership (leaving, removal, expiry): the membership's foreign key takes the team
 * rows with it (behaviour §12).
 */
export async function recordLeavingTeams(
  tx: Tx,
  change: OrganizationChange,
  actorUserId: string,
  userId: string,
): Promise<void> {
  const teams = await tx.all(teamsOfMember(tx.sql, change.organizationId, userId));
  for (const team of teams) {
    await appendEvent(tx, change, {
      type: 'team.member_removed',
      actorUserId,
      subjectUserId: userId,
      data: { team_id: team.id, name: team.name },
    });
  }
}
