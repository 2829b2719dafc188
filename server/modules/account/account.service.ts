/**
 * A person's own data (behaviour §15): their export, and the deletion of their record with what is
 * theirs in every organization, over account.queries.ts and the members domain's rules.
 */
import { MAX_EXPORTED_EVENTS, type AccountExport } from '../../../shared/account.ts';
import type { PersonCaller } from '../../platform/auth/tokens.ts';
import { isoTimestamp, isoTimestampOrNull } from '../../platform/database/timestamps.ts';
import type { Db } from '../../platform/database/transaction.ts';
import { conflict, DomainError } from '../../platform/errors.ts';
import { personActor, takeOrganization } from '../../platform/organization-changes.ts';
import { toAuditEvent } from '../events/events.service.ts';
import { isLastOwner, leaveForDeletedAccount } from '../members/members.service.ts';
import { emailOfUser, getUser, noUserRecord } from '../users/users.service.ts';
import {
  deletePendingInvitations,
  deleteUserRecord,
  eventRowsWhere,
  joinRequestRows,
  lockUserAndTies,
  membershipRows,
  organizationsOfAccount,
  pendingInvitationRows,
  teamRowsOf,
} from './account.queries.ts';

export async function exportAccount(db: Db, userId: string): Promise<AccountExport> {
  const profile = await getUser(db, userId);
  const [memberships, teams, invitations, requests, acted, underwent] = await Promise.all([
    membershipRows(db, userId),
    teamRowsOf(db, userId),
    pendingInvitationRows(db, profile.email),
    joinRequestRows(db, userId),
    eventRowsWhere(db, 'actor_user_id', userId, MAX_EXPORTED_EVENTS + 1),
    eventRowsWhere(db, 'subject_user_id', userId, MAX_EXPORTED_EVENTS + 1),
  ]);
  // Two reads by their own indexes, merged: an event where they are both appears in each.
  const events = [...new Map([...acted, ...underwent].map((row) => [row.event_id, row])).values()].sort((a, b) =>
    a.event_id < b.event_id ? 1 : -1,
  );
  return {
    profile,
    memberships: memberships.map((row) => ({
      organization_id: row.organization_id,
      organization_name: row.name,
      organization_slug: row.slug,
      role: row.role,
      created_at: isoTimestamp(row.created_at),
      expires_at: isoTimestampOrNull(row.expires_at),
      teams: teams
        .filter((team) => team.organization_id === row.organization_id)
        .map((team) => ({ team_id: team.team_id, name: team.name, added_at: isoTimestamp(team.added_at) })),
    })),
    pending_invitations: invitations.map((row) => ({
      invitation_id: row.id,
      organization_id: row.organization_id,
      organization_name: row.organization_name,
      role: row.role,
      created_at: isoTimestamp(row.created_at),
      expires_at: isoTimestamp(row.expires_at),
    })),
    join_requests: requests.map((row) => ({
      request_id: row.id,
      organization_id: row.organization_id,
      organization_name: row.organization_name,
      role: row.role,
      status: row.status,
      created_at: isoTimestamp(row.created_at),
    })),
    events: events.slice(0, MAX_EXPORTED_EVENTS).map(toAuditEvent),
    events_truncated: events.length > MAX_EXPORTED_EVENTS,
  };
}

/** What the deletion changes moved under it (a new membership, an organization gone): it reads again. */
class OrganizationsMoved extends Error {}

/** Deletions tried while the caller's organizations keep changing under them, before giving up (409). */
const MAX_ROUNDS = 3;

const lastOwnerOf = (organizationIds: string[]) =>
  new DomainError(
    'CONFLICT',
    `You are the last owner of ${organizationIds.length === 1 ? 'organization' : 'organizations'} ${organizationIds.join(', ')}: give ownership to another member or delete ${organizationIds.length === 1 ? 'it' : 'them'} first`,
    organizationIds.map((id) => ({ field: 'organization_ids', problem: id })),
  );

/**
 * Deletes the caller's record and, in the same transaction, what is theirs in each organization
 * (behaviour §15). The organizations are read first, then taken in id order (so that two deletions
 * never wait on each other in a circle) and read again under their locks: when the set moved
 * meanwhile, the deletion starts over. Refused as a whole, with every such organization named,
 * while they are the last owner of any.
 *
 * A membership may be being made meanwhile in an organization the deletion did not take (an add,
 * a creation of an organization they are to own, a SCIM provisioning). After the organizations,
 * the deletion takes the user's row, which waits for such a membership's insert to commit (the
 * order every change that makes one takes them in: its organization, then the user's row through
 * the membership's foreign key), and reads their memberships again, current: one in an
 * organization not taken starts the deletion over, which then takes it and removes the membership
 * with its event. An insert that comes after the lock fails its foreign key once the record is
 * gone, and its change answers as if the record had never been there (members.queries.ts,
 * insertMembership). Without the lock, the record's deletion would remove such a membership
 * through the key's ON DELETE CASCADE: no event, its organization's member_count wrong for good,
 * or an organization left without an owner.
 *
 * An invitation to their e-mail made meanwhile in an organization not taken is kept apart the same
 * way: its change reads the user's row shared (users/user-with-email.ts), and after the
 * lock the deletion reads their pending invitations again, current; one in an organization not
 * taken starts it over. One made after the lock finds no record: an invitation to an address that
 * has none, which stays, naming no one. Without it, an invitation to the person could stay pending
 * after their record was gone, its event naming them with their e-mail.
 */
export async function deleteAccount(db: Db, caller: PersonCaller): Promise<void> {
  const { userId } = caller;
  const email = await emailOfUser(db, userId);
  for (let round = 1; ; round++) {
    const organizationIds = await organizationsOfAccount(db, userId, email);
    try {
      await db.transaction(async (tx) => {
        const changes = organizationIds.map((id) =>
          takeOrganization(tx, id, personActor(userId), () => new OrganizationsMoved()),
        );
        let tied: string[] = [];
        lockUserAndTies(tx, userId, email, (ids) => (tied = ids));
        const underLocks = await organizationsOfAccount(tx, userId, email);
        if (underLocks.join() !== organizationIds.join()) throw new OrganizationsMoved();
        if (tied.some((id) => !organizationIds.includes(id))) throw new OrganizationsMoved();
        const blocked: string[] = [];
        for (const id of organizationIds) if (await isLastOwner(tx, id, userId)) blocked.push(id);
        if (blocked.length > 0) throw lastOwnerOf(blocked);
        for (const change of changes) {
          await leaveForDeletedAccount(tx, change, userId);
          deletePendingInvitations(tx, change.organizationId, email);
        }
        deleteUserRecord(tx, userId, (found) => {
          if (!found) throw noUserRecord();
        });
      });
      return;
    } catch (error) {
      if (!(error instanceof OrganizationsMoved)) throw error;
      if (round === MAX_ROUNDS) throw conflict('Your organizations kept changing during the deletion: try again');
    }
  }
}
