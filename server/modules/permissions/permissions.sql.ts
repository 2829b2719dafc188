/**
 * What a member may do (behaviour §11): answered from the roles in the database at the moment of
 * the request, read by one query outside any transaction and never cached, so that a check answered
 * after a change's answer sees the change, whichever instance answers it. A membership that has
 * expired counts as none (access.ts, `unexpired`).
 */
import type { PermissionCheck, PermissionsView } from '../../../shared/permissions.ts';
import {
  actorMembership,
  assertHolds,
  assertMember,
  NONE,
  notInOrganization,
  nowFor,
  unexpired,
  type ClockedReader,
  type OrganizationActor,
} from '../../platform/access.ts';
import { badRequest } from '../../platform/errors.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import { prepare } from '../../platform/database/prepared.ts';

/**
 * The caller's current membership (`a`) and, when its role is one of the organization's own, that
 * role's permissions.
 */
const withRolePermissions = (sql: Sql, organizationId: string, userId: string, now: DbTimestamp) =>
  actorMembership(sql, organizationId, userId, now).leftJoin('organization_roles as ar', (join) =>
    join.onRef('ar.organization_id', '=', 'a.organization_id').onRef('ar.name', '=', 'a.role'),
  );

const callerGrants = prepare((sql, organizationId: string, userId: string, now: DbTimestamp) =>
  withRolePermissions(sql, organizationId, userId, now).select(['a.role', 'ar.permissions']),
);

/**
 * The current memberships of the caller and of the user (the same row when they are one), each
 * with its role's permissions when the role is one of the organization's own: no row for a
 * non-member. Two rows by primary key, without joining the membership table to itself.
 */
const callerAndUserGrants = prepare((sql, organizationId: string, callerId: string, userId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .leftJoin('organization_roles as r', (join) =>
      join.onRef('r.organization_id', '=', 'm.organization_id').onRef('r.name', '=', 'm.role'),
    )
    .select(['m.user_id', 'm.role', 'r.permissions'])
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', 'in', [callerId, userId])
    .where(unexpired('m', now)),
);

/** The caller's role and its permissions, sorted; a non-member gets 403. */
export async function permissionsOf(reader: ClockedReader, actor: OrganizationActor): Promise<PermissionsView> {
  const row = await reader.first(callerGrants(reader.sql, actor.organizationId, actor.userId, nowFor(reader)));
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
  reader: ClockedReader,
  actor: OrganizationActor,
  permissions: readonly string[],
  userId = actor.userId,
): Promise<PermissionCheck> {
  assertKnown(actor, permissions);
  const rows = await reader.all(
    callerAndUserGrants(reader.sql, actor.organizationId, actor.userId, userId, nowFor(reader)),
  );
  const holds = (user: string) => {
    const row = rows.find((candidate) => candidate.user_id === user);
    return row && (actor.roles.permissionsOf(row.role, row.permissions) ?? NONE);
  };
  const callerHolds = holds(actor.userId);
  if (!callerHolds) throw notInOrganization();
  assertHolds(callerHolds, actor.permission);
  if (userId !== actor.userId) assertHolds(callerHolds, 'members:read');
  const held = holds(userId) ?? NONE;
  const results: Record<string, boolean> = {};
  for (const permission of permissions) results[permission] = held.has(permission);
  return { user_id: userId, allowed: permissions.every((permission) => results[permission]), results };
}
