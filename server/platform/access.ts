/**
 * Who may do what in an organization (behaviour §3.2), in one place: each operation names one
 * permission where it is declared (rpc/procedures.ts), and that same permission is what its
 * module's queries check against the caller's role, read under the organization's row lock for a
 * change, so that a role changed by a concurrent request cannot slip through. The built-in roles'
 * permissions are the table below; the owner rules that no permission expresses (granting or
 * touching `owner`, the last owner) are the functions at the end.
 */
import type { Role } from '../../shared/fields.ts';
import type { Sql } from './database/schema.ts';
import { prepare } from './database/prepared.ts';
import type { Reader } from './database/transaction.ts';
import { conflict, forbidden } from './errors.ts';

/** The service's own permissions, `<resource>:<action>`, with what each lets a role do. */
export const PERMISSIONS = {
  'organization:read': 'read the organization',
  'organization:update': 'change it',
  'organization:delete': 'delete it',
  'ownership:transfer': 'hand its ownership over',
  'members:read': 'read its members',
  'members:add': 'add members',
  'members:update': "change its members' roles",
  'members:remove': 'remove its members',
  'invitations:read': 'read its invitations',
  'invitations:create': 'invite people to it',
  'invitations:revoke': 'revoke its invitations',
  'events:read': 'read its events',
} as const;
export type Permission = keyof typeof PERMISSIONS;

/** The caller acting in an organization, with the permission the procedure names. */
export interface OrganizationActor {
  userId: string;
  organizationId: string;
  /** What the procedure may do: its queries check that the actor's role holds it. */
  permission: Permission;
}

const ALL = Object.keys(PERMISSIONS) as Permission[];
const OWNERS_ONLY: Permission[] = ['organization:delete', 'ownership:transfer'];

/** The built-in roles' permissions: an owner holds all, an admin all but the owners' own. */
export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set(ALL),
  admin: new Set(ALL.filter((permission) => !OWNERS_ONLY.includes(permission))),
  member: new Set(['organization:read', 'members:read']),
};

export const roleMay = (role: Role | undefined, permission: Permission): boolean =>
  role !== undefined && ROLE_PERMISSIONS[role].has(permission);

/** Non-members and unknown organizations are told the same thing (behaviour §3.2). */
export const notInOrganization = () => forbidden('You are not a member of this organization');

/** The roles that hold `permission`, as a person reads them: "an owner or admin". */
const holders = (permission: Permission) =>
  (Object.keys(ROLE_PERMISSIONS) as Role[]).filter((role) => roleMay(role, permission)).join(' or ');

/** A member, whatever their role (leaving needs no more). */
export function assertMember(role: Role | undefined): asserts role is Role {
  if (role === undefined) throw notInOrganization();
}

/** `role` holds `permission`: non-members are told they are not members; members who lack it, why not. */
export function assertMay(role: Role | undefined, permission: Permission): asserts role is Role {
  assertMember(role);
  if (!roleMay(role, permission)) {
    throw forbidden(`Only an ${holders(permission)} of the organization may ${PERMISSIONS[permission]}`);
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
 * The actor's membership (`a`, no row for a non-member): where the reads that decide on the actor's
 * role start, each adding the joins and columns it needs.
 */
export const actorMembership = (sql: Sql, organizationId: string, actorUserId: string) =>
  sql
    .selectFrom('organization_users as a')
    .where('a.organization_id', '=', organizationId)
    .where('a.user_id', '=', actorUserId);

const roleOfUser = prepare((sql, organizationId: string, userId: string) =>
  sql
    .selectFrom('organization_users')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId),
);

/** The caller's role in an organization, or undefined when not a member (or no such organization). */
export async function roleInOrganization(
  reader: Reader,
  organizationId: string,
  userId: string,
): Promise<Role | undefined> {
  return (await reader.first(roleOfUser(reader.sql, organizationId, userId)))?.role;
}
