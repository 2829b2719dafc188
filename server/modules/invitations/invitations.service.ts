/**
 * Invitations (behaviour §8): an owner or admin invites an e-mail address, which need not belong to
 * a user yet; the user who later holds that address accepts or declines. Every change to an
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
import type { membershipOutput } from '../../../shared/fields.ts';
import type { createInvitationInput, InvitationView } from '../../../shared/invitations.ts';
import type { PersonCaller } from '../../platform/auth/tokens.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { assertCanChange, assertMayGive } from '../../platform/authorization/rules.ts';
import { newId } from '../../platform/database/ids.ts';
import { isoTimestamp, isoTimestampOrNull, toDate } from '../../platform/database/timestamps.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';
import { conflict, forbidden, gone, notFound } from '../../platform/errors.ts';
import {
  appendEvent,
  personActor,
  takeOrganization,
  type OrganizationChange,
} from '../../platform/organization-changes.ts';
import {
  assertOwnerDoesNotExpire,
  assertSeatFor,
  insertMembership,
  removeLapsedMembership,
  seatsOf,
  type LapsedMembership,
  type Seats,
} from '../members/members.service.ts';
import { lockUserWithEmail } from '../users/user-with-email.ts';
import { emailOfUser, noUserRecord } from '../users/users.service.ts';
import {
  insertInvitation,
  invitationForAnswer,
  invitationOf,
  invitationOrganization,
  openInvitationsOf,
  openInvitationsTo,
  openInvitationTo,
  organizationAndInvitee,
  setStatus,
  type InvitationRow,
} from './invitations.queries.ts';

/** For the roles domain: how many open invitations offer a role. */
export { openInvitationsWithRole } from './invitations.queries.ts';

const HOUR_MS = 60 * 60 * 1000;

const unknownInvitation = () => notFound('No such invitation');
const alreadyMember = () => conflict('You are a member of this organization already');

const toView = (row: InvitationRow): InvitationView => ({
  invitation_id: row.id,
  organization_id: row.organization_id,
  organization_name: row.organization_name,
  email: row.email,
  role: row.role,
  status: row.status,
  invited_by: row.invited_by,
  invited_by_key_id: row.invited_by_key_id,
  created_at: isoTimestamp(row.created_at),
  expires_at: isoTimestamp(row.expires_at),
  membership_expires_at: isoTimestampOrNull(row.membership_expires_at),
});

/** Pending and not yet expired at `now`, else 410. */
function assertOpen(row: Pick<InvitationRow, 'status' | 'expires_at'>, now: Date): void {
  if (row.status !== 'pending') throw gone(`The invitation was ${row.status} already`);
  if (toDate(row.expires_at) <= now) throw gone('The invitation has expired');
}

/**
 * Invites `email` to the organization with `role` (an owner invitation: owner only; no one invites
 * to a role holding what they do not hold). 409 when the address belongs to a member already or has
 * an open invitation here.
 */
export async function createInvitation(
  org: InOrganization,
  input: z.infer<typeof createInvitationInput>,
  ttlHours: number,
): Promise<InvitationView> {
  return org.change(async (tx, change) => {
    const seats = seatsOf(tx, org.organizationId);
    let invitee: string | null = null;
    lockUserWithEmail(tx, input.email, (userId) => (invitee = userId));
    const row = await organizationAndInvitee(tx, org.organizationId, input.email);
    const held = await change.held();
    const { actor } = change;
    assertCanChange(held.role, undefined, input.role);
    await assertMayGive(tx, org.access, held, input.role);
    const membershipExpiresAt = input.expires_at ?? null;
    assertOwnerDoesNotExpire(input.role, membershipExpiresAt);
    if (row?.member_role) throw conflict('The user with this e-mail address is a member of this organization already');
    if (await openInvitationTo(tx, org.organizationId, input.email)) {
      throw conflict('This e-mail address has a pending invitation to this organization already');
    }
    assertSeatFor(seats(), 'invitation');
    const invitation = {
      id: newId(tx.now.getTime()),
      organization_id: org.organizationId,
      email: input.email,
      role: input.role,
      status: 'pending' as const,
      invited_by: actor.userId,
      invited_by_key_id: actor.keyId,
      created_at: tx.timestamp(),
      expires_at: tx.timestamp(new Date(tx.now.getTime() + ttlHours * HOUR_MS)),
      membership_expires_at: membershipExpiresAt === null ? null : tx.timestamp(new Date(membershipExpiresAt)),
    };
    insertInvitation(tx, invitation);
    await appendEvent(tx, change, {
      type: 'invitation.created',
      subjectUserId: invitee,
      data: {
        invitation_id: invitation.id,
        email: invitation.email,
        role: invitation.role,
        ...(membershipExpiresAt !== null && { membership_expires_at: membershipExpiresAt }),
      },
    });
    return toView({ ...invitation, organization_name: row?.name ?? '' });
  });
}

/**
 * For the joining domain (behaviour §17): the invitation a domain with the enrollment
 * `automatic_invitation` makes for one of its people, in the change that took its organization,
 * unless an open invitation to their e-mail is there already. Whether it was made.
 */
export async function inviteForDomain(
  tx: Tx,
  change: OrganizationChange,
  invitee: { userId: string; email: string; role: string },
  ttlHours: number,
): Promise<boolean> {
  if (await openInvitationTo(tx, change.organizationId, invitee.email)) return false;
  const invitation = {
    id: newId(tx.now.getTime()),
    organization_id: change.organizationId,
    email: invitee.email,
    role: invitee.role,
    status: 'pending' as const,
    invited_by: null,
    invited_by_key_id: null,
    created_at: tx.timestamp(),
    expires_at: tx.timestamp(new Date(tx.now.getTime() + ttlHours * HOUR_MS)),
    membership_expires_at: null,
  };
  insertInvitation(tx, invitation);
  await appendEvent(tx, change, {
    type: 'invitation.created',
    subjectUserId: invitee.userId,
    data: { invitation_id: invitation.id, email: invitation.email, role: invitation.role },
  });
  return true;
}

/** The organization's open invitations, oldest first. */
export async function listOrganizationInvitations(org: InOrganization): Promise<InvitationView[]> {
  return (await openInvitationsOf(org.reads, org.organizationId)).map(toView);
}

/** The caller's open invitations (to their user record's e-mail), oldest first; 404 without a record. */
export async function listMyInvitations(db: Db, caller: PersonCaller): Promise<InvitationView[]> {
  return (await openInvitationsTo(db, await emailOfUser(db, caller.userId))).map(toView);
}

/**
 * Revokes an open invitation of the organization (an owner invitation, owner only). An invitation
 * of another organization is unknown here: 404.
 */
export async function revokeInvitation(org: InOrganization, invitationId: string): Promise<{ message: string }> {
  return org.change(async (tx, change) => {
    const row = await invitationOf(tx, org.organizationId, invitationId);
    const held = await change.held();
    if (!row) throw unknownInvitation();
    const { email, role, status, expires_at } = row;
    if (role === 'owner' && held.role !== 'owner') throw forbidden('Only an owner may revoke an owner invitation');
    assertOpen({ status, expires_at }, tx.now);
    setStatus(tx, invitationId, 'revoked');
    await appendEvent(tx, change, {
      type: 'invitation.revoked',
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
  memberRole: string | undefined;
  /** The caller's membership that expired and is still stored, if any. */
  lapsedMembership: LapsedMembership | undefined;
  /** The organization's seats, read with the invitation. */
  seats: () => Seats;
}

/**
 * Runs the invitee's answer in one transaction that takes the invitation's organization first,
 * after checking, under that lock: the invitation exists (404), the caller has a user record (404)
 * whose e-mail is the invitation's (403), and it is still open (410).
 */
async function answerInvitation<T>(
  db: Db,
  caller: PersonCaller,
  invitationId: string,
  work: (tx: Tx, change: OrganizationChange, invitation: AddressedInvitation) => Promise<T>,
): Promise<T> {
  // Only to know which organization to take; everything that decides is read again under its lock.
  const located = await invitationOrganization(db, invitationId);
  if (!located) throw unknownInvitation();
  const organizationId = located.organization_id;
  return db.transaction(
    async (tx) => {
      // Deleted meanwhile, and its invitations with it: unknown.
      const change = takeOrganization(tx, organizationId, personActor(caller.userId), unknownInvitation);
      const seats = seatsOf(tx, organizationId);
      const found = await invitationForAnswer(tx, invitationId, caller.userId);
      if (!found) throw unknownInvitation();
      const { caller_email, member_role, lapsed_role, lapsed_expires_at, ...row } = found;
      if (caller_email === null) throw noUserRecord();
      if (caller_email !== row.email) throw forbidden('This invitation is addressed to another e-mail address');
      assertOpen(row, tx.now);
      const lapsedMembership =
        lapsed_role === null || lapsed_expires_at === null
          ? undefined
          : { userId: caller.userId, role: lapsed_role, expiresAt: lapsed_expires_at };
      return work(tx, change, { row, memberRole: member_role ?? undefined, lapsedMembership, seats });
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
  caller: PersonCaller,
  invitationId: string,
): Promise<z.infer<typeof membershipOutput>> {
  try {
    return await answerInvitation(db, caller, invitationId, async (tx, change, invitation) => {
      const { row, memberRole, lapsedMembership, seats } = invitation;
      if (memberRole) throw alreadyMember();
      const expiresAt = isoTimestampOrNull(row.membership_expires_at);
      if (expiresAt !== null && new Date(expiresAt) <= tx.now) {
        throw gone('The membership this invitation offers has expired');
      }
      assertSeatFor(seats(), 'accepted invitation');
      if (lapsedMembership) await removeLapsedMembership(tx, change, lapsedMembership);
      setStatus(tx, invitationId, 'accepted');
      insertMembership(tx, row.organization_id, caller.userId, row.role, expiresAt, noUserRecord);
      await appendEvent(tx, change, {
        type: 'invitation.accepted',
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
export async function declineInvitation(
  db: Db,
  caller: PersonCaller,
  invitationId: string,
): Promise<{ message: string }> {
  return answerInvitation(db, caller, invitationId, async (tx, change, { row }) => {
    setStatus(tx, invitationId, 'declined');
    await appendEvent(tx, change, {
      type: 'invitation.declined',
      subjectUserId: caller.userId,
      data: { invitation_id: invitationId, email: row.email, role: row.role },
    });
    return { message: 'Invitation declined' };
  });
}
