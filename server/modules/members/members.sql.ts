/**
 * Memberships of users in organizations (behaviour §4.3, behaviour §3.2 and 4). Every change takes
 * the organization first (organization-changes.ts), reads the roles it depends on under that lock,
 * and records its event in the same transaction.
 *
 * A membership may expire (behaviour §11): from its `expires_at` on, every read treats it as none
 * (access.ts, `unexpired`). Its row stays until the sweep (expiry-sweep.ts) removes it, or until the
 * user is made a member again, which removes it first: both record `member.expired`.
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
import { badRequest, conflict, notFound } from '../../platform/errors.ts';
import { appendEvent, changeOrganization, type OrganizationChange } from '../../platform/organization-changes.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import { pagedList, replaceInPlace, toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import {
  actorMembership,
  assertCanChange,
  assertKeepsAnOwner,
  assertMay,
  assertMayAndGetHeld,
  assertMayGive,
  assertMember,
  lapsed,
  nowFor,
  roleInOrganization,
  unexpired,
  type ClockedReader,
  type OrganizationActor,
} from '../../platform/access.ts';
import {
  isoTimestamp,
  isoTimestampOrNull,
  listTimestamp,
  type StoredTimestamp,
} from '../../platform/database/timestamps.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';
import { recordLeavingTeams } from '../teams/teams.sql.ts';

const notAMember = () => notFound('The user is not a member of this organization');
const alreadyMember = () => conflict('The user is already a member of this organization');

const actorAndTarget = prepare(
  (sql, organizationId: string, actorUserId: string, targetUserId: string, now: DbTimestamp) =>
    actorMembership(sql, organizationId, actorUserId, now)
      .leftJoin('organization_users as t', (join) =>
        join
          .onRef('t.organization_id', '=', 'a.organization_id')
          .on('t.user_id', '=', targetUserId)
          .on(unexpired('t', now)),
      )
      .select(['a.role as actor_role', 't.role as target_role', 't.expires_at as target_expires_at']),
);

/**
 * The actor's role and the target's, with when the target's membership expires, read together (one
 * row; the same one when the target is the actor): under the organization's lock for a change.
 */
async function actorAndTargetRoles(reader: ClockedReader, actor: OrganizationActor, targetUserId: string) {
  const row = await reader.first(
    actorAndTarget(reader.sql, actor.organizationId, actor.userId, targetUserId, nowFor(reader)),
  );
  return {
    actorRole: row?.actor_role,
    targetRole: row?.target_role ?? undefined,
    targetExpiresAt: isoTimestampOrNull(row?.target_expires_at),
  };
}

/** Owners left, counted only where the change could take away the last one. */
export async function ownersLeft(tx: Tx, organizationId: string, targetRole: Role): Promise<number> {
  if (targetRole !== 'owner') return Number.POSITIVE_INFINITY;
  const row = await tx.first(
    tx.sql
      .selectFrom('organization_users as m')
      .select((eb) => eb.fn.countAll<number | string>().as('owners'))
      .where('m.organization_id', '=', organizationId)
      .where('m.role', '=', 'owner')
      .where(unexpired('m', tx.timestamp())),
  );
  return Number(row?.owners ?? 0);
}

/** An ISO expiry (or none) as the database stores it. */
const storedExpiry = (tx: Tx, expiresAt: string | null): DbTimestamp | null =>
  expiresAt === null ? null : tx.timestamp(new Date(expiresAt));

const membershipInsert = prepare(
  (sql, organizationId: string, userId: string, role: Role, now: DbTimestamp, expiresAt: DbTimestamp | null) =>
    sql.insertInto('organization_users').values({
      organization_id: organizationId,
      user_id: userId,
      role,
      created_at: now,
      updated_at: now,
      expires_at: expiresAt,
    }),
);

/**
 * Queues the insert of a membership that expires at `expiresAt` (ISO; null: never), the caller
 * holding the organization's lock.
 */
export function insertMembership(
  tx: Tx,
  organizationId: string,
  userId: string,
  role: Role,
  expiresAt: string | null,
): void {
  tx.later(membershipInsert(tx.sql, organizationId, userId, role, tx.timestamp(), storedExpiry(tx, expiresAt)));
}

/**
 * What adding a member decides on: the actor's role, the user with the e-mail, and their current
 * membership (`m`) or the expired one still stored (`x`).
 */
const actorAndUserByEmail = prepare(
  (sql, organizationId: string, actorUserId: string, email: string, now: DbTimestamp) =>
    actorMembership(sql, organizationId, actorUserId, now)
      .leftJoin('users as u', (join) => join.on('u.email', '=', email))
      .leftJoin('organization_users as m', (join) =>
        join
          .onRef('m.organization_id', '=', 'a.organization_id')
          .onRef('m.user_id', '=', 'u.id')
          .on(unexpired('m', now)),
      )
      .leftJoin('organization_users as x', (join) =>
        join.onRef('x.organization_id', '=', 'a.organization_id').onRef('x.user_id', '=', 'u.id').on(lapsed('x', now)),
      )
      .select([
        'a.role as actor_role',
        'u.id as user_id',
        'm.role as member_role',
        'x.role as lapsed_role',
        'x.expires_at as lapsed_expires_at',
      ]),
);

const roleUpdate = prepare((sql, organizationId: string, userId: string, role: Role, now: DbTimestamp) =>
  sql
    .updateTable('organization_users')
    .set({ role, updated_at: now })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId),
);

/** Queues a change of a member's role, its expiry left as it is (the caller holds the organization's lock). */
export function setRole(tx: Tx, organizationId: string, userId: string, role: Role): void {
  tx.later(roleUpdate(tx.sql, organizationId, userId, role, tx.timestamp()));
}

const roleAndExpiryUpdate = prepare(
  (sql, organizationId: string, userId: string, role: Role, now: DbTimestamp, expiresAt: DbTimestamp | null) =>
    sql
      .updateTable('organization_users')
      .set({ role, updated_at: now, expires_at: expiresAt })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId),
);

/**
 * Queues a change of a member's role and expiry (ISO; null: never), the caller holding the
 * organization's lock.
 */
export function setRoleAndExpiry(
  tx: Tx,
  organizationId: string,
  userId: string,
  role: Role,
  expiresAt: string | null,
): void {
  tx.later(roleAndExpiryUpdate(tx.sql, organizationId, userId, role, tx.timestamp(), storedExpiry(tx, expiresAt)));
}

const membershipDelete = prepare((sql, organizationId: string, userId: string) =>
  sql.deleteFrom('organization_users').where('organization_id', '=', organizationId).where('user_id', '=', userId),
);

/** A membership that expired and whose row is still stored. */
export interface LapsedMembership {
  userId: string;
  role: Role;
  expiresAt: StoredTimestamp;
}

/**
 * Removes a membership that expired (behaviour §11), in the change that took its organization, and
 * records `member.expired`. Its actor is the member themselves: nobody removed them, their
 * membership ended at the time it was given, and the trail names no one else for it.
 */
export async function removeLapsedMembership(
  tx: Tx,
  change: OrganizationChange,
  { userId, role, expiresAt }: LapsedMembership,
): Promise<void> {
  await recordLeavingTeams(tx, change, userId, userId);
  tx.later(membershipDelete(tx.sql, change.organizationId, userId));
  await appendEvent(tx, change, {
    type: 'member.expired',
    actorUserId: userId,
    subjectUserId: userId,
    data: { role, expires_at: isoTimestamp(expiresAt) },
  });
}

/**
 * An owner's membership never expires (behaviour §11), so that no expiry can take an organization's
 * last owner away: giving `owner` with an expiry is refused.
 */
export function assertOwnerDoesNotExpire(role: Role, expiresAt: string | null | undefined): void {
  if (role === 'owner' && expiresAt != null) {
    throw badRequest("An owner's membership cannot expire", [
      { field: 'expires_at', problem: 'Must be absent or null for the role owner' },
    ]);
  }
}

const memberWithActor = prepare((sql, organizationId: string, actorUserId: string, userId: string, now: DbTimestamp) =>
  actorMembership(sql, organizationId, actorUserId, now)
    .leftJoin('organization_users as m', (join) =>
      join.onRef('m.organization_id', '=', 'a.organization_id').on('m.user_id', '=', userId).on(unexpired('m', now)),
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
      'm.expires_at',
    ]),
);

export async function addMember(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof addMemberInput>,
): Promise<z.infer<typeof membershipOutput>> {
  const expiresAt = input.expires_at ?? null;
  try {
    return await changeOrganization(db, actor, async (tx, change) => {
      const row = await tx.first(
        actorAndUserByEmail(tx.sql, actor.organizationId, actor.userId, input.email, tx.timestamp()),
      );
      assertMember(row?.actor_role);
      const held = await assertMayAndGetHeld(tx, actor, row.actor_role);
      assertCanChange(row.actor_role, undefined, input.role);
      await assertMayGive(tx, actor, held, input.role);
      assertOwnerDoesNotExpire(input.role, expiresAt);
      if (!row.user_id) throw notFound('No user has this e-mail address');
      if (row.member_role) throw alreadyMember();
      if (row.lapsed_role !== null && row.lapsed_expires_at !== null) {
        const lapsedMembership = { userId: row.user_id, role: row.lapsed_role, expiresAt: row.lapsed_expires_at };
        await removeLapsedMembership(tx, change, lapsedMembership);
      }
      insertMembership(tx, actor.organizationId, row.user_id, input.role, expiresAt);
      await appendEvent(tx, change, {
        type: 'member.added',
        actorUserId: actor.userId,
        subjectUserId: row.user_id,
        data: { role: input.role, ...(expiresAt !== null && { expires_at: expiresAt }) },
      });
      return { organization_id: actor.organizationId, user_id: row.user_id, role: input.role };
    });
  } catch (error) {
    // Defence in depth: the organization lock already keeps two adds of one user apart.
    if (db.isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
}

/**
 * Changes a member's role and, when `expires_at` is given, their membership's expiry (null: it no
 * longer expires). Setting what a member has already changes nothing and records no event. Making
 * a member whose membership expires an owner needs `expires_at: null` (behaviour §11).
 */
export async function changeRole(db: Db, actor: OrganizationActor, input: z.infer<typeof changeRoleInput>) {
  await changeOrganization(db, actor, async (tx, change) => {
    const { actorRole, targetRole, targetExpiresAt } = await actorAndTargetRoles(tx, actor, input.user_id);
    assertMember(actorRole);
    const held = await assertMayAndGetHeld(tx, actor, actorRole);
    if (!targetRole) throw notAMember();
    assertCanChange(actorRole, targetRole, input.role);
    assertOwnerDoesNotExpire(input.role, input.expires_at);
    const expiresAt = input.expires_at === undefined ? targetExpiresAt : input.expires_at;
    if (input.role === 'owner' && expiresAt !== null) {
      throw badRequest('The membership expires: send expires_at null to make the member an owner', [
        { field: 'expires_at', problem: 'Must be null to make a member whose membership expires an owner' },
      ]);
    }
    const expiryChanged = expiresAt !== targetExpiresAt;
    if (targetRole === input.role && !expiryChanged) return;
    // Giving a role for longer is giving it too: an expiry's change needs the role's permissions.
    await assertMayGive(tx, actor, held, input.role);
    assertKeepsAnOwner(targetRole, input.role, await ownersLeft(tx, actor.organizationId, targetRole));
    setRoleAndExpiry(tx, actor.organizationId, input.user_id, input.role, expiresAt);
    await appendEvent(tx, change, {
      type: 'member.role_changed',
      actorUserId: actor.userId,
      subjectUserId: input.user_id,
      data: {
        from: targetRole,
        to: input.role,
        ...(expiryChanged && { expires_at: { from: targetExpiresAt, to: expiresAt } }),
      },
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
    await recordLeavingTeams(tx, change, actor.userId, input.user_id);
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
  const row = await db.first(memberWithActor(db.sql, actor.organizationId, actor.userId, userId, nowFor(db)));
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
    expires_at: isoTimestampOrNull(row.expires_at),
  };
}

const memberListRows = pagedList(
  (sql: Sql, organizationId: string, actorUserId: string, now: DbTimestamp) =>
    sql
      .selectFrom('organization_users as m')
      .innerJoin('organization_users as a', (join) =>
        join
          .onRef('a.organization_id', '=', 'm.organization_id')
          .on('a.user_id', '=', actorUserId)
          .on(unexpired('a', now)),
      )
      .innerJoin('users as u', 'u.id', 'm.user_id')
      // The member list item's fields, in its order: each row becomes the item in place.
      .select(['u.id as user_id', 'u.first_name', 'u.last_name', 'm.role', 'u.email', 'm.created_at', 'm.expires_at'])
      .where('m.organization_id', '=', organizationId)
      .where(unexpired('m', now)),
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
  const rows = await memberListRows(db, db.dialect, page, actor.organizationId, actor.userId, nowFor(db));
  if (rows.length === 0) await assertMay(db, actor, await roleInOrganization(db, actor.organizationId, actor.userId));
  return toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.user_id }),
    (row): MemberListItem =>
      replaceInPlace(
        replaceInPlace(row, 'created_at', listTimestamp(row.created_at)),
        'expires_at',
        isoTimestampOrNull(row.expires_at),
      ),
  );
}
