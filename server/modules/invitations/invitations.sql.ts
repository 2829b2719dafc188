/**
 * Invitations (behaviour §8): an owner or admin invites an e-mail address, which need not belong to a
 * user yet; the user who later holds that address accepts or declines. Every change to an
 * invitation takes its organization first (organization-changes.ts), like every membership change,
 * so an acceptance and a revocation, or two acceptances, run one after the other and the second
 * finds the invitation no longer pending.
 *
 * Expiry is read, never written: an invitation past `expires_at` keeps the status `pending` in the
 * database (the contract has no `expired` status), is listed nowhere and is answered 410 like one
 * that was accepted, declined or revoked.
 *
 * An invitation may offer a membership that expires (`membership_expires_at`, behaviour §11); it
 * cannot be accepted once that moment has passed (410), since it would make no membership.
 */
import type { z } from 'zod';
import type { createInvitationInput, InvitationView } from '../../../shared/invitations.ts';
import type { membershipOutput, Role } from '../../../shared/fields.ts';
import type { Caller } from '../../platform/auth/tokens.ts';
import { conflict, forbidden, gone, notFound } from '../../platform/errors.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import { newId } from '../../platform/database/ids.ts';
import {
  assertOwnerDoesNotExpire,
  insertMembership,
  removeLapsedMembership,
  type LapsedMembership,
} from '../members/members.sql.ts';
import {
  appendEvent,
  changeOrganization,
  organizationWithActor,
  takeOrganization,
  type OrganizationChange,
} from '../../platform/organization-changes.ts';
import { noUserRecord } from '../users/users.sql.ts';
import {
  assertCanChange,
  assertMay,
  assertMayAndGetHeld,
  assertMayGive,
  assertMember,
  lapsed,
  notInOrganization,
  unexpired,
  type OrganizationActor,
} from '../../platform/access.ts';
import { isoTimestamp, isoTimestampOrNull, toDate } from '../../platform/database/timestamps.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';

const HOUR_MS = 60 * 60 * 1000;

const unknownInvitation = () => notFound('No such invitation');
const alreadyMember = () => conflict('You are a member of this organization already');

type InvitationStatus = InvitationView['status'];

/** The invitation as stored, with its organization's name. */
interface InvitationRow {
  id: string;
  organization_id: string;
  organization_name: string;
  email: string;
  role: Role;
  status: InvitationStatus;
  invited_by: string;
  created_at: DbTimestamp;
  expires_at: DbTimestamp;
  membership_expires_at: DbTimestamp | null;
}

const toView = (row: InvitationRow): InvitationView => ({
  invitation_id: row.id,
  organization_id: row.organization_id,
  organization_name: row.organization_name,
  email: row.email,
  role: row.role,
  status: row.status,
  invited_by: row.invited_by,
  created_at: isoTimestamp(row.created_at),
  expires_at: isoTimestamp(row.expires_at),
  membership_expires_at: isoTimestampOrNull(row.membership_expires_at),
});

/** Pending and not yet expired at `now`, else 410. */
function assertOpen(row: Pick<InvitationRow, 'status' | 'expires_at'>, now: Date): void {
  if (row.status !== 'pending') throw gone(`The invitation was ${row.status} already`);
  if (toDate(row.expires_at) <= now) throw gone('The invitation has expired');
}

/** An invitation's columns as its view needs them (`i`: invitations, `o`: its organization). */
const INVITATION_COLUMNS = [
  'i.id',
  'i.organization_id',
  'o.name as organization_name',
  'i.email',
  'i.role',
  'i.status',
  'i.invited_by',
  'i.created_at',
  'i.expires_at',
  'i.membership_expires_at',
] as const;

/** Pending, unexpired invitations with their organization's name, oldest first. */
function openInvitations(sql: Sql, now: DbTimestamp) {
  return sql
    .selectFrom('invitations as i')
    .innerJoin('organizations as o', 'o.id', 'i.organization_id')
    .select(INVITATION_COLUMNS)
    .where('i.status', '=', 'pending')
    .where('i.expires_at', '>', now)
    .orderBy('i.created_at')
    .orderBy('i.id');
}

/**
 * Invites `email` to the actor's organization with `role` (owner or admin; an owner invitation,
 * owner only). 409 when the address belongs to a member already or has an open invitation here.
 */
export async function createInvitation(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof createInvitationInput>,
  ttlHours: number,
): Promise<InvitationView> {
  return changeOrganization(db, actor, async (tx, change) => {
    const row = await tx.first(
      organizationWithActor(tx, actor)
        .leftJoin('users as u', (join) => join.on('u.email', '=', input.email))
        .leftJoin('organization_users as m', (join) =>
          join
            .onRef('m.organization_id', '=', 'o.id')
            .onRef('m.user_id', '=', 'u.id')
            .on(unexpired('m', tx.timestamp())),
        )
        .select(['o.name', 'a.role as actor_role', 'u.id as invitee_user_id', 'm.role as member_role']),
    );
    if (!row) throw notInOrganization();
    assertMember(row.actor_role);
    const held = await assertMayAndGetHeld(tx, actor, row.actor_role);
    assertCanChange(row.actor_role, undefined, input.role);
    await assertMayGive(tx, actor, held, input.role);
    const membershipExpiresAt = input.expires_at ?? null;
    assertOwnerDoesNotExpire(input.role, membershipExpiresAt);
    if (row.member_role) throw conflict('The user with this e-mail address is a member of this organization already');
    const open = await tx.first(
      tx.sql
        .selectFrom('invitations')
        .select('id')
        .where('organization_id', '=', actor.organizationId)
        .where('email', '=', input.email)
        .where('status', '=', 'pending')
        .where('expires_at', '>', tx.timestamp()),
    );
    if (open) throw conflict('This e-mail address has a pending invitation to this organization already');

    const invitation = {
      id: newId(tx.now.getTime()),
      organization_id: actor.organizationId,
      email: input.email,
      role: input.role,
      status: 'pending' as const,
      invited_by: actor.userId,
      created_at: tx.timestamp(),
      expires_at: tx.timestamp(new Date(tx.now.getTime() + ttlHours * HOUR_MS)),
      membership_expires_at: membershipExpiresAt === null ? null : tx.timestamp(new Date(membershipExpiresAt)),
    };
    tx.later(tx.sql.insertInto('invitations').values({ ...invitation, updated_at: tx.timestamp() }));
    await appendEvent(tx, change, {
      type: 'invitation.created',
      actorUserId: actor.userId,
      subjectUserId: row.invitee_user_id,
      data: {
        invitation_id: invitation.id,
        email: invitation.email,
        role: invitation.role,
        ...(membershipExpiresAt !== null && { membership_expires_at: membershipExpiresAt }),
      },
    });
    return toView({ ...invitation, organization_name: row.name });
  });
}

/** The organization's open invitations, oldest first (the caller's role is checked by its procedure). */
export async function listOrganizationInvitations(db: Db, organizationId: string): Promise<InvitationView[]> {
  const rows = await openInvitations(db.sql, db.timestamp(new Date()))
    .where('i.organization_id', '=', organizationId)
    .execute();
  return rows.map(toView);
}

/** The caller's open invitations (to their user record's e-mail), oldest first; 404 without a record. */
export async function listMyInvitations(db: Db, caller: Caller): Promise<InvitationView[]> {
  const user = await db.sql.selectFrom('users').select('email').where('id', '=', caller.userId).executeTakeFirst();
  if (!user) throw noUserRecord();
  const rows = await openInvitations(db.sql, db.timestamp(new Date())).where('i.email', '=', user.email).execute();
  return rows.map(toView);
}

const setStatus = (tx: Tx, invitationId: string, status: InvitationStatus) =>
  tx.later(
    tx.sql.updateTable('invitations').set({ status, updated_at: tx.timestamp() }).where('id', '=', invitationId),
  );

/**
 * Revokes an open invitation of the actor's organization (owner or admin; an owner invitation,
 * owner only). An invitation of another organization is unknown here: 404.
 */
export async function revokeInvitation(
  db: Db,
  actor: OrganizationActor,
  invitationId: string,
): Promise<{ message: string }> {
  return changeOrganization(db, actor, async (tx, change) => {
    const row = await tx.first(
      organizationWithActor(tx, actor)
        .leftJoin('invitations as i', (join) =>
          join.onRef('i.organization_id', '=', 'o.id').on('i.id', '=', invitationId),
        )
        .leftJoin('users as u', 'u.email', 'i.email')
        .select(['a.role as actor_role', 'i.email', 'i.role', 'i.status', 'i.expires_at', 'u.id as invitee_user_id']),
    );
    if (!row) throw notInOrganization();
    const actorRole = row.actor_role ?? undefined;
    await assertMay(tx, actor, actorRole);
    const { email, role, status, expires_at } = row;
    if (email === null || role === null || status === null || expires_at === null) throw unknownInvitation();
    if (role === 'owner' && actorRole !== 'owner') throw forbidden('Only an owner may revoke an owner invitation');
    assertOpen({ status, expires_at }, tx.now);
    setStatus(tx, invitationId, 'revoked');
    await appendEvent(tx, change, {
      type: 'invitation.revoked',
      actorUserId: actor.userId,
      subjectUserId: row.invitee_user_id,
      data: { invitation_id: invitationId, email, role },
    });
    return { message: 'Invitation revoked' };
  });
}

/** An open invitation addressed to the caller, read under its organization's lock. */
interface AddressedInvitation {
  row: InvitationRow;
  /** The caller's role in the organization, if they are a member already. */
  memberRole: Role | undefined;
  /** The caller's membership that expired and is still stored, if any. */
  lapsedMembership: LapsedMembership | undefined;
}

/**
 * Runs the invitee's answer in one transaction that takes the invitation's organization first,
 * after checking, under that lock: the invitation exists (404), the caller has a user record (404)
 * whose e-mail is the invitation's (403), and it is still open (410).
 */
async function answerInvitation<T>(
  db: Db,
  caller: Caller,
  invitationId: string,
  work: (tx: Tx, change: OrganizationChange, invitation: AddressedInvitation) => Promise<T>,
): Promise<T> {
  // Only to know which organization to take; everything that decides is read again under its lock.
  const located = await db.sql
    .selectFrom('invitations')
    .select('organization_id')
    .where('id', '=', invitationId)
    .executeTakeFirst();
  if (!located) throw unknownInvitation();
  const organizationId = located.organization_id;
  return db.transaction(
    async (tx) => {
      // Deleted meanwhile, and its invitations with it: unknown.
      const change = takeOrganization(tx, organizationId, unknownInvitation);
      const now = tx.timestamp();
      const found = await tx.first(
        tx.sql
          .selectFrom('invitations as i')
          .innerJoin('organizations as o', 'o.id', 'i.organization_id')
          .leftJoin('users as u', (join) => join.on('u.id', '=', caller.userId))
          .leftJoin('organization_users as m', (join) =>
            join
              .onRef('m.organization_id', '=', 'i.organization_id')
              .on('m.user_id', '=', caller.userId)
              .on(unexpired('m', now)),
          )
          .leftJoin('organization_users as x', (join) =>
            join
              .onRef('x.organization_id', '=', 'i.organization_id')
              .on('x.user_id', '=', caller.userId)
              .on(lapsed('x', now)),
          )
          .select([
            ...INVITATION_COLUMNS,
            'u.email as caller_email',
            'm.role as member_role',
            'x.role as lapsed_role',
            'x.expires_at as lapsed_expires_at',
          ])
          .where('i.id', '=', invitationId),
      );
      if (!found) throw unknownInvitation();
      const { caller_email, member_role, lapsed_role, lapsed_expires_at, ...row } = found;
      if (caller_email === null) throw noUserRecord();
      if (caller_email !== row.email) throw forbidden('This invitation is addressed to another e-mail address');
      assertOpen(row, tx.now);
      const lapsedMembership =
        lapsed_role === null || lapsed_expires_at === null
          ? undefined
          : { userId: caller.userId, role: lapsed_role, expiresAt: lapsed_expires_at };
      return work(tx, change, { row, memberRole: member_role ?? undefined, lapsedMembership });
    },
    { organizationId },
  );
}

/**
 * Accepts an open invitation addressed to the caller: the membership is made in the same
 * transaction. The one event is `invitation.accepted` (it names the role and the new member); no
 * separate `member.added` is recorded. 409 when the caller is a member already; the invitation then
 * stays pending. A membership of the caller's that expired and is still stored is removed first,
 * recorded as `member.expired`.
 */
export async function acceptInvitation(
  db: Db,
  caller: Caller,
  invitationId: string,
): Promise<z.infer<typeof membershipOutput>> {
  try {
    return await answerInvitation(db, caller, invitationId, async (tx, change, invitation) => {
      const { row, memberRole, lapsedMembership } = invitation;
      if (memberRole) throw alreadyMember();
      const expiresAt = isoTimestampOrNull(row.membership_expires_at);
      if (expiresAt !== null && new Date(expiresAt) <= tx.now) {
        throw gone('The membership this invitation offers has expired');
      }
      if (lapsedMembership) await removeLapsedMembership(tx, change, lapsedMembership);
      setStatus(tx, invitationId, 'accepted');
      insertMembership(tx, row.organization_id, caller.userId, row.role, expiresAt);
      await appendEvent(tx, change, {
        type: 'invitation.accepted',
        actorUserId: caller.userId,
        subjectUserId: caller.userId,
        data: { invitation_id: invitationId, role: row.role, ...(expiresAt !== null && { expires_at: expiresAt }) },
      });
      return { organization_id: row.organization_id, user_id: caller.userId, role: row.role };
    });
  } catch (error) {
    // Defence in depth: the organization's lock already keeps two acceptances apart.
    if (db.isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
}

/** Declines an open invitation addressed to the caller. */
export async function declineInvitation(db: Db, caller: Caller, invitationId: string): Promise<{ message: string }> {
  return answerInvitation(db, caller, invitationId, async (tx, change, { row }) => {
    setStatus(tx, invitationId, 'declined');
    await appendEvent(tx, change, {
      type: 'invitation.declined',
      actorUserId: caller.userId,
      subjectUserId: caller.userId,
      data: { invitation_id: invitationId, email: row.email, role: row.role },
    });
    return { message: 'Invitation declined' };
  });
}
