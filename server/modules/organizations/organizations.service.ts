/**
 * Organizations and the caller's memberships in them (behaviour §4.2, §4), and their lifecycle
 * (behaviour §8): create, read, update, delete, hand ownership over. Changes are the
 * organization's (in-organization.ts), over the statements of organizations.queries.ts.
 */
import type { z } from 'zod';
import type { EventData } from '../../../shared/events.ts';
import type { membershipOutput } from '../../../shared/fields.ts';
import type {
  createOrganizationInput,
  Organization as OrganizationView,
  OrganizationDetails,
  transferOwnershipInput,
  updateOrganizationInput,
} from '../../../shared/organizations.ts';
import type { Caller } from '../../platform/auth/tokens.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import type { ClockedReader } from '../../platform/authorization/memberships.ts';
import { newId } from '../../platform/database/ids.ts';
import { toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import type { Db } from '../../platform/database/transaction.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import { appendEvent, newOrganization } from '../../platform/organization-changes.ts';
import { insertMembership, rolesOf, updateRole, updateRoleAndExpiry } from '../members/members.service.ts';
import { noUserRecord } from '../users/users.service.ts';
import {
  deleteOrganizationRow,
  insertOrganization,
  organizationRow,
  organizationRowsOfUser,
  updateOrganizationRow,
} from './organizations.queries.ts';

/** The organization, its owner's membership and its first event, in one transaction. */
export async function createOrganization(
  db: Db,
  caller: Caller,
  input: z.infer<typeof createOrganizationInput>,
): Promise<z.infer<typeof membershipOutput>> {
  try {
    return await db.transaction(async (tx) => {
      const organizationId = newId();
      // No user record: the foreign key on created_by refuses the row (no read needed first).
      insertOrganization(tx, {
        id: organizationId,
        name: input.organization_name,
        description: input.organization_description,
        createdBy: caller.userId,
      });
      insertMembership(tx, organizationId, caller.userId, 'owner', null);
      await appendEvent(tx, newOrganization(organizationId, caller.userId), {
        type: 'organization.created',
        subjectUserId: caller.userId,
        data: { organization_name: input.organization_name, organization_description: input.organization_description },
      });
      return { organization_id: organizationId, user_id: caller.userId, role: 'owner' as const };
    });
  } catch (error) {
    if (db.isForeignKeyViolation(error)) throw noUserRecord();
    throw error;
  }
}

/**
 * The organizations the caller belongs to, in any role, oldest first (then by id), one page or
 * all of them; projected from SQL, not hydrated.
 */
export async function listOrganizations(
  reader: ClockedReader,
  caller: Caller,
  page: PageRequest = {},
): Promise<Page<OrganizationView>> {
  const rows = await organizationRowsOfUser(reader, caller.userId, page);
  return toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.id }),
    (row) => ({ ...row, created_at: isoTimestamp(row.created_at) }),
  );
}

/** The organization as the actor sees it, with their role. */
async function readDetails(reader: ClockedReader, org: InOrganization, role: () => Promise<string>) {
  const row = await organizationRow(reader, org.organizationId);
  // The guard has passed once the row is read: the organization exists and the actor is in it.
  const details: OrganizationDetails = {
    organization_id: org.organizationId,
    organization_name: row!.name,
    organization_description: row!.description,
    role: await role(),
    member_count: Number(row!.member_count),
    created_at: isoTimestamp(row!.created_at),
    updated_at: isoTimestamp(row!.updated_at),
  };
  return details;
}

/** GET /organizations/{organization_id}; a non-member and an unknown id both get 403. */
export async function getOrganization(org: InOrganization): Promise<OrganizationDetails> {
  return readDetails(org.reads, org, async () => (await org.held()).role);
}

type FieldChanges = EventData['organization.updated']['changes'];

/**
 * Renames or re-describes the organization. Fields given with the value they already have are no
 * change: a request that changes nothing records no event and leaves `updated_at` as it was.
 */
export async function updateOrganization(
  org: InOrganization,
  input: z.infer<typeof updateOrganizationInput>,
): Promise<OrganizationDetails> {
  return org.change(async (tx, change) => {
    const before = await readDetails(tx, org, async () => (await change.held()).role);
    const changes: FieldChanges = {};
    for (const field of ['organization_name', 'organization_description'] as const) {
      const to = input[field];
      if (to !== undefined && to !== before[field]) changes[field] = { from: before[field], to };
    }
    if (Object.keys(changes).length === 0) return before;
    updateOrganizationRow(tx, org.organizationId, {
      name: changes.organization_name?.to,
      description: changes.organization_description?.to,
    });
    await appendEvent(tx, change, { type: 'organization.updated', subjectUserId: null, data: { changes } });
    return {
      ...before,
      organization_name: changes.organization_name?.to ?? before.organization_name,
      organization_description: changes.organization_description?.to ?? before.organization_description,
      updated_at: tx.now.toISOString(),
    };
  });
}

/**
 * Deletes the organization. Its memberships, invitations, roles, teams, webhooks and their
 * deliveries go with it through their foreign keys (ON DELETE CASCADE); its events stay. A change
 * racing the deletion waits for the organization's lock, then finds no organization to take
 * (403), so it can leave no row behind.
 */
export async function deleteOrganization(org: InOrganization): Promise<{ message: string }> {
  return org.change(async (tx, change) => {
    const row = await organizationRow(tx, org.organizationId);
    await appendEvent(tx, change, {
      type: 'organization.deleted',
      subjectUserId: null,
      data: { organization_name: row!.name },
    });
    deleteOrganizationRow(tx, org.organizationId);
    return { message: 'Organization deleted' };
  });
}

/**
 * Hands ownership over: the member named becomes owner and the caller admin, in one transaction,
 * so the organization has an owner before and after. Naming a member who is already an owner is
 * allowed: the caller then steps down to admin, which is the same end state. A new owner's
 * membership no longer expires, since an owner's never does (behaviour §11).
 */
export async function transferOwnership(
  org: InOrganization,
  input: z.infer<typeof transferOwnershipInput>,
): Promise<{ message: string }> {
  const actorUserId = org.access.userId;
  return org.change(async (tx, change) => {
    const roles = await rolesOf(tx, org.organizationId, [input.user_id]);
    if (input.user_id === actorUserId) {
      throw badRequest('Ownership cannot be handed to yourself: name another member', [
        { field: 'user_id', problem: 'Must be another member of the organization' },
      ]);
    }
    const previousRole = roles.get(input.user_id);
    if (!previousRole) throw notFound('The user is not a member of this organization');
    if (previousRole !== 'owner') updateRoleAndExpiry(tx, org.organizationId, input.user_id, 'owner', null);
    updateRole(tx, org.organizationId, actorUserId, 'admin');
    await appendEvent(tx, change, {
      type: 'ownership.transferred',
      subjectUserId: input.user_id,
      data: { previous_owner_user_id: actorUserId, new_owner_previous_role: previousRole },
    });
    return { message: 'Ownership transferred' };
  });
}
