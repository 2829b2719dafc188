/**
 * What a member holds in an organization (behaviour §11, §12): their role's permissions together
 * with those of the roles their teams give. The one implementation of it: the authorization guard
 * of every operation (in-organization.ts), the permission check and GET .../permissions and the
 * event feed all read members' holdings with `holdingRows` and fold them with `holdingsByUser` (the
 * benchmark's baseline reads and folds them in code of its own, bench/baseline/permissions.ts).
 * Read at the moment of the request and never cached, so that a change holds for every request
 * answered after it, on every instance.
 *
 * A team's organization role carries a copy of its permissions (entities.ts, TeamRole), so the
 * statement reads one team_roles row per role a team gives and no organization_roles row for it.
 */
import type { Role } from '../../../shared/fields.ts';
import type { DbTimestamp, Sql } from '../database/schema.ts';
import { prepare } from '../database/prepared.ts';
import { newestEventColumn } from '../organization-changes.ts';
import type { RoleCatalogue } from '../role-catalogue.ts';
import { unexpired } from './memberships.ts';

/** What answers whether an actor holds a permission. */
export interface Holds {
  has(permission: string): boolean;
}

/** Nothing held: a role the organization no longer has. */
export const NONE: ReadonlySet<string> = new Set();

/**
 * A member's holdings: their role, the teams they are in (sorted) and the permission sets they
 * hold through each, asked in turn rather than merged: a check asks a few permissions, which a look
 * in each set answers sooner than building their union.
 */
export class Holdings implements Holds {
  readonly role: Role;
  readonly teams: readonly string[];
  readonly #sets: ReadonlySet<string>[];

  constructor(role: Role, own: ReadonlySet<string>, teams: readonly string[], given: Iterable<ReadonlySet<string>>) {
    this.role = role;
    this.teams = teams;
    this.#sets = [own, ...given];
  }

  has(permission: string): boolean {
    // A loop, not `some` with a closure: a check of 20 permissions asks this 20 times per request.
    for (const set of this.#sets) if (set.has(permission)) return true;
    return false;
  }

  /** Every permission held, sorted. */
  all(): string[] {
    return [...new Set(this.#sets.flatMap((set) => [...set]))].sort();
  }
}

/**
 * What a role given by a team lets its members do: as for a membership, but never the owner's,
 * which no team gives (behaviour §12; refused on input, ignored here should a row say otherwise).
 */
export function teamRolePermissions(
  catalogue: RoleCatalogue,
  role: string,
  organizationRolePermissions: string | null | undefined,
): ReadonlySet<string> {
  return role === 'owner' ? NONE : (catalogue.permissionsOf(role, organizationRolePermissions) ?? NONE);
}

/**
 * The current memberships of `userIds` (no row for a non-member or an expired membership), each
 * with its role's permissions when the role is one of the organization's own, the teams they are
 * in and the roles those give: one row per team role, at least one per member. All by primary keys.
 */
export const holdingRows = (sql: Sql, organizationId: string, userIds: readonly string[], now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .leftJoin('organization_roles as r', (join) =>
      join.onRef('r.organization_id', '=', 'm.organization_id').onRef('r.name', '=', 'm.role'),
    )
    .leftJoin('team_members as tm', (join) =>
      join.onRef('tm.organization_id', '=', 'm.organization_id').onRef('tm.user_id', '=', 'm.user_id'),
    )
    .leftJoin('team_roles as tr', 'tr.team_id', 'tm.team_id')
    .select([
      'm.user_id',
      'm.role',
      'r.permissions',
      'tm.team_id',
      'tr.role as team_role',
      'tr.permissions as team_role_permissions',
    ])
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', 'in', userIds)
    .where(unexpired('m', now));

/** holdingRows of one user, compiled once. */
export const holdingRowsOfOne = prepare((sql, organizationId: string, userId: string, now: DbTimestamp) =>
  holdingRows(sql, organizationId, [userId], now),
);

/**
 * The first guard of a read (access.ts, guardReads): only the membership's role, from one table.
 * A role of the deployment that holds what the operation needs answers the check without the
 * teams; any other role is followed by holdingRowsOfOne.
 */
export const roleRowOfOne = prepare((sql, organizationId: string, userId: string, now: DbTimestamp) =>
  currentMembership(sql, organizationId, userId, now).select(['m.user_id', 'm.role']),
);

/**
 * roleRowOfOne's role alone, as a column of the read it goes with (database/guarded-reads.ts); never
 * run on its own, so not a prepared statement of its own.
 */
export const roleOfOne = prepare(
  (sql, organizationId: string, userId: string, now: DbTimestamp) =>
    currentMembership(sql, organizationId, userId, now).select('m.role'),
  { serverSide: false },
);

function currentMembership(sql: Sql, organizationId: string, userId: string, now: DbTimestamp) {
  return sql
    .selectFrom('organization_users as m')
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', '=', userId)
    .where(unexpired('m', now));
}

/** holdingRows of two users, compiled once. */
export const holdingRowsOfTwo = prepare(
  (sql, organizationId: string, first: string, second: string, now: DbTimestamp) =>
    holdingRows(sql, organizationId, [first, second], now),
);

/**
 * holdingRows with the organization's newest event id on every row: the guard of a person's change,
 * read under the organization's lock (../organization-changes.ts, 'with the guard'; access.ts).
 */
const holdingRowsInChange = (sql: Sql, organizationId: string, userIds: readonly string[], now: DbTimestamp) =>
  holdingRows(sql, organizationId, userIds, now).select(newestEventColumn(sql, organizationId));

export const holdingRowsOfOneInChange = prepare((sql, organizationId: string, userId: string, now: DbTimestamp) =>
  holdingRowsInChange(sql, organizationId, [userId], now),
);

export const holdingRowsOfTwoInChange = prepare(
  (sql, organizationId: string, first: string, second: string, now: DbTimestamp) =>
    holdingRowsInChange(sql, organizationId, [first, second], now),
);

export type HoldingRow = Awaited<ReturnType<ReturnType<typeof holdingRows>['execute']>>[number];
/** A row of the guard of a person's change (holdingRowsOfOneInChange, holdingRowsOfTwoInChange). */
export type HoldingRowInChange = HoldingRow & { newest_event_id: string | null };

/** The rows of holdingRows as each member's holdings; a user with no row holds nothing here. */
export function holdingsByUser(catalogue: RoleCatalogue, rows: readonly HoldingRow[]): Map<string, Holdings> {
  const byUser = new Map<
    string,
    { role: Role; own: ReadonlySet<string>; teams: Set<string>; given: Map<string, ReadonlySet<string>> }
  >();
  for (const row of rows) {
    let user = byUser.get(row.user_id);
    if (!user) {
      const own = catalogue.permissionsOf(row.role, row.permissions) ?? NONE;
      user = { role: row.role, own, teams: new Set(), given: new Map() };
      byUser.set(row.user_id, user);
    }
    if (row.team_id !== null) user.teams.add(row.team_id);
    if (row.team_role !== null && !user.given.has(row.team_role)) {
      user.given.set(row.team_role, teamRolePermissions(catalogue, row.team_role, row.team_role_permissions));
    }
  }
  const holdings = new Map<string, Holdings>();
  for (const [userId, { role, own, teams, given }] of byUser) {
    holdings.set(userId, new Holdings(role, own, [...teams].sort(), given.values()));
  }
  return holdings;
}
