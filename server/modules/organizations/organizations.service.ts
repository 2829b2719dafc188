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
  setLimitsInput,
  transferOwnershipInput,
  updateOrganizationInput,
} from '../../../shared/organizations.ts';
import type { metadataOutput, updateOrganizationMetadataInput } from '../../../shared/metadata.ts';
import type { PersonCaller } from '../../platform/auth/tokens.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { searchWords } from '../../../shared/search.ts';
import type { ClockedReader } from '../../platform/authorization/memberships.ts';
import { newId } from '../../platform/database/ids.ts';
import { toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { createdAtColumn, toSortedPage, type SortedRequest } from '../../platform/database/sorted-pages.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';
import { badRequest, conflict, forbidden, notFound, unavailable } from '../../platform/errors.ts';
import { changedKeys, parseMetadata, patchedMetadata } from '../../platform/metadata.ts';
import type { Creator } from '../../platform/rpc/procedures.ts';
import { appendEvent, newOrganization, personActor } from '../../platform/organization-changes.ts';
import { insertMembership, rolesOf, updateRole, updateRoleAndExpiry } from '../members/members.service.ts';
import { indexNewOrganization, reindexOrganization } from '../../platform/database/word-index.ts';
import { noUserRecord } from '../users/users.service.ts';
import {
  deleteOrganizationRow,
  insertOrganization,
  organizationRow,
  organizationRowsOfUser,
  searchedOrganizationRowsOfUser,
  type OrganizationOfUserRow,
  slugsLike,
  updateOrganizationRow,
} from './organizations.queries.ts';
import { firstFreeSlug, slugOfName } from './slug.ts';

/** Attempts at a derived slug that others took meanwhile, before the creation gives up (503). */
const SLUG_ATTEMPTS = 50;

const slugTaken = (slug: string) => conflict(`The slug ${slug} is taken`);

/**
 * The organization, its owner's membership and its first event, in one transaction. The owner is
 * the person who creates it, or, with the application's key, the existing user `owner_user_id`
 * (behaviour §16). Its slug is the one given (409 when taken) or the first free one its name gives
 * (behaviour §15): when a concurrent creation takes it first, the creation is made again with the
 * next one.
 */
export async function createOrganization(
  db: Db,
  creator: Creator,
  input: z.infer<typeof createOrganizationInput>,
): Promise<z.infer<typeof membershipOutput>> {
  const ownerId = ownerOf(creator, input.owner_user_id);
  const actor = creator.kind === 'person' ? personActor(creator.userId) : { userId: null, keyId: creator.keyId };
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        const organizationId = newId();
        const slug = input.organization_slug ?? (await freeSlugFor(tx, input.organization_name));
        insertOrganization(tx, {
          id: organizationId,
          name: input.organization_name,
          description: input.organization_description,
          createdBy: ownerId,
          slug,
        });
        indexNewOrganization(tx, organizationId, input.organization_name, slug);
        // No user record, or one deleted meanwhile (behaviour §15): the membership's foreign key
        // refuses the row, no read needed first.
        insertMembership(tx, organizationId, ownerId, 'owner', null, () =>
          creator.kind === 'person' ? noUserRecord() : noSuchOwner(),
        );
        await appendEvent(tx, newOrganization(organizationId, actor), {
          type: 'organization.created',
          subjectUserId: ownerId,
          data: {
            organization_name: input.organization_name,
            organization_description: input.organization_description,
          },
        });
        return { organization_id: organizationId, user_id: ownerId, role: 'owner' as const };
      });
    } catch (error) {
      if (!db.isUniqueViolation(error) || !/slug/i.test((error as Error).message)) throw error;
      if (input.organization_slug !== undefined) throw slugTaken(input.organization_slug);
      if (attempt >= SLUG_ATTEMPTS)
        throw unavailable('Too many organizations of this name are being created at once, try again');
    }
  }
}

const noSuchOwner = () => notFound('No user has the id owner_user_id: the owner must have a user record');

/** Who owns a new organization: its creator, or the user the application's key names. */
function ownerOf(creator: Creator, ownerUserId: string | undefined): string {
  if (creator.kind === 'application_key') {
    if (ownerUserId === undefined) {
      throw badRequest("The application's key names the owner", [
        { field: 'owner_user_id', problem: 'Required with an application key' },
      ]);
    }
    return ownerUserId;
  }
  if (ownerUserId !== undefined && ownerUserId !== creator.userId) {
    throw forbidden("Only the application's key may make someone else the owner of a new organization");
  }
  return creator.userId;
}

/** The first free slug the name gives (behaviour §15), as the slugs in use are now. */
async function freeSlugFor(tx: Tx, name: string): Promise<string> {
  const base = slugOfName(name);
  return firstFreeSlug(base, await slugsLike(tx, base));
}

/**
 * The organizations the caller belongs to, in any role, oldest first (then by id), one page or
 * all of them; projected from SQL, not hydrated.
 */
export async function listOrganizations(
  reader: ClockedReader,
  caller: PersonCaller,
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

/**
 * A page of the caller's organizations that a search finds (behaviour §15), oldest first (then by
 * id); its cursor holds to the search.
 */
export async function searchOrganizations(
  reader: ClockedReader,
  caller: PersonCaller,
  search: string,
  page: { limit: number; cursor?: string | null },
): Promise<Page<OrganizationView>> {
  const words = searchWords(search);
  const request: SortedRequest<OrganizationOfUserRow> = {
    key: [createdAtColumn('o.created_at', reader.dialect), { column: 'o.id', kind: 'string', read: (row) => row.id }],
    descending: false,
    scope: [words],
    limit: page.limit,
    cursor: page.cursor,
  };
  const rows = await searchedOrganizationRowsOfUser(reader, caller.userId, words, request);
  return toSortedPage(rows, request, (row) => ({ ...row, created_at: isoTimestamp(row.created_at) }));
}

/** The organization as the actor sees it, with their role; its private metadata to an application key alone. */
async function readDetails(reader: ClockedReader, org: InOrganization, role: () => Promise<string>) {
  const row = await organizationRow(reader, org.organizationId);
  // The guard has passed once the row is read: the organization exists and the actor is in it.
  const details: OrganizationDetails = {
    organization_id: org.organizationId,
    organization_name: row!.name,
    organization_description: row!.description,
    slug: row!.slug,
    role: await role(),
    member_count: Number(row!.member_count),
    max_members: row!.max_members,
    public_metadata: parseMetadata(row!.public_metadata),
    ...(org.access.actor.kind === 'application_key' && { private_metadata: parseMetadata(row!.private_metadata) }),
    created_at: isoTimestamp(row!.created_at),
    updated_at: isoTimestamp(row!.updated_at),
  };
  return { details, row: row! };
}

/** GET /organizations/{organization_id} and GET /organizations/slug/{slug}; a non-member and an unknown id both get 403. */
export async function getOrganization(org: InOrganization): Promise<OrganizationDetails> {
  return (await readDetails(org.reads, org, () => org.role())).details;
}

type FieldChanges = EventData['organization.updated']['changes'];

/**
 * Renames, re-describes or re-slugs the organization. Fields given with the value they already
 * have are no change: a request that changes nothing records no event and leaves `updated_at` as it
 * was. A slug another organization has is 409 (its unique index decides, races included).
 */
export async function updateOrganization(
  org: InOrganization,
  input: z.infer<typeof updateOrganizationInput>,
): Promise<OrganizationDetails> {
  try {
    return await org.change(async (tx, change) => {
      const { details: before } = await readDetails(tx, org, async () => (await change.held()).role);
      const changes: FieldChanges = {};
      for (const [field, now] of [
        ['organization_name', before.organization_name],
        ['organization_description', before.organization_description],
        ['organization_slug', before.slug],
      ] as const) {
        const to = input[field];
        if (to !== undefined && to !== now) changes[field] = { from: now, to };
      }
      if (Object.keys(changes).length === 0) return before;
      updateOrganizationRow(tx, org.organizationId, {
        name: changes.organization_name?.to,
        description: changes.organization_description?.to,
        slug: changes.organization_slug?.to,
      });
      await reindexOrganization(tx, org.organizationId);
      await appendEvent(tx, change, { type: 'organization.updated', subjectUserId: null, data: { changes } });
      return {
        ...before,
        organization_name: changes.organization_name?.to ?? before.organization_name,
        organization_description: changes.organization_description?.to ?? before.organization_description,
        slug: changes.organization_slug?.to ?? before.slug,
        updated_at: tx.now.toISOString(),
      };
    });
  } catch (error) {
    if (input.organization_slug !== undefined && org.isUniqueViolation(error)) throw slugTaken(input.organization_slug);
    throw error;
  }
}

/**
 * Patches the organization's public and/or private metadata (JSON Merge Patch, behaviour §15)
 * under its lock, so that patches racing each other all land. The private metadata needs
 * `metadata:private`, which only an application key holds (behaviour §16), checked by the guard
 * (the procedure's `whenGiven`); its values and keys are in no event. A patch that changes nothing
 * records no event.
 */
export async function updateOrganizationMetadata(
  org: InOrganization,
  input: z.infer<typeof updateOrganizationMetadataInput>,
): Promise<z.infer<typeof metadataOutput>> {
  return org.change(async (tx, change) => {
    const row = await organizationRow(tx, org.organizationId);
    const before = { public: row!.public_metadata, private: row!.private_metadata };
    const after = {
      public: input.public_metadata
        ? patchedMetadata(before.public, input.public_metadata, 'public_metadata')
        : before.public,
      private: input.private_metadata
        ? patchedMetadata(before.private, input.private_metadata, 'private_metadata')
        : before.private,
    };
    const publicKeys = changedKeys(before.public, after.public);
    const privateChanged = after.private !== before.private;
    if (publicKeys.length > 0 || privateChanged) {
      updateOrganizationRow(tx, org.organizationId, { publicMetadata: after.public, privateMetadata: after.private });
      await appendEvent(tx, change, {
        type: 'organization.updated',
        subjectUserId: null,
        data: {
          changes: {},
          ...(publicKeys.length > 0 && { public_metadata_keys: publicKeys }),
          ...(privateChanged && { private_metadata_changed: true as const }),
        },
      });
    }
    return {
      public_metadata: parseMetadata(after.public),
      ...(input.private_metadata !== undefined && { private_metadata: parseMetadata(after.private) }),
    };
  });
}

/**
 * Sets the seat limit (behaviour §16; `organization:limits`, an application key's alone), recorded
 * as `organization.updated` (behaviour §9); the limit it already has is no change and no event. A
 * limit below the members there are removes nobody: it only refuses the next ones.
 */
export async function setLimits(
  org: InOrganization,
  input: z.infer<typeof setLimitsInput>,
): Promise<OrganizationDetails> {
  return org.change(async (tx, change) => {
    const { details } = await readDetails(tx, org, async () => (await change.held()).role);
    if (details.max_members === input.max_members) return details;
    updateOrganizationRow(tx, org.organizationId, { maxMembers: input.max_members });
    await appendEvent(tx, change, {
      type: 'organization.updated',
      subjectUserId: null,
      data: { changes: { max_members: { from: details.max_members, to: input.max_members } } },
    });
    return { ...details, max_members: input.max_members, updated_at: tx.now.toISOString() };
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
 * membership no longer expires, since an owner's never does (behaviour §11). The application's
 * key, which acts with every permission but holds no membership, makes the member an owner and
 * nobody steps down (behaviour §16); an organization's key never holds `ownership:transfer`.
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
    if (actorUserId !== null) updateRole(tx, org.organizationId, actorUserId, 'admin');
    await appendEvent(tx, change, {
      type: 'ownership.transferred',
      subjectUserId: input.user_id,
      data: { previous_owner_user_id: actorUserId, new_owner_previous_role: previousRole },
    });
    return { message: 'Ownership transferred' };
  });
}
