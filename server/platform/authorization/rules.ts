/**
 * The rules an operation applies on top of its declared permission, with what the actor holds
 * (access.ts): no one grants what they do not hold (behaviour §11), and the owner rules that no
 * permission expresses (granting or touching `owner`, the last owner: behaviour §3.2).
 */
import type { Role } from '../../../shared/fields.ts';
import { prepare } from '../database/prepared.ts';
import type { Reader } from '../database/unit-of-work.ts';
import { badRequest, conflict, forbidden } from '../errors.ts';
import type { RoleCatalogue } from '../role-catalogue.ts';
import type { Holds } from './holdings.ts';

const organizationRole = prepare((sql, organizationId: string, role: string) =>
  sql
    .selectFrom('organization_roles')
    .select('permissions')
    .where('organization_id', '=', organizationId)
    .where('name', '=', role),
);

/** Where a role is looked up: the deployment's catalogue, then the organization's own roles. */
export interface RoleScope {
  readonly organizationId: string;
  readonly roles: RoleCatalogue;
}

/**
 * What `role` lets its holders do in the organization, undefined when the organization has no such
 * role. Built-in and instance roles are answered from memory; an organization's own role is read
 * (under the organization's lock, in a change).
 */
export async function permissionsOfRole(
  reader: Reader,
  scope: RoleScope,
  role: string,
): Promise<ReadonlySet<string> | undefined> {
  const fixed = scope.roles.fixedRoles.get(role);
  if (fixed) return fixed.permissions;
  const row = await reader.first(organizationRole(reader.sql, scope.organizationId, role));
  return scope.roles.permissionsOf(role, row?.permissions);
}

/** A role the organization does not have, named in a body (behaviour §3). */
export const unknownRole = (role: string, field = 'role') =>
  badRequest(`The organization has no role ${role}`, [{ field, problem: `No role ${role} in this organization` }]);

/** The actor holds every one of `permissions`, or is told which they lack for `doing`. */
export function assertHoldsAll(held: Holds, permissions: Iterable<string>, doing: string): void {
  const lacking = [...permissions].filter((permission) => !held.has(permission)).sort();
  if (lacking.length > 0) {
    throw forbidden(`You may not ${doing}: it holds permissions you do not (${lacking.join(', ')})`);
  }
}

/**
 * No one grants what they do not hold (behaviour §11): giving `role` (to a member, an invitation, a
 * team) needs the actor to hold every permission it holds. A role the organization does not have
 * is a 400. Returns the role's permissions.
 */
export async function assertMayGive(
  reader: Reader,
  scope: RoleScope,
  held: Holds,
  role: Role,
  field = 'role',
): Promise<ReadonlySet<string>> {
  const given = await permissionsOfRole(reader, scope, role);
  if (!given) throw unknownRole(role, field);
  assertHoldsAll(held, given, `give the role ${role}`);
  return given;
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
