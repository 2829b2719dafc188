/**
 * What a member may do (behaviour §11): their role's permissions and their teams' roles', as the
 * database holds them at the moment of the request (authorization/holdings.ts, never cached), so
 * that a check answered after a change's answer sees the change, whichever instance answers it. A
 * membership that has expired counts as none.
 */
import type { PermissionCheck, PermissionsView } from '../../../shared/permissions.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { badRequest } from '../../platform/errors.ts';

/** The caller's role, the teams they are in and all they hold (sorted): what the guard read. */
export async function permissionsOf(org: InOrganization): Promise<PermissionsView> {
  const held = await org.held();
  const { userId, keyId } = org.access.eventActor;
  return {
    user_id: userId,
    ...(keyId !== null && { key_id: keyId }),
    role: held.role,
    teams: [...held.teams],
    permissions: held.all(),
  };
}

/** The names no role can hold here: not the service's, nor the roles file's (400, behaviour §11). */
function assertKnown(org: InOrganization, permissions: readonly string[]): void {
  const issues = permissions.flatMap((permission, index) =>
    org.access.roles.isKnown(permission)
      ? []
      : [{ field: `permissions.${index}`, problem: `Unknown permission: ${permission}` }],
  );
  if (issues.length > 0) throw badRequest('Unknown permissions', issues);
}

/**
 * Whether the user (the caller unless named) holds each permission. Asking about another user
 * needs `members:read` (the operation declares it, with `orSelf`); a user who is not a member holds
 * none. Both are read by the guard's one statement.
 */
export async function checkPermissions(
  org: InOrganization,
  permissions: readonly string[],
  userId?: string,
): Promise<PermissionCheck> {
  assertKnown(org, permissions);
  const held = userId === undefined ? await org.held() : await org.holdingsOf(userId);
  const subject = userId === undefined ? org.access.eventActor : { userId, keyId: null };
  const results: Record<string, boolean> = {};
  let allowed = true;
  for (const permission of permissions) {
    const holds = held.has(permission);
    results[permission] = holds;
    allowed &&= holds;
  }
  return { user_id: subject.userId, ...(subject.keyId !== null && { key_id: subject.keyId }), allowed, results };
}
