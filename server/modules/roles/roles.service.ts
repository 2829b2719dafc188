/**
 * An organization's roles (behaviour §11): the built-in and instance roles of the catalogue, which
 * every organization has and none may change, and the organization's own (roles.queries.ts). Every
 * change is the organization's (in-organization.ts), like every membership and invitation change:
 * giving a role (assertMayGive) and deleting it run one after the other, so no member is ever left
 * holding a role that no longer exists.
 */
import type { z } from 'zod';
import type { EventData } from '../../../shared/events.ts';
import type { Role } from '../../../shared/fields.ts';
import {
  MAX_ORGANIZATION_ROLES,
  type createRoleInput,
  type RoleView,
  type updateRoleInput,
} from '../../../shared/roles.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { assertHoldsAll } from '../../platform/authorization/rules.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import type { Tx } from '../../platform/database/transaction.ts';
import { badRequest, conflict, notFound } from '../../platform/errors.ts';
import { appendEvent } from '../../platform/organization-changes.ts';
import type { RoleCatalogue, RoleDefinition } from '../../platform/role-catalogue.ts';
import { sameList } from '../../platform/same-list.ts';
import { liveKeysWithRole } from '../api-keys/api-keys.service.ts';
import { directoryGives } from '../directory/directory.service.ts';
import { openInvitationsWithRole } from '../invitations/invitations.service.ts';
import { membersWithRole } from '../members/members.service.ts';
import { copyRolePermissionsToTeams, teamsGiving } from '../teams/teams.service.ts';
import {
  deleteRole,
  insertRole,
  organizationRoleRow,
  organizationRoleRows,
  roleNameAndCount,
  updateRoleRow,
  type StoredRole,
} from './roles.queries.ts';

const fixedRoleView = ({ role, description, permissions, kind }: RoleDefinition): RoleView => ({
  role,
  description,
  permissions: [...permissions].sort(),
  kind,
  created_at: null,
  updated_at: null,
});

const storedRoleView = (row: StoredRole): RoleView => ({
  role: row.name,
  description: row.description,
  permissions: (JSON.parse(row.permissions) as string[]).sort(),
  kind: 'organization',
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

const nameInUse = (role: string) => conflict(`The organization has a role named ${role} already`);

/** Built-in and instance roles belong to the deployment: no organization changes or deletes them. */
function assertOrganizationsOwn(roles: RoleCatalogue, role: string): void {
  const fixed = roles.fixedRoles.get(role);
  if (fixed) {
    const what = fixed.kind === 'built_in' ? 'a built-in role' : "an instance role (the service's roles file)";
    throw conflict(`${role} is ${what}; only the organization's own roles can be changed or deleted`);
  }
}

/** A permission no role may hold, or only owners may (behaviour §11): 400. */
function assertGrantable(roles: RoleCatalogue, permissions: readonly string[]): void {
  const problem = roles.problemWithPermissions(permissions);
  if (problem) throw badRequest(problem, [{ field: 'permissions', problem }]);
}

/**
 * Every role usable in the organization: the built-in ones, the instance ones (in the roles file's
 * order), then the organization's own by name. A role of its own that a roles file declared later
 * as an instance role no longer counts.
 */
export async function listRoles(org: InOrganization): Promise<RoleView[]> {
  const { roles } = org.access;
  const own = (await organizationRoleRows(org.reads, org.organizationId)).filter(
    (row) => !roles.fixedRoles.has(row.name),
  );
  return [...[...roles.fixedRoles.values()].map(fixedRoleView), ...own.map(storedRoleView)];
}

/**
 * Creates one of the organization's own roles. Its permissions must be known and not the owners'
 * own (400), all held by the actor (no one grants what they do not hold, 403); its name must be
 * free (409), and the organization may have at most MAX_ORGANIZATION_ROLES of its own (409).
 */
export async function createRole(org: InOrganization, input: z.infer<typeof createRoleInput>): Promise<RoleView> {
  const { roles } = org.access;
  try {
    return await org.change(async (tx, change) => {
      const row = await roleNameAndCount(tx, org.organizationId, input.role);
      const held = await change.held();
      assertGrantable(roles, input.permissions);
      assertHoldsAll(held, input.permissions, `create the role ${input.role}`);
      if (roles.fixedRoles.has(input.role) || row?.existing != null) throw nameInUse(input.role);
      if (Number(row?.role_count ?? 0) >= MAX_ORGANIZATION_ROLES) {
        throw conflict(
          `The organization has ${MAX_ORGANIZATION_ROLES} roles of its own, the most it may have: delete one first`,
        );
      }
      const permissions = [...input.permissions].sort();
      insertRole(tx, org.organizationId, input.role, input.description, JSON.stringify(permissions));
      copyRolePermissionsToTeams(tx, org.organizationId, input.role, JSON.stringify(permissions));
      await appendEvent(tx, change, {
        type: 'role.created',
        subjectUserId: null,
        data: { role: input.role, description: input.description, permissions },
      });
      const at = tx.now.toISOString();
      return {
        role: input.role,
        description: input.description,
        permissions,
        kind: 'organization',
        created_at: at,
        updated_at: at,
      };
    });
  } catch (error) {
    // Defence in depth: the organization's lock already keeps two creations of one name apart.
    if (org.isUniqueViolation(error)) throw nameInUse(input.role);
    throw error;
  }
}

/** The row of one of the organization's own roles: 409 for a built-in or instance role, 404 for none. */
function ownRole(roles: RoleCatalogue, role: Role, row: StoredRole | undefined): StoredRole {
  assertOrganizationsOwn(roles, role);
  if (!row) throw notFound(`The organization has no role ${role}`);
  return row;
}

type RoleChanges = EventData['role.updated']['changes'];

/**
 * Changes the description and/or the permissions of one of the organization's own roles. The
 * actor must hold every permission the role will hold, so no one makes a role more powerful than
 * themselves. A request that changes nothing records no event and leaves `updated_at` as it was.
 */
export async function updateRole(org: InOrganization, input: z.infer<typeof updateRoleInput>): Promise<RoleView> {
  return org.change(async (tx, change) => {
    const row = await organizationRoleRow(tx, org.organizationId, input.role);
    const held = await change.held();
    if (input.permissions) assertGrantable(org.access.roles, input.permissions);
    const before = storedRoleView(ownRole(org.access.roles, input.role, row));
    const permissions = input.permissions ? [...input.permissions].sort() : before.permissions;
    assertHoldsAll(held, permissions, `give the role ${input.role} these permissions`);
    const changes: RoleChanges = {};
    if (input.description !== undefined && input.description !== before.description) {
      changes.description = { from: before.description, to: input.description };
    }
    if (!sameList(permissions, before.permissions)) changes.permissions = { from: before.permissions, to: permissions };
    if (!changes.description && !changes.permissions) return before;
    updateRoleRow(tx, org.organizationId, input.role, {
      description: changes.description?.to,
      permissions: changes.permissions && JSON.stringify(permissions),
    });
    if (changes.permissions)
      copyRolePermissionsToTeams(tx, org.organizationId, input.role, JSON.stringify(permissions));
    await appendEvent(tx, change, {
      type: 'role.updated',
      subjectUserId: null,
      data: { role: input.role, changes },
    });
    return {
      ...before,
      description: changes.description?.to ?? before.description,
      permissions,
      updated_at: tx.now.toISOString(),
    };
  });
}

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

/**
 * What still holds `role` in the organization, in words, or undefined when nothing does: its
 * memberships, its pending invitations and its API keys, in each case only those that have not
 * expired or been revoked (an expired membership counts as none, and an expired invitation or key
 * can no longer act, so none can bring the role back), the teams that give it, and the directory
 * when it is its default role (behaviour §18). Read under the organization's lock, which every
 * assignment of a role takes too.
 */
async function roleInUse(tx: Tx, organizationId: string, role: Role): Promise<string | undefined> {
  const members = await membersWithRole(tx, organizationId, role);
  const invitations = await openInvitationsWithRole(tx, organizationId, role);
  const teams = await teamsGiving(tx, organizationId, role);
  const keys = await liveKeysWithRole(tx, organizationId, role);
  const directory = await directoryGives(tx, organizationId, role);
  const holders = [
    ...(members > 0 ? [plural(members, 'member')] : []),
    ...(invitations > 0 ? [plural(invitations, 'pending invitation')] : []),
    ...(teams > 0 ? [plural(teams, 'team')] : []),
    ...(keys > 0 ? [plural(keys, 'API key')] : []),
    ...(directory ? ["the directory's default role"] : []),
  ];
  return holders.length > 0 ? holders.join(', ') : undefined;
}

/**
 * Deletes one of the organization's own roles, unless something still holds it (409). Deleting
 * takes power away, so the actor need not hold the role's permissions.
 */
export async function removeRole(org: InOrganization, role: Role): Promise<{ message: string }> {
  return org.change(async (tx, change) => {
    ownRole(org.access.roles, role, await organizationRoleRow(tx, org.organizationId, role));
    const holders = await roleInUse(tx, org.organizationId, role);
    if (holders) {
      throw conflict(`The role ${role} is in use by ${holders}: it can be deleted once nothing holds it`);
    }
    deleteRole(tx, org.organizationId, role);
    await appendEvent(tx, change, { type: 'role.deleted', subjectUserId: null, data: { role } });
    return { message: 'Role deleted' };
  });
}
