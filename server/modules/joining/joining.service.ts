/**
 * Joining an organization by a verified work e-mail, and join requests (behaviour §17). Only the
 * caller's verified e-mail counts (domains/verified-email.ts), at exactly a domain the organization
 * holds verified. Every way in takes the organization's lock and its seats (behaviour §16), as
 * accepting an invitation does, so that concurrent joins stop exactly at the seat limit.
 */
import type { membershipOutput, Role } from '../../../shared/fields.ts';
import type { JoinRequestView, MyJoinRequestView, SuggestionView, joinOutput } from '../../../shared/joining.ts';
import type { z } from 'zod';
import type { PersonCaller } from '../../platform/auth/tokens.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { assertCanChange, assertMayGive } from '../../platform/authorization/rules.ts';
import { newId } from '../../platform/database/ids.ts';
import { toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { isoTimestamp, toDate, type StoredTimestamp } from '../../platform/database/timestamps.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';
import { conflict, forbidden, notFound } from '../../platform/errors.ts';
import {
  appendEvent,
  personActor,
  takeOrganization,
  type OrganizationChange,
} from '../../platform/organization-changes.ts';
import { verifiedEmailDomain } from '../domains/verified-email.ts';
import { inviteForDomain } from '../invitations/invitations.service.ts';
import {
  assertSeatFor,
  insertMembership,
  removeLapsedMembership,
  seatsOf,
  type Seats,
} from '../members/members.service.ts';
import { emailOfUser, noUserRecord } from '../users/users.service.ts';
import {
  domainInvitationOf,
  insertDomainInvitation,
  insertRequest,
  membershipRow,
  myRequestRows,
  pendingRequestOf,
  requestRow,
  requestRows,
  setRequestStatus,
  verifiedDomainRow,
  type RequestRow,
} from './joining.queries.ts';

const noSuchOrganization = () => notFound('No such organization');
/** An organization the caller may not join, or none by that id: alike, as for a non-member (behaviour §17). */
const mayNotJoin = () =>
  forbidden(
    'Your verified e-mail is at no verified domain of this organization that lets its people join: ask for an invitation',
  );
const noSuchRequest = () => notFound('No such join request');
const alreadyMember = () => conflict('You are a member of this organization already');
const notPending = (status: string) => conflict(`The join request was ${status} already`);

/** A membership row, and whether it still counts (an expired one is none, behaviour §11). */
async function currentMembership(tx: Tx, organizationId: string, userId: string) {
  const row = await membershipRow(tx, organizationId, userId);
  if (!row) return { role: undefined, lapsed: undefined };
  const expired = row.expires_at !== null && toDate(row.expires_at) <= tx.now;
  if (!expired) return { role: row.role, lapsed: undefined };
  return { role: undefined, lapsed: { userId, role: row.role, expiresAt: row.expires_at as StoredTimestamp } };
}

/**
 * Makes the membership of a way in that is not an invitation: a seat of its own, any expired row
 * removed first. `userGone`: the answer when the user's record was deleted since it was read
 * (behaviour §15), as if it had been before.
 */
async function admit(
  tx: Tx,
  change: OrganizationChange,
  seats: () => Seats,
  userId: string,
  role: Role,
  userGone: () => Error,
): Promise<z.infer<typeof membershipOutput>> {
  const { role: memberRole, lapsed } = await currentMembership(tx, change.organizationId, userId);
  if (memberRole !== undefined) throw conflict('The user is a member of this organization already');
  assertSeatFor(seats(), 'membership');
  if (lapsed) await removeLapsedMembership(tx, change, lapsed);
  insertMembership(tx, change.organizationId, userId, role, null, userGone);
  await appendEvent(tx, change, { type: 'member.added', subjectUserId: userId, data: { role, via: 'domain' } });
  return { organization_id: change.organizationId, user_id: userId, role };
}

/** The organizations the caller may join or ask to join by their verified e-mail's domain. */
export async function suggestions(db: Db, caller: PersonCaller): Promise<SuggestionView[]> {
  const domain = await verifiedEmailDomain(db, caller);
  if (domain === undefined) return [];
  const row = await verifiedDomainRow(db, domain);
  if (!row || (row.enrollment !== 'suggestion' && row.enrollment !== 'automatic')) return [];
  const member = await membershipRow(db, row.organization_id, caller.userId);
  if (member && (member.expires_at === null || toDate(member.expires_at) > new Date())) return [];
  return [
    {
      organization_id: row.organization_id,
      organization_name: row.organization_name,
      slug: row.slug,
      enrollment: row.enrollment,
    },
  ];
}

/**
 * Joins the organization by the caller's verified e-mail: at once where the domain's enrollment is
 * `automatic`, as a pending join request where it is `suggestion` (one pending per person and
 * organization); 403 otherwise, and 404 to a caller without a record.
 */
export async function join(db: Db, caller: PersonCaller, organizationId: string): Promise<z.infer<typeof joinOutput>> {
  const domain = await verifiedEmailDomain(db, caller);
  // Without a verified e-mail the answer is a refusal: 404 where the caller has no record at all.
  if (domain === undefined) await emailOfUser(db, caller.userId);
  try {
    return await db.transaction(
      async (tx) => {
        const change = takeOrganization(tx, organizationId, personActor(caller.userId), mayNotJoin);
        const seats = seatsOf(tx, organizationId);
        const row = domain === undefined ? undefined : await verifiedDomainRow(tx, domain);
        await tx.flush();
        if (!row || row.organization_id !== organizationId || !['automatic', 'suggestion'].includes(row.enrollment)) {
          throw mayNotJoin();
        }
        if (row.enrollment === 'automatic') {
          const membership = await admit(tx, change, seats, caller.userId, row.default_role, noUserRecord);
          return { ...membership, status: 'member' as const, request_id: null };
        }
        const { role } = await currentMembership(tx, organizationId, caller.userId);
        if (role !== undefined) throw alreadyMember();
        if (await pendingRequestOf(tx, organizationId, caller.userId)) {
          throw conflict('You have asked to join this organization already: the request is pending');
        }
        const id = newId(tx.now.getTime());
        insertRequest(tx, { id, organizationId, userId: caller.userId, role: row.default_role });
        await appendEvent(tx, change, {
          type: 'join_request.created',
          subjectUserId: caller.userId,
          data: { request_id: id, role: row.default_role },
        });
        return {
          organization_id: organizationId,
          user_id: caller.userId,
          role: row.default_role,
          status: 'pending' as const,
          request_id: id,
        };
      },
      { organizationId },
    );
  } catch (error) {
    // Defence in depth: the organization's lock already keeps two joins of one person apart.
    if (db.isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
}

/**
 * The invitation a domain with the enrollment `automatic_invitation` makes for the caller, once per
 * person and domain (not again after a decline or a revocation), before their invitations are
 * listed. None while the organization has no seat for it.
 */
export async function offerDomainInvitation(db: Db, caller: PersonCaller, ttlHours: number): Promise<void> {
  const domain = await verifiedEmailDomain(db, caller);
  if (domain === undefined) return;
  const row = await verifiedDomainRow(db, domain);
  if (!row || row.enrollment !== 'automatic_invitation') return;
  if (await domainInvitationOf(db, row.id, caller.userId)) return;
  const email = await emailOfUser(db, caller.userId);
  let deleted: Error | undefined;
  try {
    await db.transaction(
      async (tx) => {
        const missing = () => (deleted = noSuchOrganization());
        const change = takeOrganization(tx, row.organization_id, personActor(caller.userId), missing);
        const seats = seatsOf(tx, row.organization_id);
        const current = await verifiedDomainRow(tx, domain);
        if (current?.id !== row.id || current.enrollment !== 'automatic_invitation') return;
        if (await domainInvitationOf(tx, row.id, caller.userId)) return;
        if ((await currentMembership(tx, row.organization_id, caller.userId)).role !== undefined) return;
        const { maxMembers, members, invited } = seats();
        if (maxMembers !== null && members + invited + 1 > maxMembers) return;
        const invitee = { userId: caller.userId, email, role: current.default_role };
        if (await inviteForDomain(tx, change, invitee, ttlHours)) insertDomainInvitation(tx, row.id, caller.userId);
      },
      { organizationId: row.organization_id },
    );
  } catch (error) {
    // The organization was deleted meanwhile, or another listing made the invitation: nothing to offer.
    if (db.isUniqueViolation(error) || error === deleted) return;
    throw error;
  }
}

const requestView = (row: RequestRow): JoinRequestView => ({
  request_id: row.id,
  user_id: row.user_id,
  first_name: row.first_name,
  last_name: row.last_name,
  email: row.email,
  status: row.status,
  created_at: isoTimestamp(row.created_at),
});

/** The organization's join requests, oldest first, whatever their status. */
export async function listJoinRequests(org: InOrganization, page: PageRequest = {}): Promise<Page<JoinRequestView>> {
  const rows = await requestRows(org.reads, org.organizationId, page);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), requestView);
}

/** A pending request of the organization, read under its lock. */
async function pendingRequestIn(tx: Tx, organizationId: string, requestId: string): Promise<RequestRow> {
  const row = await requestRow(tx, requestId);
  if (row?.organization_id !== organizationId) throw noSuchRequest();
  if (row.status !== 'pending') throw notPending(row.status);
  return row;
}

/**
 * Approves a pending request: the membership with `role`, else the role the domain offered, given
 * under the no-escalation rule, in a seat of its own. The requester need not still have a verified
 * e-mail at a verified domain: the admin decides.
 */
export async function approveJoinRequest(
  org: InOrganization,
  requestId: string,
  role: Role | undefined,
): Promise<z.infer<typeof membershipOutput>> {
  try {
    return await org.change(async (tx, change) => {
      const seats = seatsOf(tx, org.organizationId);
      const row = await pendingRequestIn(tx, org.organizationId, requestId);
      const held = await change.held();
      const given = role ?? row.role;
      assertCanChange(held.role, undefined, given);
      await assertMayGive(tx, org.access, held, given);
      // The requester's deleted record takes their requests with it.
      const membership = await admit(tx, change, seats, row.user_id, given, noSuchRequest);
      setRequestStatus(tx, row.id, 'approved');
      await appendEvent(tx, change, {
        type: 'join_request.approved',
        subjectUserId: row.user_id,
        data: { request_id: row.id, role: given },
      });
      return membership;
    });
  } catch (error) {
    if (org.isUniqueViolation(error)) throw conflict('The user is a member of this organization already');
    throw error;
  }
}

export async function rejectJoinRequest(org: InOrganization, requestId: string): Promise<{ message: string }> {
  return org.change(async (tx, change) => {
    const row = await pendingRequestIn(tx, org.organizationId, requestId);
    setRequestStatus(tx, row.id, 'rejected');
    await appendEvent(tx, change, {
      type: 'join_request.rejected',
      subjectUserId: row.user_id,
      data: { request_id: row.id },
    });
    return { message: 'Join request rejected' };
  });
}

/** The caller's own join requests, oldest first. */
export async function myJoinRequests(db: Db, caller: PersonCaller): Promise<MyJoinRequestView[]> {
  return (await myRequestRows(db, caller.userId)).map((row) => ({
    request_id: row.id,
    organization_id: row.organization_id,
    organization_name: row.organization_name,
    status: row.status,
    created_at: isoTimestamp(row.created_at),
  }));
}

/** Withdraws a pending request of the caller's; another person's request is unknown here (404). */
export async function withdrawJoinRequest(
  db: Db,
  caller: PersonCaller,
  requestId: string,
): Promise<{ message: string }> {
  const located = await requestRow(db, requestId);
  if (located?.user_id !== caller.userId) throw noSuchRequest();
  const organizationId = located.organization_id;
  return db.transaction(
    async (tx) => {
      const change = takeOrganization(tx, organizationId, personActor(caller.userId), noSuchRequest);
      const row = await pendingRequestIn(tx, organizationId, requestId);
      setRequestStatus(tx, row.id, 'withdrawn');
      await appendEvent(tx, change, {
        type: 'join_request.withdrawn',
        subjectUserId: caller.userId,
        data: { request_id: row.id },
      });
      return { message: 'Join request withdrawn' };
    },
    { organizationId },
  );
}
