/**
 * Who may do what in an organization (behaviour §3.2, §11), in one place. Each operation names one
 * permission where it is declared (rpc/procedures.ts), and that same permission is what its
 * module's queries check against the caller's role, read under the organization's row lock for a
 * change, so that a role changed by a concurrent request cannot slip through. What a role lets its
 * holders do comes from the role catalogue (built-in and instance roles, role-catalogue.ts) or, for
 * an organization's own role, from its row, read in the same transaction. The owner rules that no
 * permission expresses (granting or touching `owner`, the last owner) are the functions at the end.
 */
import type { Role } from '../../shared/fields.ts';
import { sql as kyselySql, type SqlBool } from 'kysely';
import type { DbTimestamp, Sql } from './database/schema.ts';
import { prepare } from './database/prepared.ts';
import type { Reader } from './database/transaction.ts';
import { badRequest, conflict, forbidden } from './errors.ts';
import { SERVICE_PERMISSIONS, type RoleCatalogue, type ServicePermission } from './role-catalogue.ts';

/** The caller acting in an organization, with the permission the procedure names. */
export interface OrganizationActor {
  userId: string;
  organizationId: string;
  /** What the procedure may do: its queries check that the actor's role holds it. */
  permission: ServicePermission;
  /** The deployment's roles and permissions, which the actor's role is looked up in. */
  roles: RoleCatalogue;
}

/** What a role the organization no longer has lets its holders do. */
export const NONE: ReadonlySet<string> = new Set();

/** Non-members and unknown organizations are told the same thing (behaviour §3.2). */
export const notInOrganization = () => forbidden('You are not a member of this organization');

const organizationRole = prepare((sql: Sql, organizationId: string, role: string) =>
  sql
    .selectFrom('organization_roles')
    .select('permissions')
    .where('organization_id', '=', organizationId)
    .where('name', '=', role),
);

/**
 * What `role` lets its holders do in the actor's organization, undefined when the organization has
 * no such role. Built-in and instance roles are answered from memory; an organization's own role is
 * read (under the organization's lock, in a change).
 */
export async function permissionsOfRole(
  reader: Reader,
  actor: OrganizationActor,
  role: string,
): Promise<ReadonlySet<string> | undefined> {
  const fixed = actor.roles.fixedRoles.get(role);
  if (fixed) return fixed.permissions;
  const row = await reader.first(organizationRole(reader.sql, actor.organizationId, role));
  return actor.roles.permissionsOf(role, row?.permissions);
}

/** A member, whatever their role (leaving needs no more). */
export function assertMember(role: Role | null | undefined): asserts role is Role {
  if (role == null) throw notInOrganization();
}

/**
 * What the roles of the teams `userId` is in give them in the organization, one set per role: the
 * team_members rows exist only beside a membership (their foreign key), so only a member has any.
 * Whether the membership has expired is for the caller's own read of it to say.
 */
const teamRoleRows = prepare((sql: Sql, organizationId: string, userId: string) =>
  sql
    .selectFrom('team_members as tm')
    .innerJoin('team_roles as tr', 'tr.team_id', 'tm.team_id')
    .select(['tr.role', 'tr.permissions'])
    .where('tm.organization_id', '=', organizationId)
    .where('tm.user_id', '=', userId),
);

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

/** Everything in any of `sets`: the first itself when the others add nothing to it. */
export function unionOf(first: ReadonlySet<string>, others: Iterable<ReadonlySet<string>>): ReadonlySet<string> {
  let union: Set<string> | undefined;
  for (const set of others) {
    for (const permission of set) {
      if (first.has(permission) || union?.has(permission)) continue;
      union ??= new Set(first);
      union.add(permission);
    }
  }
  return union ?? first;
}

/** What the actor holds in the organization, their role's permissions (`own`) and their teams' together. */
async function withTeams(reader: Reader, actor: OrganizationActor, own: ReadonlySet<string>) {
  const rows = await reader.all(teamRoleRows(reader.sql, actor.organizationId, actor.userId));
  return unionOf(
    own,
    rows.map((row) => teamRolePermissions(actor.roles, row.role, row.permissions)),
  );
}

/**
 * The actor, whose role is `role` (undefined: not a member), holds `permission` (by default the
 * procedure's), through their role or one of their teams (behaviour §11): non-members are told
 * they are not members, members who lack it, what it is. The teams are read only when the role
 * alone does not hold it.
 */
export async function assertMay(
  reader: Reader,
  actor: OrganizationActor,
  role: Role | null | undefined,
  permission: ServicePermission = actor.permission,
): Promise<void> {
  assertMember(role);
  const own = (await permissionsOfRole(reader, actor, role)) ?? NONE;
  if (!own.has(permission)) assertHolds(await withTeams(reader, actor, own), permission);
}

/**
 * As assertMay, and returns everything the actor holds, their role's and their teams', for the
 * no-escalation checks that follow (assertMayGive, assertHoldsAll).
 */
export async function assertMayAndGetHeld(
  reader: Reader,
  actor: OrganizationActor,
  role: Role | null | undefined,
): Promise<ReadonlySet<string>> {
  assertMember(role);
  const own = (await permissionsOfRole(reader, actor, role)) ?? NONE;
  // An owner holds every permission already.
  const held = role === 'owner' ? own : await withTeams(reader, actor, own);
  assertHolds(held, actor.permission);
  return held;
}

/** What answers whether a member holds a permission: a set of them, or a view over several. */
export type Holds = Pick<ReadonlySet<string>, 'has'>;

/** `held` includes `permission`, or the member is told which one they lack. */
export function assertHolds(held: Holds, permission: ServicePermission): void {
  if (!held.has(permission)) {
    throw forbidden(
      `Neither your role nor your teams in this organization let you ${SERVICE_PERMISSIONS[permission]} (${permission})`,
    );
  }
}

/** A role the organization does not have, named in a body (behaviour §3). */
export const unknownRole = (role: string, field = 'role') =>
  badRequest(`The organization has no role ${role}`, [{ field, problem: `No role ${role} in this organization` }]);

/**
 * No one grants what they do not hold (behaviour §11): giving `role` (to a member, an invitation, a
 * team) needs the actor to hold every permission it holds. A role the organization does not have
 * is a 400. Returns the role's permissions.
 */
export async function assertMayGive(
  reader: Reader,
  actor: OrganizationActor,
  held: ReadonlySet<string>,
  role: Role,
  field = 'role',
): Promise<ReadonlySet<string>> {
  const given = await permissionsOfRole(reader, actor, role);
  if (!given) throw unknownRole(role, field);
  assertHoldsAll(held, [...given], `give the role ${role}`);
  return given;
}

/** The actor holds every one of `permissions`, or is told which they lack for `doing`. */
export function assertHoldsAll(held: ReadonlySet<string>, permissions: Iterable<string>, doing: string): void {
  const lacking = [...permissions].filter((permission) => !held.has(permission)).sort();
  if (lacking.length > 0) {
    throw forbidden(`You may not ${doing}: it holds permissions you do not (${lacking.join(', ')})`);
  }
}

/** Granting the owner role, or touching a member who is an owner, is for owners only. */
export function assertCanChange(actorRole: Role, targetRole: Role | undefined, newRole: Role | undefined): void {
  if (actorRole === 'owner') return;
  if (newRole === 'owner') throw forbidden('Only an owner may grant the owner role');
  if (targetRole === 'owner') throw forbidden('Only an owner may change or remove an owner');
}

/** An organization always keeps at least one owner. */
export function assertKeepsAnOwner(targetRole: Role, newRole: Role | undefined, ownerCount: number): void {
  if (targetRole === 'owner' && newRole !== 'owner' && ownerCount <= 1) {
    throw conflict('An organization must keep at least one owner');
  }
}

/**
 * A reader that tells the time as the database stores it: a transaction, whose clock is its `now`,
 * or a request's Db outside one.
 */
export type ClockedReader = Reader & { timestamp(date: Date): DbTimestamp; readonly now?: Date };

/** The moment memberships are judged at by a read (see `unexpired`): its transaction's clock, else now. */
export const nowFor = (reader: ClockedReader): DbTimestamp => reader.timestamp(reader.now ?? new Date());

/**
 * The membership row `alias` still counts at `now` (behaviour §11): from its `expires_at` on it is
 * no membership, whether or not the sweep (members/expiry-sweep.ts) has removed it yet. Every read
 * of a membership, in a WHERE or a join's ON, says so with this condition and no other.
 */
export const unexpired = (alias: string, now: DbTimestamp) => {
  const expiresAt = kyselySql.ref(`${alias}.expires_at`);
  return kyselySql<SqlBool>`(${expiresAt} is null or ${expiresAt} > ${now})`;
};

/**
 * The opposite of `unexpired`: the membership row `alias` has expired at `now` and awaits removal
 * (written without its `is null`, so that the sweep's search can use organization_users_expires_idx).
 */
export const lapsed = (alias: string, now: DbTimestamp) =>
  kyselySql<SqlBool>`${kyselySql.ref(`${alias}.expires_at`)} <= ${now}`;

/**
 * The actor's current membership (`a`, no row for a non-member): where the reads that decide on
 * the actor's role start, each adding the joins and columns it needs.
 */
export const actorMembership = (sql: Sql, organizationId: string, actorUserId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as a')
    .where('a.organization_id', '=', organizationId)
    .where('a.user_id', '=', actorUserId)
    .where(unexpired('a', now));

const roleOfUser = prepare((sql, organizationId: string, userId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .select('m.role')
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', '=', userId)
    .where(unexpired('m', now)),
);

/** The caller's role in an organization, or undefined when not a member (or no such organization). */
export async function roleInOrganization(
  reader: ClockedReader,
  organizationId: string,
  userId: string,
): Promise<Role | undefined> {
  return (await reader.first(roleOfUser(reader.sql, organizationId, userId, nowFor(reader))))?.role;
}
