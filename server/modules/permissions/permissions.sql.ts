/**
 * What a member may do (behaviour §11): answered from the roles in the database at the moment of
 * the request, read by one query outside any transaction and never cached, so that a check answered
 * after a change's answer sees the change, whichever instance answers it.
 */
import type { PermissionCheck, PermissionsView } from '../../../shared/permissions.ts';
import { assertHolds, assertMember, NONE, notInOrganization, type OrganizationActor } from '../../platform/access.ts';
import { badRequest } from '../../platform/errors.ts';
import type { Sql } from '../../platform/database/schema.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Reader } from '../../platform/database/transaction.ts';

/** A membership (`alias`) and, when its role is one of the organization's own, that role's permissions. */
const withRolePermissions = (sql: Sql, organizationId: string, userId: string) =>
  sql
    .selectFrom('organization_users as a')
    .leftJoin('organization_roles as ar', (join) =>
      join.onRef('ar.organization_id', '=', 'a.organization_id').onRef('ar.name', '=', 'a.role'),
    )
    .where('a.organization_id', '=', organizationId)
    .where('a.user_id', '=', userId);

const callerGrants = prepare((sql, organizationId: string, userId: string) =>
  withRolePermissions(sql, organizationId, userId).select(['a.role', 'ar.permissions']),
);

/** The caller's and the user's memberships and their roles' permissions, in one row (none for a non-member caller). */
const callerAndUserGrants = prepare((sql, organizationId: string, callerId: string, userId: string) =>
  withRolePermissions(sql, organizationId, callerId)
    .leftJoin('organization_users as t', (join) =>
      join.onRef('t.organization_id', '=', 'a.organization_id').on('t.user_id', '=', userId),
    )
    .leftJoin('organization_roles as tr', (join) =>
      join.onRef('tr.organization_id', '=', 't.organization_id').onRef('tr.name', '=', 't.role'),
    )
    .select(['a.role', 'ar.permissions', 't.role as user_role', 'tr.permissions as user_permissions']),
);

/** The caller's role and its permissions, sorted; a non-member gets 403. */
export async function permissionsOf(reader: Reader, actor: OrganizationActor): Promise<PermissionsView> {
  const row = await reader.first(callerGrants(reader.sql, actor.organizationId, actor.userId));
  assertMember(row?.role);
  const held = actor.roles.permissionsOf(row.role, row.permissions) ?? NONE;
  assertHolds(held, actor.permission);
  return { user_id: actor.userId, role: row.role, teams: [], permissions: [...held].sort() };
}

/** The names no role can hold here: not the service's, nor the roles file's (400, behaviour §11). */
function assertKnown(actor: OrganizationActor, permissions: readonly string[]): void {
  const issues = permissions.flatMap((permission, index) =>
    actor.roles.isKnown(permission)
      ? []
      : [{ field: `permissions.${index}`, problem: `Unknown permission: ${permission}` }],
  );
  if (issues.length > 0) throw badRequest('Unknown permissions', issues);
}

/**
 * Whether the user (the caller unless named) holds each permission. Asking about another user needs
 * `members:read`; a user who is not a member holds none.
 */
export async function checkPermissions(
  reader: Reader,
  actor: OrganizationActor,
  permissions: readonly string[],
  userId = actor.userId,
): Promise<PermissionCheck> {
  assertKnown(actor, permissions);
  const row = await reader.first(callerAndUserGrants(reader.sql, actor.organizationId, actor.userId, userId));
  if (!row) throw notInOrganization();
  const callerHolds = actor.roles.permissionsOf(row.role, row.permissions) ?? NONE;
  assertHolds(callerHolds, actor.permission);
  if (userId !== actor.userId) assertHolds(callerHolds, 'members:read');
  const held = row.user_role === null ? NONE : (actor.roles.permissionsOf(row.user_role, row.user_permissions) ?? NONE);
  const results: Record<string, boolean> = {};
  for (const permission of permissions) results[permission] = held.has(permission);
  return { user_id: userId, allowed: permissions.every((permission) => results[permission]), results };
}
