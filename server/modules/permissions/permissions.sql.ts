/**
 * What a member may do (behaviour §11): answered from the role in the database at the moment of
 * the request, read by one query outside any transaction and never cached, so that a check answered
 * after a role change's answer sees the change, whichever instance answers it.
 */
import type { PermissionCheck, PermissionsView } from '../../../shared/permissions.ts';
import {
  actorMembership,
  assertMay,
  roleInOrganization,
  roleMay,
  ROLE_PERMISSIONS,
  type OrganizationActor,
  type Permission,
} from '../../platform/access.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Reader } from '../../platform/database/transaction.ts';

const actorAndUser = prepare((sql, organizationId: string, actorUserId: string, userId: string) =>
  actorMembership(sql, organizationId, actorUserId)
    .leftJoin('organization_users as u', (join) =>
      join.onRef('u.organization_id', '=', 'a.organization_id').on('u.user_id', '=', userId),
    )
    .select(['a.role as actor_role', 'u.role as user_role']),
);

/** The actor's role and the user's (the same row when the user is the actor); no row for a non-member actor. */
async function actorAndUserRoles(reader: Reader, actor: OrganizationActor, userId: string) {
  const row = await reader.first(actorAndUser(reader.sql, actor.organizationId, actor.userId, userId));
  return { actorRole: row?.actor_role, userRole: row?.user_role ?? undefined };
}

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
  const { actorRole, userRole } = await actorAndUserRoles(reader, actor, userId);
  assertMay(actorRole, actor.permission);
  if (userId !== actor.userId) assertMay(actorRole, 'members:read');
  const results: Record<string, boolean> = {};
  for (const permission of permissions) results[permission] = roleMay(userRole, permission);
  return { user_id: userId, allowed: permissions.every((permission) => results[permission]), results };
}
