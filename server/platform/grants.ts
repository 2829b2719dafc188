/**
 * What members hold in an organization (behaviour §11, §12): their role's permissions and those of
 * the roles their teams give, together, read in one statement outside any transaction, at the
 * moment of the request, and never cached. Used by the permission check, GET .../permissions and
 * the event feed, which asks again before every batch it delivers.
 *
 * A team's organization role carries a copy of its permissions (entities.ts, TeamRole), so the
 * statement reads one team_roles row per role a team gives and no organization_roles row for it.
 */
import type { Role } from '../../shared/fields.ts';
import type { DbTimestamp, Sql } from './database/schema.ts';
import { prepare } from './database/prepared.ts';
import { NONE, teamRolePermissions, unexpired, unionOf, type Holds } from './access.ts';
import type { RoleCatalogue } from './role-catalogue.ts';

/** A member's grants: their role, the teams they are in (sorted), and all they hold. */
export interface Grants {
  role: Role;
  teams: string[];
  permissions: ReadonlySet<string>;
}

/**
 * The current memberships of `userIds` (no row for a non-member or an expired membership), each
 * with its role's permissions when the role is one of the organization's own, and the roles their
 * teams give: one row per team role, at least one per member. All by primary keys.
 */
const membershipsWithTeamRoles = (sql: Sql, organizationId: string, userIds: readonly string[], now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .leftJoin('organization_roles as r', (join) =>
      join.onRef('r.organization_id', '=', 'm.organization_id').onRef('r.name', '=', 'm.role'),
    )
    .leftJoin('team_members as tm', (join) =>
      join.onRef('tm.organization_id', '=', 'm.organization_id').onRef('tm.user_id', '=', 'm.user_id'),
    )
    .leftJoin('team_roles as tr', 'tr.team_id', 'tm.team_id')
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', 'in', userIds)
    .where(unexpired('m', now));

/** Each member's grants, the teams they are in included (a team that gives no role too). */
export const grantRows = (sql: Sql, organizationId: string, userIds: readonly string[], now: DbTimestamp) =>
  membershipsWithTeamRoles(sql, organizationId, userIds, now).select([
    'm.user_id',
    'm.role',
    'r.permissions',
    'tm.team_id',
    'tr.role as team_role',
    'tr.permissions as team_role_permissions',
  ]);

/** grantRows for one or two users (the same twice for one), compiled once. */
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

/**
 * What the check needs of one or two users, compiled once: the rows of grantRows without the team
 * ids, which the check does not answer.
 */
export const checkRowsOfTwo = prepare((sql, organizationId: string, first: string, second: string, now: DbTimestamp) =>
  membershipsWithTeamRoles(sql, organizationId, [first, second], now).select([
    'm.user_id',
    'm.role',
    'r.permissions',
    'tr.role as team_role',
    'tr.permissions as team_role_permissions',
  ]),
);

type CheckRow = Omit<GrantRow, 'team_id'>;

/** Whether any of a member's permission sets (their role's, then their teams' roles') holds one. */
class HeldSets implements Holds {
  readonly sets: ReadonlySet<string>[];

  constructor(own: ReadonlySet<string>) {
    this.sets = [own];
  }

  has(permission: string): boolean {
    // A loop, not `some` with a closure: a check of 20 permissions asks this 20 times per request.
    for (const set of this.sets) if (set.has(permission)) return true;
    return false;
  }
}

/**
 * The rows of checkRowsOfTwo as what each member holds, without building the union of their sets:
 * the check asks a few permissions of each, which a look in each set answers sooner.
 */
export function heldByEach(catalogue: RoleCatalogue, rows: readonly CheckRow[]): Map<string, Holds> {
  const held = new Map<string, HeldSets>();
  for (const row of rows) {
    let user = held.get(row.user_id);
    if (!user) {
      user = new HeldSets(catalogue.permissionsOf(row.role, row.permissions) ?? NONE);
      held.set(row.user_id, user);
    }
    if (row.team_role !== null)
      user.sets.push(teamRolePermissions(catalogue, row.team_role, row.team_role_permissions));
  }
  return held;
}
