/**
 * The membership permission table of behaviour §3.2 as pure rules. The role-checking procedures use
 * them on reads; membership changes apply them to the caller's role read under the organization's
 * row lock, so a role changed by a concurrent request cannot slip through.
 */
import type { Role } from '../../shared/schemas.ts';
import { conflict, forbidden } from '../errors.ts';

/** Non-members and unknown organizations are told the same thing (behaviour §3.2). */
export const notInOrganization = () => forbidden('You are not a member of this organization');

/** Any member may read the organization's members (behaviour §3.2). */
export function assertCanReadMembers(role: Role | undefined): asserts role is Role {
  if (role === undefined) throw notInOrganization();
}

/** Owners and admins manage the organization and read its audit events (behaviour §3.2 and 9). */
export const isOwnerOrAdmin = (role: Role | undefined): boolean => role === 'owner' || role === 'admin';

/**
 * Owner or admin, for `action` (changing the members, the organization, its invitations):
 * non-members are told they are not members; members who are neither, why not.
 */
export function assertOwnerOrAdmin(role: Role | undefined, action: string): asserts role is Role {
  assertCanReadMembers(role);
  if (!isOwnerOrAdmin(role)) throw forbidden(`Only an owner or admin of the organization may ${action}`);
}

export function assertCanManageMembers(role: Role | undefined): asserts role is Role {
  assertOwnerOrAdmin(role, 'change its members');
}

export function assertCanReadEvents(role: Role | undefined): asserts role is Role {
  assertOwnerOrAdmin(role, 'read its events');
}

/** Owners only, for `action` (deleting the organization, handing its ownership over). */
export function assertOwner(role: Role | undefined, action: string): asserts role is 'owner' {
  assertCanReadMembers(role);
  if (role !== 'owner') throw forbidden(`Only an owner of the organization may ${action}`);
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
