/**
 * Directory groups (behaviour §18): what an identity provider's `/Groups` requests do. A group is a
 * team of the organization (behaviour §12) that the directory made; its members are directory
 * users, who are in the team while they are members of the organization. The team's roles, set by
 * people, are what the group grants. A PATCH reads the group's members under the organization's
 * lock and applies its operations to them, so concurrent PATCHes of one group lose no member.
 */
import { MAX_TEAMS } from '../../../shared/teams.ts';
import { newId } from '../../platform/database/ids.ts';
import type { Tx } from '../../platform/database/transaction.ts';
import { conflict } from '../../platform/errors.ts';
import { appendEvent, type OrganizationChange } from '../../platform/organization-changes.ts';
import {
  deleteTeam,
  deleteTeamMember,
  insertTeam,
  insertTeamMember,
  nameAndCount,
  storedTeamNameKey,
  teamNamed,
  updateTeamRow,
} from '../teams/teams.service.ts';
import { attributeNamed } from './attribute-names.ts';
import { groupCondition } from './filter.ts';
import { pageOf, parameter, type ListQuery } from './paging.ts';
import { applyPatch, patchOperations, removalOf, type Operation } from './patch.ts';
import { GROUP_NAMES, groupFields, groupResource, type GroupFields, type GroupMember } from './resources.ts';
import { listResponse } from './schemas.ts';
import { invalidValue, noSuchResource, uniqueness } from './scim-errors.ts';
import type { ScimScope } from './scim-users.service.ts';
import {
  deleteGroupMembers,
  directoryGroup,
  directoryGroupPage,
  directoryUsersAmong,
  groupMembers,
  insertDirectoryGroup,
  insertGroupMembers,
  updateGroupExternalId,
  type DirectoryGroupRow,
} from './scim.queries.ts';

const nameTaken = (name: string) => uniqueness(`The organization has a team named ${name} already (ignoring case)`);

type Team = { id: string; name: string };
/** A directory member of a group: the user record they are linked to (if any), and whether it has a place in the team. */
type Member = { id: string; user_name: string; user_id: string | null; in_team: boolean };

async function membersOf(tx: Tx, teamId: string): Promise<Map<string, Member>> {
  const rows = await groupMembers(tx, [teamId]);
  return new Map(rows.map((row) => [row.id, { ...row, in_team: row.in_team !== null }]));
}

/**
 * Makes the group's members `wanted` (directory user ids): the directory's rows, and the team's for
 * those who are members of the organization, with their events. An id that is no directory user
 * of the organization is 400 invalidValue. Returns whether the group's members changed.
 */
async function setMembers(
  tx: Tx,
  change: OrganizationChange,
  team: Team,
  current: Map<string, Member>,
  wanted: readonly string[],
): Promise<boolean> {
  const added = wanted.filter((id) => !current.has(id));
  const kept = new Set(wanted);
  const removed = [...current.values()].filter((member) => !kept.has(member.id));
  const known = new Map(
    (await directoryUsersAmong(tx, change.organizationId, team.id, added)).map((row) => [row.id, row]),
  );
  const unknown = added.find((id) => !known.has(id));
  if (unknown !== undefined) throw invalidValue(`members: ${unknown} is not a user of this directory`);
  insertGroupMembers(tx, team.id, added);
  deleteGroupMembers(
    tx,
    team.id,
    removed.map((member) => member.id),
  );
  for (const row of known.values()) {
    if (row.member_id === null || row.in_team !== null) continue;
    insertTeamMember(tx, team.id, change.organizationId, row.member_id);
    await appendEvent(tx, change, {
      type: 'team.member_added',
      subjectUserId: row.member_id,
      data: { team_id: team.id, name: team.name, via: 'scim' },
    });
  }
  for (const member of removed) {
    if (member.user_id === null || !member.in_team) continue;
    deleteTeamMember(tx, team.id, change.organizationId, member.user_id);
    await appendEvent(tx, change, {
      type: 'team.member_removed',
      subjectUserId: member.user_id,
      data: { team_id: team.id, name: team.name, via: 'scim' },
    });
  }
  return added.length > 0 || removed.length > 0;
}

async function answer(tx: Tx, row: DirectoryGroupRow, base: string) {
  const members = await groupMembers(tx, [row.id]);
  return groupResource(row, members, base);
}

export async function createGroup({ org, base }: ScimScope, body: unknown) {
  const fields = groupFields(body);
  const nameKey = storedTeamNameKey(fields.displayName);
  try {
    return await org.change(async (tx, change) => {
      const existing = await nameAndCount(tx, org.organizationId, nameKey);
      if (existing?.same_name != null) throw nameTaken(fields.displayName);
      if (Number(existing?.team_count ?? 0) >= MAX_TEAMS) {
        throw conflict(`The organization has ${MAX_TEAMS} teams, the most it may have: delete one first`);
      }
      const team = { id: newId(tx.now.getTime()), name: fields.displayName };
      insertTeam(tx, { ...team, organizationId: org.organizationId, nameKey, description: '' });
      insertDirectoryGroup(tx, org.organizationId, team.id, fields.externalId);
      await appendEvent(tx, change, {
        type: 'team.created',
        subjectUserId: null,
        data: { team_id: team.id, name: team.name, description: '', roles: [], via: 'scim' },
      });
      await setMembers(tx, change, team, new Map(), fields.members);
      const at = tx.timestamp();
      const row = { id: team.id, name: team.name, external_id: fields.externalId, created_at: at, updated_at: at };
      return answer(tx, row, base);
    });
  } catch (error) {
    if (org.isUniqueViolation(error)) throw nameTaken(fields.displayName);
    throw error;
  }
}

export async function getGroup({ org, base }: ScimScope, id: string, withMembers: boolean) {
  const row = await directoryGroup(org.reads, org.organizationId, id.toLowerCase());
  if (!row) throw noSuchResource('Group', id);
  return groupResource(row, withMembers ? await groupMembers(org.reads, [row.id]) : undefined, base);
}

/** Whether `excludedAttributes` names `members` (in any case, with the Group schema's URN or without). */
export const excludesMembers = (query: ListQuery) =>
  (parameter(query, 'excludedAttributes') ?? '')
    .split(',')
    .some((name) => attributeNamed(GROUP_NAMES, name.trim())?.name === 'members');

export async function listGroups({ org, base }: ScimScope, query: ListQuery) {
  const filter = parameter(query, 'filter');
  const condition = filter === undefined ? undefined : groupCondition(filter);
  const withMembers = !excludesMembers(query);
  const { startIndex, offset, count } = pageOf(query);
  const page = await directoryGroupPage(org.reads, org.organizationId, condition, storedTeamNameKey, offset, count);
  const members = withMembers
    ? await groupMembers(
        org.reads,
        page.rows.map((row) => row.id),
      )
    : [];
  const byGroup = new Map<string, GroupMember[]>();
  for (const member of members) byGroup.set(member.team_id, [...(byGroup.get(member.team_id) ?? []), member]);
  return listResponse(
    page.rows.map((row) => groupResource(row, withMembers ? (byGroup.get(row.id) ?? []) : undefined, base)),
    page.total,
    startIndex,
  );
}

/** Changes a group to what `fieldsOf` makes of it (PUT: the body; PATCH: the patched group). */
async function changeGroup(
  { org }: ScimScope,
  id: string,
  fieldsOf: (row: DirectoryGroupRow, members: GroupMember[]) => GroupFields,
) {
  let name = '';
  try {
    return await org.change(async (tx, change) => {
      const row = await directoryGroup(tx, org.organizationId, id.toLowerCase());
      if (!row) throw noSuchResource('Group', id);
      const current = await membersOf(tx, row.id);
      const fields = fieldsOf(row, [...current.values()]);
      name = fields.displayName;
      const renamed = fields.displayName !== row.name;
      const nameKey = storedTeamNameKey(fields.displayName);
      if (renamed) {
        if (nameKey !== storedTeamNameKey(row.name) && (await teamNamed(tx, org.organizationId, nameKey))) {
          throw nameTaken(fields.displayName);
        }
        await appendEvent(tx, change, {
          type: 'team.updated',
          subjectUserId: null,
          data: { team_id: row.id, changes: { name: { from: row.name, to: fields.displayName } }, via: 'scim' },
        });
      }
      const externalIdChanged = fields.externalId !== row.external_id;
      if (externalIdChanged) updateGroupExternalId(tx, row.id, fields.externalId);
      const membersChanged = await setMembers(
        tx,
        change,
        { id: row.id, name: fields.displayName },
        current,
        fields.members,
      );
      const changed = renamed || externalIdChanged || membersChanged;
      // The group's meta.lastModified is its team's updated_at: any change of the group moves it
      // (RFC 7643 §3.1), in this change; one that changes nothing leaves it.
      if (changed) updateTeamRow(tx, row.id, renamed ? { name: fields.displayName, nameKey } : {});
      return {
        ...row,
        name: fields.displayName,
        external_id: fields.externalId,
        updated_at: changed ? tx.timestamp() : row.updated_at,
      };
    });
  } catch (error) {
    if (org.isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

/**
 * Entra ID removes members by a value list (`{"op": "Remove", "path": "members", "value": [{"value":
 * "…"}]}`), which scim-patch would match against whole member objects: each becomes the RFC's
 * `members[value eq "…"]`.
 */
const removalsByValue = (operations: Operation[]): Operation[] =>
  operations.flatMap((operation) =>
    operation.op === 'remove' && operation.path === 'members' && Array.isArray(operation.value)
      ? (operation.value as Array<{ value?: unknown }>).map((member) =>
          removalOf('members', 'value', String(member?.value)),
        )
      : [operation],
  );

export async function replaceGroup(scope: ScimScope, id: string, body: unknown) {
  const fields = groupFields(body);
  const row = await changeGroup(scope, id, () => fields);
  return getGroup(scope, row.id, true);
}

/** PATCH: answered 204, as Okta and Entra ID accept, so a large group is not sent back for each change. */
export async function patchGroup(scope: ScimScope, id: string, body: unknown): Promise<void> {
  const operations = removalsByValue(patchOperations(body, GROUP_NAMES));
  await changeGroup(scope, id, (row, members) =>
    groupFields(applyPatch(groupResource(row, members, scope.base), operations)),
  );
}

export async function deleteGroup({ org }: ScimScope, id: string): Promise<void> {
  await org.change(async (tx, change) => {
    const row = await directoryGroup(tx, org.organizationId, id.toLowerCase());
    if (!row) throw noSuchResource('Group', id);
    deleteTeam(tx, row.id);
    await appendEvent(tx, change, {
      type: 'team.deleted',
      subjectUserId: null,
      data: { team_id: row.id, name: row.name, via: 'scim' },
    });
  });
}
