/**
 * What a member may do (behaviour §11): answered from the role in the database at the moment of
 * the request, read by one query outside any transaction and never cached, so that a check answered
 * after a role change's answer sees the change, whichever instance answers it.
 */
import type { PermissionCheck, PermissionsView } from '../../../shared/permissions.ts';
import {
  assertMay,
  roleInOrganization,
  roleMay,
  ROLE_PERMISSIONS,
  type OrganizationActor,
  type Permission,
} from '../../platform/access.ts';
import type { Reader } from '../../platform/database/transaction.ts';
import { actorAndTargetRoles } from '../members/members.sql.ts';

/** The caller's role and its permissions, sorted; a non-member gets 403. */
export async function permissionsOf(reader: Reader, actor: OrganizationActor): Promise<PermissionsView> {
  const role = await roleInOrganization(reader, actor.organizationId, actor.userId);
  assertMay(role, actor.permission);
  return { user_id: actor.userId, role, teams: [], permissions: [...ROLE_PERMISSIONS[role]].sort() };
}

/**
 * Whether the user (the caller unless named) holds each permission. Asking about another user needs
 * `members:read`; a user who is not a member holds none.
 */
export async function checkPermissions(
  reader: Reader,
  actor: OrganizationActor,
  permissions: Permission[],
  userId = actor.userId,
): Promise<PermissionCheck> {
  const { actorRole, targetRole: userRole } = await actorAndTargetRoles(reader, actor, userId);
  assertMay(actorRole, actor.permission);
  if (userId !== actor.userId) assertMay(actorRole, 'members:read');
  const results: Record<string, boolean> = {};
  for (const permission of permissions) results[permission] = roleMay(userRole, permission);
  return { user_id: userId, allowed: permissions.every((permission) => results[permission]), results };
}
