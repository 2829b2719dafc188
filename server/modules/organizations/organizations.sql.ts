/**
 * Organizations and the caller's memberships in them (behaviour §4.2, behaviour §4), and their
 * lifecycle (behaviour §8): read, update, delete, hand ownership over. Changes take the organization
 * first (organization-changes.ts), read the roles they depend on under that lock, and record their
 * event in the same transaction.
 */
import type { z } from 'zod';
import type { EventData } from '../../../shared/events.ts';
import type {
  OrganizationDetails,
  transferOwnershipInput,
  updateOrganizationInput,
} from '../../../shared/organizations.ts';
import type { membershipOutput, Role } from '../../../shared/fields.ts';
import type { createOrganizationInput, Organization as OrganizationView } from '../../../shared/organizations.ts';
import type { Caller } from '../../platform/auth/tokens.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import { newId } from '../../platform/database/ids.ts';
import {
  appendEvent,
  changeOrganization,
  newOrganization,
  organizationWithActor,
} from '../../platform/organization-changes.ts';
import { pagedList, toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import {
  actorMembership,
  assertMay,
  assertMember,
  notInOrganization,
  nowFor,
  unexpired,
  type ClockedReader,
  type OrganizationActor,
} from '../../platform/access.ts';
import { prepare } from '../../platform/database/prepared.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import { insertMembership, setRole, setRoleAndExpiry } from '../members/members.sql.ts';
import { noUserRecord } from '../users/users.sql.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';

const organizationInsert = prepare(
  (sql, id: string, name: string, description: string, createdBy: string, now: DbTimestamp) =>
    sql.insertInto('organizations').values({
      id,
      name,
      description,
      created_by: createdBy,
      created_at: now,
      updated_at: now,
      version: 0,
    }),
);

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
      tx.later(
        organizationInsert(
          tx.sql,
          organizationId,
          input.organization_name,
          input.organization_description,
          caller.userId,
          tx.timestamp(),
        ),
      );
      insertMembership(tx, organizationId, caller.userId, 'owner', null);
      await appendEvent(tx, newOrganization(organizationId), {
        type: 'organization.created',
        actorUserId: caller.userId,
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

const organizationListRows = pagedList(
  (sql: Sql, userId: string, now: DbTimestamp) =>
    sql
      .selectFrom('organization_users as m')
      .innerJoin('organizations as o', 'o.id', 'm.organization_id')
      .select(['o.id', 'o.name', 'o.description', 'o.created_by', 'o.created_at'])
      .where('m.user_id', '=', userId)
      .where(unexpired('m', now)),
  { createdAt: 'o.created_at', id: 'o.id' },
);

/**
 * The organizations the caller belongs to, in any role, oldest first (then by id), one page or
 * all of them; projected from SQL, not hydrated.
 */
export async function listOrganizations(
  db: Db,
  caller: Caller,
  page: PageRequest = {},
): Promise<Page<OrganizationView>> {
  const rows = await organizationListRows(db, db.dialect, page, caller.userId, nowFor(db));
  return toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.id }),
    (row) => ({ ...row, created_at: isoTimestamp(row.created_at) }),
  );
}

/** The organization as the actor sees it, with their role; undefined when they are not a member. */
async function readDetails(reader: ClockedReader, actor: OrganizationActor): Promise<OrganizationDetails | undefined> {
  const now = nowFor(reader);
  const row = await reader.first(
    actorMembership(reader.sql, actor.organizationId, actor.userId, now)
      .innerJoin('organizations as o', 'o.id', 'a.organization_id')
      .select((eb) => [
        'o.name',
        'o.description',
        'o.created_at',
        'o.updated_at',
        'a.role',
        eb
          .selectFrom('organization_users as c')
          .select((count) => count.fn.countAll<number | string>().as('members'))
          .whereRef('c.organization_id', '=', 'o.id')
          .where(unexpired('c', now))
          .as('member_count'),
      ]),
  );
  if (!row) return undefined;
  return {
    organization_id: actor.organizationId,
    organization_name: row.name,
    organization_description: row.description,
    role: row.role,
    member_count: Number(row.member_count),
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/** GET /organizations/{organization_id}; a non-member and an unknown id both get 403. */
export async function getOrganization(db: Db, actor: OrganizationActor): Promise<OrganizationDetails> {
  const details = await readDetails(db, actor);
  assertMember(details?.role);
  await assertMay(db, actor, details.role);
  return details;
}

type FieldChanges = EventData['organization.updated']['changes'];

/**
 * Renames or re-describes the organization (owner or admin). Fields given with the value they
 * already have are no change: a request that changes nothing records no event and leaves
 * `updated_at` as it was.
 */
export async function updateOrganization(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof updateOrganizationInput>,
): Promise<OrganizationDetails> {
  return changeOrganization(db, actor, async (tx, change) => {
    const before = await readDetails(tx, actor);
    assertMember(before?.role);
    await assertMay(tx, actor, before.role);
    const changes: FieldChanges = {};
    for (const field of ['organization_name', 'organization_description'] as const) {
      const to = input[field];
      if (to !== undefined && to !== before[field]) changes[field] = { from: before[field], to };
    }
    if (Object.keys(changes).length === 0) return before;
    tx.later(
      tx.sql
        .updateTable('organizations')
        .set({
          name: changes.organization_name?.to,
          description: changes.organization_description?.to,
          updated_at: tx.timestamp(),
        })
        .where('id', '=', actor.organizationId),
    );
    await appendEvent(tx, change, {
      type: 'organization.updated',
      actorUserId: actor.userId,
      subjectUserId: null,
      data: { changes },
    });
    return {
      ...before,
      organization_name: changes.organization_name?.to ?? before.organization_name,
      organization_description: changes.organization_description?.to ?? before.organization_description,
      updated_at: tx.now.toISOString(),
    };
  });
}

/**
 * Deletes the organization (owners only). Its memberships and invitations go with it through
 * their foreign keys (ON DELETE CASCADE); its events stay. A change racing the deletion waits for
 * the organization's lock, then finds no organization to take (403), so it can leave no row behind.
 */
export async function deleteOrganization(db: Db, actor: OrganizationActor): Promise<{ message: string }> {
  return changeOrganization(db, actor, async (tx, change) => {
    const row = await tx.first(organizationWithActor(tx, actor).select(['o.name', 'a.role']));
    if (!row) throw notInOrganization();
    await assertMay(tx, actor, row.role);
    await appendEvent(tx, change, {
      type: 'organization.deleted',
      actorUserId: actor.userId,
      subjectUserId: null,
      data: { organization_name: row.name },
    });
    tx.later(tx.sql.deleteFrom('organizations').where('id', '=', actor.organizationId));
    return { message: 'Organization deleted' };
  });
}

/** The roles of these users in the organization, read within the transaction. */
async function rolesIn(tx: Tx, organizationId: string, userIds: string[]): Promise<Map<string, Role>> {
  const rows = await tx.all(
    tx.sql
      .selectFrom('organization_users as m')
      .select(['m.user_id', 'm.role'])
      .where('m.organization_id', '=', organizationId)
      .where('m.user_id', 'in', userIds)
      .where(unexpired('m', tx.timestamp())),
  );
  return new Map(rows.map((row) => [row.user_id, row.role]));
}

/**
 * Hands ownership over (owners only): the member named becomes owner and the caller admin, in one
 * transaction, so the organization has an owner before and after. Naming a member who is already
 * an owner is allowed: the caller then steps down to admin, which is the same end state. A new
 * owner's membership no longer expires, since an owner's never does (behaviour §11).
 */
export async function transferOwnership(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof transferOwnershipInput>,
): Promise<{ message: string }> {
  return changeOrganization(db, actor, async (tx, change) => {
    const roles = await rolesIn(tx, actor.organizationId, [actor.userId, input.user_id]);
    await assertMay(tx, actor, roles.get(actor.userId));
    if (input.user_id === actor.userId) {
      throw badRequest('Ownership cannot be handed to yourself: name another member', [
        { field: 'user_id', problem: 'Must be another member of the organization' },
      ]);
    }
    const previousRole = roles.get(input.user_id);
    if (!previousRole) throw notFound('The user is not a member of this organization');
    if (previousRole !== 'owner') setRoleAndExpiry(tx, actor.organizationId, input.user_id, 'owner', null);
    setRole(tx, actor.organizationId, actor.userId, 'admin');
    await appendEvent(tx, change, {
      type: 'ownership.transferred',
      actorUserId: actor.userId,
      subjectUserId: input.user_id,
      data: { previous_owner_user_id: actor.userId, new_owner_previous_role: previousRole },
    });
    return { message: 'Ownership transferred' };
  });
}
