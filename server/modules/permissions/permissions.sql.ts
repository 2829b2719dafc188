/**
 * What a member may do (behaviour §11): their role's permissions and their teams' roles', as the
 * database holds them at the moment of the request, read by one query outside any transaction and
 * never cached (grants.ts), so that a check answered after a change's answer sees the change,
 * whichever instance answers it. A membership that has expired counts as none.
 */
import type { PermissionCheck, PermissionsView } from '../../../shared/permissions.ts';
import {
  assertHolds,
  NONE,
  notInOrganization,
  nowFor,
  type ClockedReader,
  type OrganizationActor,
} from '../../platform/access.ts';
import { badRequest } from '../../platform/errors.ts';
import { checkRowsOfTwo, foldGrants, grantRowsOfTwo, heldByEach } from '../../platform/grants.ts';

/** The caller's role, the teams they are in and all they hold (sorted); a non-member gets 403. */
export async function permissionsOf(reader: ClockedReader, actor: OrganizationActor): Promise<PermissionsView> {
  const rows = await reader.all(
    grantRowsOfTwo(reader.sql, actor.organizationId, actor.userId, actor.userId, nowFor(reader)),
  );
  const grants = foldGrants(actor.roles, rows).get(actor.userId);
  if (!grants) throw notInOrganization();
  assertHolds(grants.permissions, actor.permission);
  return { user_id: actor.userId, role: grants.role, teams: grants.teams, permissions: [...grants.permissions].sort() };
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
  reader: ClockedReader,
  actor: OrganizationActor,
  permissions: readonly string[],
  userId = actor.userId,
): Promise<PermissionCheck> {
  assertKnown(actor, permissions);
  const rows = await reader.all(checkRowsOfTwo(reader.sql, actor.organizationId, actor.userId, userId, nowFor(reader)));
  const held = heldByEach(actor.roles, rows);
  const callerHolds = held.get(actor.userId);
  if (!callerHolds) throw notInOrganization();
  assertHolds(callerHolds, actor.permission);
  if (userId !== actor.userId) assertHolds(callerHolds, 'members:read');
  const userHolds = held.get(userId) ?? NONE;
  const results: Record<string, boolean> = {};
  let allowed = true;
  for (const permission of permissions) {
    const holds = userHolds.has(permission);
    results[permission] = holds;
    allowed &&= holds;
  }
  return { user_id: userId, allowed, results };
}
