/**
 * Memberships of users in organizations (behaviour §4.3, behaviour §3.2 and 4). Every change takes
 * the organization first (organization-changes.ts), reads the roles it depends on under that lock,
 * and records its event in the same transaction.
 */
import type { z } from 'zod';
import type { membershipOutput, Role } from '../../../shared/fields.ts';
import type {
  addMemberInput,
  changeRoleInput,
  Member,
  MemberListItem,
  removeMemberInput,
} from '../../../shared/members.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { appendEvent, changeOrganization } from '../../platform/organization-changes.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import { pagedList, replaceInPlace, toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import {
  actorMembership,
  assertCanChange,
  assertKeepsAnOwner,
  assertMay,
  assertMayGive,
  assertMember,
  roleInOrganization,
  type OrganizationActor,
} from '../../platform/access.ts';
import { isoTimestamp, listTimestamp } from '../../platform/database/timestamps.ts';
import type { Db, Reader, Tx } from '../../platform/database/transaction.ts';

const notAMember = () => notFound('The user is not a member of this organization');
const alreadyMember = () => conflict('The user is already a member of this organization');

const actorAndTarget = prepare((sql, organizationId: string, actorUserId: string, targetUserId: string) =>
  actorMembership(sql, organizationId, actorUserId)
    .leftJoin('organization_users as t', (join) =>
      join.onRef('t.organization_id', '=', 'a.organization_id').on('t.user_id', '=', targetUserId),
    )
    .select(['a.role as actor_role', 't.role as target_role']),
);

/**
 * The actor's role and the target's, read together (one row; the same one when the target is the
 * actor): under the organization's lock for a change, outside any transaction for a permission check.
 */
export async function actorAndTargetRoles(reader: Reader, actor: OrganizationActor, targetUserId: string) {
  const row = await reader.first(actorAndTarget(reader.sql, actor.organizationId, actor.userId, targetUserId));
  return { actorRole: row?.actor_role, targetRole: row?.target_role ?? undefined };
}

/** Owners left, counted only where the change could take away the last one. */
export async function ownersLeft(tx: Tx, organizationId: string, targetRole: Role): Promise<number> {
  if (targetRole !== 'owner') return Number.POSITIVE_INFINITY;
  const row = await tx.first(
    tx.sql
      .selectFrom('organization_users')
      .select((eb) => eb.fn.countAll<number | string>().as('owners'))
      .where('organization_id', '=', organizationId)
      .where('role', '=', 'owner'),
  );
  return Number(row?.owners ?? 0);
}

const membershipInsert = prepare((sql, organizationId: string, userId: string, role: Role, now: DbTimestamp) =>
  sql.insertInto('organization_users').values({
    organization_id: organizationId,
    user_id: userId,
    role,
    created_at: now,
    updated_at: now,
  }),
);

/** Queues the insert of a membership (the caller holds the organization's lock). */
export function insertMembership(tx: Tx, organizationId: string, userId: string, role: Role): void {
  tx.later(membershipInsert(tx.sql, organizationId, userId, role, tx.timestamp()));
}

/** What adding a member decides on: the actor's role, the user with the e-mail, and whether they are in. */
const actorAndUserByEmail = prepare((sql, organizationId: string, actorUserId: string, email: string) =>
  actorMembership(sql, organizationId, actorUserId)
    .leftJoin('users as u', (join) => join.on('u.email', '=', email))
    .leftJoin('organization_users as m', (join) =>
      join.onRef('m.organization_id', '=', 'a.organization_id').onRef('m.user_id', '=', 'u.id'),
    )
    .select(['a.role as actor_role', 'u.id as user_id', 'm.role as member_role']),
);

const roleUpdate = prepare((sql, organizationId: string, userId: string, role: Role, now: DbTimestamp) =>
  sql
    .updateTable('organization_users')
    .set({ role, updated_at: now })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId),
);

/** Queues a change of a member's role (the caller holds the organization's lock). */
export function setRole(tx: Tx, organizationId: string, userId: string, role: Role): void {
  tx.later(roleUpdate(tx.sql, organizationId, userId, role, tx.timestamp()));
}

const membershipDelete = prepare((sql, organizationId: string, userId: string) =>
  sql.deleteFrom('organization_users').where('organization_id', '=', organizationId).where('user_id', '=', userId),
);

const memberWithActor = prepare((sql, organizationId: string, actorUserId: string, userId: string) =>
  actorMembership(sql, organizationId, actorUserId)
    .leftJoin('organization_users as m', (join) =>
      join.onRef('m.organization_id', '=', 'a.organization_id').on('m.user_id', '=', userId),
    )
    .leftJoin('users as u', 'u.id', 'm.user_id')
    .select([
      'a.role as actor_role',
      'u.id as user_id',
      'u.first_name',
      'u.last_name',
      'u.email',
      'm.role',
      'm.created_at',
      'm.updated_at',
    ]),
);

export async function addMember(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof addMemberInput>,
): Promise<z.infer<typeof membershipOutput>> {
  try {
    return await changeOrganization(db, actor, async (tx, change) => {
      const row = await tx.first(actorAndUserByEmail(tx.sql, actor.organizationId, actor.userId, input.email));
      assertMember(row?.actor_role);
      const held = await assertMay(tx, actor, row.actor_role);
      assertCanChange(row.actor_role, undefined, input.role);
      await assertMayGive(tx, actor, held, input.role);
      if (!row.user_id) throw notFound('No user has this e-mail address');
      if (row.member_role) throw alreadyMember();
      insertMembership(tx, actor.organizationId, row.user_id, input.role);
      await appendEvent(tx, change, {
        type: 'member.added',
        actorUserId: actor.userId,
        subjectUserId: row.user_id,
        data: { role: input.role },
      });
      return { organization_id: actor.organizationId, user_id: row.user_id, role: input.role };
    });
  } catch (error) {
    // Defence in depth: the organization lock already keeps two adds of one user apart.
    if (db.isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
}

/** Changes a member's role; setting the role a member already has changes nothing and records no event. */
export async function changeRole(db: Db, actor: OrganizationActor, input: z.infer<typeof changeRoleInput>) {
  await changeOrganization(db, actor, async (tx, change) => {
    const { actorRole, targetRole } = await actorAndTargetRoles(tx, actor, input.user_id);
    assertMember(actorRole);
    const held = await assertMay(tx, actor, actorRole);
    if (!targetRole) throw notAMember();
    assertCanChange(actorRole, targetRole, input.role);
    if (targetRole === input.role) return;
    await assertMayGive(tx, actor, held, input.role);
    assertKeepsAnOwner(targetRole, input.role, await ownersLeft(tx, actor.organizationId, targetRole));
    setRole(tx, actor.organizationId, input.user_id, input.role);
    await appendEvent(tx, change, {
      type: 'member.role_changed',
      actorUserId: actor.userId,
      subjectUserId: input.user_id,
      data: { from: targetRole, to: input.role },
    });
  });
}

/**
 * Removes a member. Any member may remove themselves, whatever their role (leaving, behaviour §3.2);
 * the last owner may not, in either case.
 */
export async function removeMember(db: Db, actor: OrganizationActor, input: z.infer<typeof removeMemberInput>) {
  await changeOrganization(db, actor, async (tx, change) => {
    const { actorRole, targetRole } = await actorAndTargetRoles(tx, actor, input.user_id);
    const leaving = input.user_id === actor.userId;
    // Leaving needs no permission: any member may (behaviour §3.2).
    assertMember(actorRole);
    if (!leaving) await assertMay(tx, actor, actorRole);
    if (!targetRole) throw notAMember();
    if (!leaving) assertCanChange(actorRole, targetRole, undefined);
    assertKeepsAnOwner(targetRole, undefined, await ownersLeft(tx, actor.organizationId, targetRole));
    tx.later(membershipDelete(tx.sql, actor.organizationId, input.user_id));
    await appendEvent(tx, change, {
      type: leaving ? 'member.left' : 'member.removed',
      actorUserId: actor.userId,
      subjectUserId: input.user_id,
      data: { role: targetRole },
    });
  });
}

/**
 * One member, read for an actor whose role is checked by the same query: no row means the actor is
 * not a member (403), a row without a member means the target is not one (404).
 */
export async function getMember(db: Db, actor: OrganizationActor, userId: string): Promise<Member> {
  const row = await db.first(memberWithActor(db.sql, actor.organizationId, actor.userId, userId));
  assertMember(row?.actor_role);
  await assertMay(db, actor, row.actor_role);
  if (!row.user_id || !row.role || !row.created_at || !row.updated_at) throw notAMember();
  return {
    organization_id: actor.organizationId,
    user_id: row.user_id,
    role: row.role,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
    first_name: row.first_name ?? '',
    last_name: row.last_name ?? '',
    email: row.email ?? '',
  };
}

const memberListRows = pagedList(
  (sql: Sql, organizationId: string, actorUserId: string) =>
    sql
      .selectFrom('organization_users as m')
      .innerJoin('organization_users as a', (join) =>
        join.onRef('a.organization_id', '=', 'm.organization_id').on('a.user_id', '=', actorUserId),
      )
      .innerJoin('users as u', 'u.id', 'm.user_id')
      // The member list item's fields, in its order: each row becomes the item in place.
      .select(['u.id as user_id', 'u.first_name', 'u.last_name', 'm.role', 'u.email', 'm.created_at'])
      .where('m.organization_id', '=', organizationId),
  { createdAt: 'm.created_at', id: 'm.user_id' },
);

/**
 * Members ordered by membership `created_at`, then `user_id` (behaviour §4): one page or all of them,
 * for any member (behaviour §3.2). The query joins the actor's own membership, so a non-member gets
 * no rows; only then is the role read, to tell a non-member (403) from a page past the end.
 */
export async function listMembers(
  db: Db,
  actor: OrganizationActor,
  page: PageRequest = {},
): Promise<Page<MemberListItem>> {
  const rows = await memberListRows(db, db.dialect, page, actor.organizationId, actor.userId);
  if (rows.length === 0) await assertMay(db, actor, await roleInOrganization(db, actor.organizationId, actor.userId));
  return toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.user_id }),
    (row): MemberListItem => replaceInPlace(row, 'created_at', listTimestamp(row.created_at)),
  );
}
