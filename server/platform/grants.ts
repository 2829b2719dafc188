/**
 * What members hold in an organization (behaviour §11, §12): their role's permissions and those of
 * the roles their teams give, together, read in one statement outside any transaction, at the
 * moment of the request, and never cached. Used by the permission check and by the event feed,
 * which asks it again for every batch it delivers.
 */
import type { Role } from '../../shared/fields.ts';
import type { DbTimestamp, Sql } from './database/schema.ts';
import { prepare } from './database/prepared.ts';
import { NONE, teamRolePermissions, unexpired, unionOf } from './access.ts';
import type { RoleCatalogue } from './role-catalogue.ts';

/** A member's grants: their role, the teams they are in (sorted), and all they hold. */
export interface Grants {
  role: Role;
  teams: string[];
  permissions: ReadonlySet<string>;
}

/**
 * The current memberships of `userIds` (no row for a non-member or an expired membership), each
 * with its role's permissions when the role is one of the organization's own, and the teams the
 * user is in with each role a team gives (and its permissions, for an organization's role): one
 * row per team role, at least one per team, at least one per member. All by primary keys.
 */
export const grantRows = (sql: Sql, organizationId: string, userIds: readonly string[], now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .leftJoin('organization_roles as r', (join) =>
      join.onRef('r.organization_id', '=', 'm.organization_id').onRef('r.name', '=', 'm.role'),
    )
    .leftJoin('team_members as tm', (join) =>
      join.onRef('tm.organization_id', '=', 'm.organization_id').onRef('tm.user_id', '=', 'm.user_id'),
    )
    .leftJoin('team_roles as tr', 'tr.team_id', 'tm.team_id')
    .leftJoin('organization_roles as trr', (join) =>
      join.onRef('trr.organization_id', '=', 'm.organization_id').onRef('trr.name', '=', 'tr.role'),
    )
    .select([
      'm.user_id',
      'm.role',
      'r.permissions',
      'tm.team_id',
      'tr.role as team_role',
      'trr.permissions as team_role_permissions',
    ])
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', 'in', userIds)
    .where(unexpired('m', now));

/** grantRows for one or two users (the same twice for one), compiled once: the check's statement. */
export const grantRowsOfTwo = prepare((sql, organizationId: string, first: string, second: string, now: DbTimestamp) =>
  grantRows(sql, organizationId, [first, second], now),
);

type GrantRow = Awaited<ReturnType<ReturnType<typeof grantRows>['execute']>>[number];

/** The rows of grantRows as each member's grants. */
export function foldGrants(catalogue: RoleCatalogue, rows: readonly GrantRow[]): Map<string, Grants> {
  const byUser = new Map<
    string,
    { role: Role; own: ReadonlySet<string>; teams: Set<string>; given: Map<string, ReadonlySet<string>> }
  >();
  for (const row of rows) {
    let user = byUser.get(row.user_id);
    if (!user) {
      user = {
        role: row.role,
        own: catalogue.permissionsOf(row.role, row.permissions) ?? NONE,
        teams: new Set(),
        given: new Map(),
      };
      byUser.set(row.user_id, user);
    }
    if (row.team_id !== null) user.teams.add(row.team_id);
    if (row.team_role !== null && !user.given.has(row.team_role)) {
      user.given.set(row.team_role, teamRolePermissions(catalogue, row.team_role, row.team_role_permissions));
    }
  }
  const grants = new Map<string, Grants>();
  for (const [userId, { role, own, teams, given }] of byUser) {
    grants.set(userId, { role, teams: [...teams].sort(), permissions: unionOf(own, given.values()) });
  }
  return grants;
}
