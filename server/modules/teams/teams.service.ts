/**
 * An organization's teams (behaviour §12): the rules, the events and their order, over the
 * statements of teams.queries.ts. Every change is the organization's (in-organization.ts): two
 * creations of one name, or a removal from the organization and an addition to one of its teams,
 * run one after the other. Giving a team roles, or a member a team, follows the no-escalation rule
 * (behaviour §11).
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
import type { Holds } from '../../platform/authorization/holdings.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import type { ClockedReader } from '../../platform/authorization/memberships.ts';
import { assertHoldsAll, assertMayGive, permissionsOfRole } from '../../platform/authorization/rules.ts';
import { newId } from '../../platform/database/ids.ts';
import { toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { appendEvent, type OrganizationChange } from '../../platform/organization-changes.ts';
import { sameList } from '../../platform/same-list.ts';
import { storedTeamNameKey } from './name-key.ts';
import {
  deleteTeam,
  deleteTeamMember,
  insertTeam,
  insertTeamMember,
  nameAndCount,
  rolesOfTeams,
  teamAndMember,
  teamIdOf,
  teamMemberRows,
  teamNamed,
  teamRow,
  teamRows,
  teamRowsOfUser,
  teamsOfMemberIn,
  updateTeamRow,
  writeTeamRoles,
  type TeamRow,
} from './teams.queries.ts';

const noSuchTeam = () => notFound('The organization has no such team');
const nameInUse = (name: string) => conflict(`The organization has a team named ${name} already (ignoring case)`);
const alreadyInTeam = () => conflict('The user is in this team already');

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

/** Rows of teams as the API shows them, with their roles (one more read for all of them). */
async function teamViews(reader: Reader, rows: readonly TeamRow[]): Promise<TeamView[]> {
  const roles = await rolesOfTeams(
    reader,
    rows.map((row) => row.id),
  );
  return rows.map((row) => teamView(row, roles.get(row.id) ?? []));
}

/** The organization's teams, oldest first: one page or all of them. */
export async function listTeams(org: InOrganization, page: PageRequest = {}): Promise<Page<TeamView>> {
  const rows = await teamRows(org.reads, org.organizationId, page);
  const { items, nextCursor } = toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.id }),
    (row) => row,
  );
  return { items: await teamViews(org.reads, items), nextCursor };
}

async function readTeam(reader: ClockedReader, organizationId: string, teamId: string): Promise<TeamView> {
  const row = await teamRow(reader, organizationId, teamId);
  if (!row) throw noSuchTeam();
  const [view] = await teamViews(reader, [row]);
  return view!;
}

/** One team of the organization, or 404. */
export const getTeam = (org: InOrganization, teamId: string): Promise<TeamView> =>
  readTeam(org.reads, org.organizationId, teamId);

/** The caller's teams in every organization they are a current member of, by organization, oldest first. */
export async function listMyTeams(reader: ClockedReader, userId: string): Promise<TeamView[]> {
  return teamViews(reader, await teamRowsOfUser(reader, userId));
}

/**
 * A team's current members, by when they joined it, then user id: one page or all. An empty page
 * is told from a team that does not exist (404) by one more read.
 */
export async function listTeamMembers(
  org: InOrganization,
  teamId: string,
  page: PageRequest = {},
): Promise<Page<TeamMemberView>> {
  const rows = await teamMemberRows(org.reads, org.organizationId, teamId, page);
  if (rows.length === 0 && !(await teamIdOf(org.reads, org.organizationId, teamId))) throw noSuchTeam();
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
async function assertMayGiveAll(tx: Tx, org: InOrganization, held: Holds, roles: readonly Role[]) {
  for (const [index, role] of roles.entries()) await assertMayGive(tx, org.access, held, role, `roles.${index}`);
}

/**
 * Creates a team. Its name must be free in the organization, ignoring case (409), the organization
 * may have at most MAX_TEAMS (409), and the actor must be able to give each of its roles.
 */
export async function createTeam(org: InOrganization, input: z.infer<typeof createTeamInput>): Promise<TeamView> {
  const nameKey = storedTeamNameKey(input.name);
  try {
    return await org.change(async (tx, change) => {
      const row = await nameAndCount(tx, org.organizationId, nameKey);
      await assertMayGiveAll(tx, org, await change.held(), input.roles);
      if (row?.same_name != null) throw nameInUse(input.name);
      if (Number(row?.team_count ?? 0) >= MAX_TEAMS) {
        throw conflict(`The organization has ${MAX_TEAMS} teams, the most it may have: delete one first`);
      }
      const teamId = newId(tx.now.getTime());
      insertTeam(tx, {
        id: teamId,
        organizationId: org.organizationId,
        name: input.name,
        nameKey,
        description: input.description,
      });
      await writeTeamRoles(tx, org.organizationId, teamId, input.roles, { replace: false });
      const roles = [...input.roles].sort();
      await appendEvent(tx, change, {
        type: 'team.created',
        subjectUserId: null,
        data: { team_id: teamId, name: input.name, description: input.description, roles },
      });
      const at = tx.now.toISOString();
      return {
        team_id: teamId,
        organization_id: org.organizationId,
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
    if (org.isUniqueViolation(error)) throw nameInUse(input.name);
    throw error;
  }
}

type TeamChanges = EventData['team.updated']['changes'];

/**
 * Changes a team's name, description and/or roles. Given roles replace the team's, and the actor
 * must be able to give every one of them. A request that changes nothing records no event and
 * leaves `updated_at` as it was.
 */
export async function updateTeam(org: InOrganization, input: z.infer<typeof updateTeamInput>): Promise<TeamView> {
  try {
    return await org.change(async (tx, change) => {
      const row = await teamRow(tx, org.organizationId, input.team_id);
      const held = await change.held();
      if (!row) throw noSuchTeam();
      if (input.roles) await assertMayGiveAll(tx, org, held, input.roles);
      const [before] = await teamViews(tx, [row]);
      const changes: TeamChanges = {};
      if (input.name !== undefined && input.name !== before!.name) {
        const nameKey = storedTeamNameKey(input.name);
        if (nameKey !== storedTeamNameKey(before!.name) && (await teamNamed(tx, org.organizationId, nameKey))) {
          throw nameInUse(input.name);
        }
        changes.name = { from: before!.name, to: input.name };
      }
      if (input.description !== undefined && input.description !== before!.description) {
        changes.description = { from: before!.description, to: input.description };
      }
      const roles = input.roles ? [...input.roles].sort() : before!.roles;
      if (!sameList(roles, before!.roles)) changes.roles = { from: before!.roles, to: roles };
      if (!changes.name && !changes.description && !changes.roles) return before!;
      updateTeamRow(tx, row.id, {
        name: changes.name?.to,
        nameKey: changes.name && storedTeamNameKey(changes.name.to),
        description: changes.description?.to,
      });
      if (changes.roles) await writeTeamRoles(tx, org.organizationId, row.id, roles, { replace: true });
      await appendEvent(tx, change, {
        type: 'team.updated',
        subjectUserId: null,
        data: { team_id: row.id, changes },
      });
      return {
        ...before!,
        name: changes.name?.to ?? before!.name,
        description: changes.description?.to ?? before!.description,
        roles,
        updated_at: tx.now.toISOString(),
      };
    });
  } catch (error) {
    if (org.isUniqueViolation(error) && input.name !== undefined) throw nameInUse(input.name);
    throw error;
  }
}

/** Deletes a team, its roles and its memberships (their foreign keys). Taking power away needs no more than teams:manage. */
export async function removeTeam(org: InOrganization, teamId: string): Promise<{ message: string }> {
  return org.change(async (tx, change) => {
    const row = await teamRow(tx, org.organizationId, teamId);
    if (!row) throw noSuchTeam();
    deleteTeam(tx, row.id);
    await appendEvent(tx, change, {
      type: 'team.deleted',
      subjectUserId: null,
      data: { team_id: row.id, name: row.name },
    });
    return { message: 'Team deleted' };
  });
}

/**
 * Adds a member of the organization to a team. Joining a team gives its roles, so the actor must
 * hold every permission they give (behaviour §11), whoever joins, the actor included.
 */
export async function addTeamMember(
  org: InOrganization,
  teamId: string,
  userId: string,
): Promise<{ team_id: string; user_id: string; added_at: string }> {
  try {
    return await org.change(async (tx, change) => {
      const row = await teamAndMember(tx, org.organizationId, teamId, userId);
      const held = await change.held();
      if (!row || row.team_id === null || row.team_name === null) throw noSuchTeam();
      if (row.member_role === null) throw notFound('The user is not a member of this organization');
      if (row.added_at !== null) throw alreadyInTeam();
      for (const role of (await rolesOfTeams(tx, [row.team_id])).get(row.team_id) ?? []) {
        const given = await permissionsOfRole(tx, org.access, role);
        if (given) assertHoldsAll(held, given, `give the role ${role} (through the team ${row.team_name})`);
      }
      insertTeamMember(tx, row.team_id, org.organizationId, userId);
      await appendEvent(tx, change, {
        type: 'team.member_added',
        subjectUserId: userId,
        data: { team_id: row.team_id, name: row.team_name },
      });
      return { team_id: row.team_id, user_id: userId, added_at: tx.now.toISOString() };
    });
  } catch (error) {
    if (org.isUniqueViolation(error)) throw alreadyInTeam();
    throw error;
  }
}

/**
 * Takes a member out of a team: with teams:manage, or the member themselves (the operation declares
 * it, `orSelf`), who needs nothing more.
 */
export async function removeTeamMember(
  org: InOrganization,
  teamId: string,
  userId: string,
): Promise<{ message: string }> {
  return org.change(async (tx, change) => {
    const row = await teamAndMember(tx, org.organizationId, teamId, userId);
    if (!row || row.team_id === null || row.team_name === null) throw noSuchTeam();
    if (row.added_at === null) throw notFound('The user is not in this team');
    deleteTeamMember(tx, row.team_id, org.organizationId, userId);
    await appendEvent(tx, change, {
      type: 'team.member_removed',
      subjectUserId: userId,
      data: { team_id: row.team_id, name: row.team_name },
    });
    return { message: 'Removed from the team' };
  });
}

/**
 * The hook of a change that removes a membership (leaving, removal, expiry): queues the read of the
 * teams of the organization `userId` is in (with the change's next read); the function it returns
 * records `team.member_removed` for each, as the change's actor's unless `actorUserId` names another
 * (an expiry, the member's own). The membership's foreign key takes the team rows with it
 * (behaviour §12).
 */
export function recordLeavingTeams(
  tx: Tx,
  change: OrganizationChange,
  userId: string,
  actorUserId?: string,
): () => Promise<void> {
  const teams = teamsOfMemberIn(tx, change.organizationId, userId);
  return async () => {
    for (const team of await teams()) {
      await appendEvent(tx, change, {
        type: 'team.member_removed',
        ...(actorUserId !== undefined && { actorUserId }),
        subjectUserId: userId,
        data: { team_id: team.id, name: team.name },
      });
    }
  };
}

/** For the roles domain: how many teams give a role, and the hook of a change of its permissions. */
export { copyRolePermissionsToTeams, teamsGiving } from './teams.queries.ts';
