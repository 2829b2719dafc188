/**
 * Memberships of users in organizations (behaviour §3.2, §4.3, §11): the rules, the events and
 * their order, over the statements of members.queries.ts. The operation's declared permission has
 * been asserted by the platform's guard by the time the first read returns (in-organization.ts);
 * what is decided here is what the declared permission cannot say: the owner rules, no
 * escalation, the last owner.
 *
 * A membership may expire (behaviour §11): from its `expires_at` on, every read treats it as none.
 * Its row stays until the sweep (expiry-sweep.ts) removes it, or until the user is made a member
 * again, which removes it first: both record `member.expired`.
 */
import type { z } from 'zod';
import type { membershipOutput, Role } from '../../../shared/fields.ts';
import type {
  addMemberInput,
  changeRoleInput,
  Member,
  MemberDetails,
  MemberListItem,
  MemberPageItem,
  removeMemberInput,
} from '../../../shared/members.ts';
import { searchWords, type MemberSort } from '../../../shared/search.ts';
import type { metadataOutput, updateMemberMetadataInput } from '../../../shared/metadata.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { assertCanChange, assertKeepsAnOwner, assertMayGive } from '../../platform/authorization/rules.ts';
import { replaceInPlace, toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import type { Dialect } from '../../platform/database/schema.ts';
import {
  createdAtColumn,
  toSortedPage,
  type KeyColumn,
  type SortedRequest,
} from '../../platform/database/sorted-pages.ts';
import {
  isoTimestamp,
  isoTimestampOrNull,
  listTimestamp,
  type StoredTimestamp,
} from '../../platform/database/timestamps.ts';
import { ReadMoved } from '../../platform/database/failures.ts';
import type { Tx } from '../../platform/database/transaction.ts';
import { badRequest, conflict, DomainError, notFound } from '../../platform/errors.ts';
import { changedKeys, parseMetadata, patchedMetadata } from '../../platform/metadata.ts';
import { appendEvent, type OrganizationChange } from '../../platform/organization-changes.ts';
import { readTeamsOfMember, recordLeavingTeams } from '../teams/teams.service.ts';
import {
  deleteMembership,
  insertMembership,
  lapsedMembershipOf,
  legacyMemberRows,
  memberCount,
  memberPageRows,
  memberRow,
  membershipOf,
  ownerCount,
  userByEmail,
  type Seats,
  updateMemberMetadata,
  updateRoleAndExpiry,
} from './members.queries.ts';
import {
  selectedLegacyMemberRows,
  selectedMemberRows,
  type LegacyMemberRow,
  type MemberSelection,
} from './selected-members.queries.ts';

const notAMember = () => notFound('The user is not a member of this organization');
const noUserWithEmail = () => notFound('No user has this e-mail address');

/** How a new membership or invitation counts against the seat limit (behaviour §16). */
export type SeatUse = 'invitation' | 'membership' | 'accepted invitation';

/**
 * Refuses, with 409 MEMBER_LIMIT, what would take the organization past its seat limit: a new
 * invitation, or a membership that does not come from a pending invitation, when members and
 * pending invitations would exceed it; accepting a pending invitation when members alone would.
 * The seats are read under the organization's lock (seatsOf, queued with the change's first read, or
 * with the user a member is added by: userByEmail).
 */
export function assertSeatFor({ maxMembers, members, invited }: Seats, use: SeatUse): void {
  if (maxMembers === null) return;
  const taken = use === 'accepted invitation' ? members : members + invited;
  if (taken + 1 > maxMembers) {
    throw new DomainError(
      'MEMBER_LIMIT',
      `The organization has ${members} members and ${invited} pending invitations, and may have ${maxMembers} at most: raise the limit or free a seat`,
    );
  }
}
const alreadyMember = () => conflict('The user is already a member of this organization');

/** Owners left, counted only where the change could take away the last one. */
export async function ownersLeft(tx: Tx, organizationId: string, targetRole: Role): Promise<number> {
  return targetRole === 'owner' ? ownerCount(tx, organizationId) : Number.POSITIVE_INFINITY;
}

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
  await recordLeavingTeams(tx, change, userId, userId)();
  deleteMembership(tx, change.organizationId, userId);
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

export async function addMember(
  org: InOrganization,
  input: z.infer<typeof addMemberInput>,
): Promise<z.infer<typeof membershipOutput>> {
  const expiresAt = input.expires_at ?? null;
  try {
    return await org.change(async (tx, change) => {
      const user = await userByEmail(tx, org.organizationId, input.email);
      const held = await change.held();
      assertCanChange(held.role, undefined, input.role);
      await assertMayGive(tx, org.access, held, input.role);
      assertOwnerDoesNotExpire(input.role, expiresAt);
      if (!user) throw noUserWithEmail();
      if (user.member_role) throw alreadyMember();
      assertSeatFor(user.seats, 'membership');
      if (user.lapsed_role !== null && user.lapsed_expires_at !== null) {
        const lapsed = { userId: user.user_id, role: user.lapsed_role, expiresAt: user.lapsed_expires_at };
        await removeLapsedMembership(tx, change, lapsed);
      }
      // Their record deleted since it was read (behaviour §15): as if it had been before.
      insertMembership(tx, org.organizationId, user.user_id, input.role, expiresAt, noUserWithEmail);
      await appendEvent(tx, change, {
        type: 'member.added',
        subjectUserId: user.user_id,
        data: { role: input.role, ...(expiresAt !== null && { expires_at: expiresAt }) },
      });
      return { organization_id: org.organizationId, user_id: user.user_id, role: input.role };
    });
  } catch (error) {
    // Defence in depth: the organization lock already keeps two adds of one user apart.
    if (org.isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
}

/**
 * Changes a member's role and, when `expires_at` is given, their membership's expiry (null: it no
 * longer expires). Setting what a member has already changes nothing and records no event. Making
 * a member whose membership expires an owner needs `expires_at: null` (behaviour §11).
 */
export async function changeRole(org: InOrganization, input: z.infer<typeof changeRoleInput>): Promise<void> {
  await org.change(async (tx, change) => {
    const target = await membershipOf(tx, org.organizationId, input.user_id);
    const held = await change.held();
    if (!target) throw notAMember();
    assertCanChange(held.role, target.role, input.role);
    assertOwnerDoesNotExpire(input.role, input.expires_at);
    const targetExpiresAt = isoTimestampOrNull(target.expires_at);
    const expiresAt = input.expires_at === undefined ? targetExpiresAt : input.expires_at;
    if (input.role === 'owner' && expiresAt !== null) {
      throw badRequest('The membership expires: send expires_at null to make the member an owner', [
        { field: 'expires_at', problem: 'Must be null to make a member whose membership expires an owner' },
      ]);
    }
    const expiryChanged = expiresAt !== targetExpiresAt;
    if (target.role === input.role && !expiryChanged) return;
    // Giving a role for longer is giving it too: an expiry's change needs the role's permissions.
    await assertMayGive(tx, org.access, held, input.role);
    assertKeepsAnOwner(target.role, input.role, await ownersLeft(tx, org.organizationId, target.role));
    updateRoleAndExpiry(tx, org.organizationId, input.user_id, input.role, expiresAt);
    await appendEvent(tx, change, {
      type: 'member.role_changed',
      subjectUserId: input.user_id,
      data: {
        from: target.role,
        to: input.role,
        ...(expiryChanged && { expires_at: { from: targetExpiresAt, to: expiresAt } }),
      },
    });
  });
}

/**
 * Removes a member. Any member may remove themselves, whatever their role (leaving, behaviour §3.2:
 * the operation declares it, `orSelf`); the last owner may not, in either case.
 */
export async function removeMember(org: InOrganization, input: z.infer<typeof removeMemberInput>): Promise<void> {
  await org.change(async (tx, change) => {
    // Read with the membership, in the change's first round trip.
    const leaveTeams = recordLeavingTeams(tx, change, input.user_id);
    const target = await membershipOf(tx, org.organizationId, input.user_id);
    const held = await change.held();
    const leaving = input.user_id === org.access.userId;
    if (!target) throw notAMember();
    if (!leaving) assertCanChange(held.role, target.role, undefined);
    assertKeepsAnOwner(target.role, undefined, await ownersLeft(tx, org.organizationId, target.role));
    await leaveTeams();
    deleteMembership(tx, org.organizationId, input.user_id);
    await appendEvent(tx, change, {
      type: leaving ? 'member.left' : 'member.removed',
      subjectUserId: input.user_id,
      data: { role: target.role },
    });
  });
}

/** One member of the organization, with their profile. */
export async function getMember(org: InOrganization, userId: string): Promise<Member> {
  const row = await memberRow(org.reads, org.organizationId, userId);
  if (!row) throw notAMember();
  return memberOf(org, row);
}

/** A member's row as the member reads show it. */
const memberOf = (org: InOrganization, row: NonNullable<Awaited<ReturnType<typeof memberRow>>>): Member => ({
  organization_id: org.organizationId,
  user_id: row.user_id,
  role: row.role,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
  first_name: row.first_name,
  last_name: row.last_name,
  email: row.email,
  expires_at: isoTimestampOrNull(row.expires_at),
});

/**
 * GET /organizations/{organization_id}/members/{user_id}: the member with their public metadata
 * and their teams (behaviour §15).
 */
export async function getMemberDetails(org: InOrganization, userId: string): Promise<MemberDetails> {
  const [row, teams] = await Promise.all([
    memberRow(org.reads, org.organizationId, userId),
    readTeamsOfMember(org.reads, org.organizationId, userId),
  ]);
  if (!row) throw notAMember();
  return {
    ...memberOf(org, row),
    public_metadata: parseMetadata(row.public_metadata),
    teams: teams.map((team) => ({ team_id: team.id, name: team.name })),
  };
}

/**
 * Patches a membership's public metadata (JSON Merge Patch, behaviour §15) under the
 * organization's lock, recording `member.updated` with the keys that changed; a patch that changes
 * nothing records nothing.
 */
export async function patchMemberMetadata(
  org: InOrganization,
  input: z.infer<typeof updateMemberMetadataInput>,
): Promise<z.infer<typeof metadataOutput>> {
  return org.change(async (tx, change) => {
    const target = await membershipOf(tx, org.organizationId, input.user_id);
    if (!target) throw notAMember();
    const after = patchedMetadata(target.public_metadata, input.public_metadata, 'public_metadata');
    const keys = changedKeys(target.public_metadata, after);
    if (keys.length > 0) {
      updateMemberMetadata(tx, org.organizationId, input.user_id, after);
      await appendEvent(tx, change, {
        type: 'member.updated',
        subjectUserId: input.user_id,
        data: { public_metadata_keys: keys },
      });
    }
    return { public_metadata: parseMetadata(after) };
  });
}

const pageKey = (row: { created_at: StoredTimestamp; user_id: string }) => ({
  createdAt: row.created_at,
  id: row.user_id,
});

/** A legacy list's row as its item, in place: `created_at` as the list shows it. */
const legacyItemInPlace = (row: LegacyMemberRow): MemberListItem =>
  replaceInPlace(row, 'created_at', listTimestamp(row.created_at));

/** A member page's row as its item, in place: with the membership's expiry and public metadata. */
const pageItemInPlace = (
  row: LegacyMemberRow & { expires_at: StoredTimestamp | null; public_metadata: string },
): MemberPageItem =>
  replaceInPlace(
    replaceInPlace(
      replaceInPlace(row, 'created_at', listTimestamp(row.created_at)),
      'expires_at',
      isoTimestampOrNull(row.expires_at),
    ),
    'public_metadata',
    parseMetadata(row.public_metadata),
  );

/**
 * The legacy list (GET /organization-user): members ordered by membership `created_at`, then
 * `user_id` (behaviour §4), one page or all of them, each item exactly the interface's fields with
 * `created_at` as `YYYY-MM-DD hh:mm:ss`.
 */
export async function listMembers(org: InOrganization, page: PageRequest = {}): Promise<Page<MemberListItem>> {
  const rows = await legacyMemberRows(org.reads, org.organizationId, page);
  return toPage(rows, page.limit, pageKey, legacyItemInPlace);
}

/** The tRPC page of members in the order they joined: the list's items with each membership's expiry. */
async function joinedMembersPage(org: InOrganization, page: PageRequest): Promise<Page<MemberPageItem>> {
  return toPage(await memberPageRows(org.reads, org.organizationId, page), page.limit, pageKey, pageItemInPlace);
}

/**
 * The tRPC page of members, searched, filtered or sorted as `query` asks. Each page of the whole
 * list (no search or role filter, in any order) also says how many members there are (`total`,
 * read beside it from the count the organization keeps), so that a page shown after a change has
 * the count after it too.
 */
export async function membersPage(
  org: InOrganization,
  query: MemberQuery,
  page: { limit: number; cursor?: string | null },
): Promise<Page<MemberPageItem> & { total?: number }> {
  const whole = query.search === undefined && query.role === undefined;
  const [items, total] = await Promise.all([
    selectsMembers(query) ? selectedMembersPage(org, query, page) : joinedMembersPage(org, page),
    whole ? memberCount(org.reads, org.organizationId) : undefined,
  ]);
  return total === undefined ? items : { ...items, total };
}

/** What a searched, filtered or sorted page of members is asked with (behaviour §15). */
export interface MemberQuery {
  search?: string;
  role?: string;
  sort?: MemberSort;
}

/** Whether the query asks for more than the whole list in the order members joined. */
export const selectsMembers = (query: MemberQuery | undefined) =>
  query?.search !== undefined || query?.role !== undefined || query?.sort !== undefined;

/** The sort keys of the member list: each ends with the user id, which no two members share. */
function memberSortKey(dialect: Dialect, sort: MemberSort): KeyColumn<LegacyMemberRow>[] {
  const userId: KeyColumn<LegacyMemberRow> = { column: 'm.user_id', kind: 'string', read: (row) => row.user_id };
  switch (sort.replace(/^-/, '')) {
    case 'name':
      return [
        { column: 'u.last_name', kind: 'string', read: (row) => row.last_name },
        { column: 'u.first_name', kind: 'string', read: (row) => row.first_name },
        userId,
      ];
    case 'email':
      return [{ column: 'u.email', kind: 'string', read: (row) => row.email }, userId];
    default:
      return [createdAtColumn('m.created_at', dialect), userId];
  }
}

/** The page's request, and what selects its members, for a search, a role filter and an order. */
function selectedMembersRequest(
  org: InOrganization,
  query: MemberQuery,
  page: { limit: number; cursor?: string | null },
): { request: SortedRequest<LegacyMemberRow>; selection: MemberSelection } {
  const sort = query.sort ?? 'created_at';
  const words = query.search === undefined ? [] : searchWords(query.search);
  const roles = query.role === undefined ? undefined : [...new Set(query.role.split(','))].sort();
  const request: SortedRequest<LegacyMemberRow> = {
    key: memberSortKey(org.reads.dialect, sort),
    descending: sort.startsWith('-'),
    scope: [words, roles ?? null],
    limit: page.limit,
    cursor: page.cursor,
  };
  return { request, selection: { words, roles } };
}

/**
 * A page of the members a search, a role filter and an order select (behaviour §15), with each
 * membership's expiry; its cursor holds to them.
 */
async function selectedMembersPage(
  org: InOrganization,
  query: MemberQuery,
  page: { limit: number; cursor?: string | null },
): Promise<Page<MemberPageItem>> {
  const { request, selection } = selectedMembersRequest(org, query, page);
  const rows = await selectedMemberRows(org.reads, org.organizationId, selection, request);
  return toSortedPage(rows, request, pageItemInPlace);
}

/** The same page as the legacy list shows it: without the expiry (behaviour §15: legacy shapes stay). */
export async function selectedLegacyMembersPage(
  org: InOrganization,
  query: MemberQuery,
  page: { limit: number; cursor?: string | null },
): Promise<Page<MemberListItem>> {
  const { request, selection } = selectedMembersRequest(org, query, page);
  const rows = await selectedLegacyMemberRows(org.reads, org.organizationId, selection, request);
  return toSortedPage(rows, request, legacyItemInPlace);
}

const recordGone = () => new ReadMoved('The user record was deleted while the directory made its membership');

/**
 * For the directory (behaviour §18), in its change: the membership of the user whose record has
 * this e-mail, made with `role` (known once the change's first read has run) when they have none (the seat limit applies; `member.added` with
 * `via: "scim"`), or adopted as it is. Undefined when no user has that e-mail yet.
 */
export async function provisionMember(
  tx: Tx,
  change: OrganizationChange,
  email: string,
  role: () => Role,
): Promise<{ userId: string } | undefined> {
  const user = await userByEmail(tx, change.organizationId, email);
  if (!user) return undefined;
  if (user.member_role) return { userId: user.user_id };
  assertSeatFor(user.seats, 'membership');
  if (user.lapsed_role !== null && user.lapsed_expires_at !== null) {
    const lapsed = { userId: user.user_id, role: user.lapsed_role, expiresAt: user.lapsed_expires_at };
    await removeLapsedMembership(tx, change, lapsed);
  }
  const given = role();
  // Their record deleted since it was read (behaviour §15): read again, the directory user awaits one.
  insertMembership(tx, change.organizationId, user.user_id, given, null, recordGone);
  await appendEvent(tx, change, {
    type: 'member.added',
    subjectUserId: user.user_id,
    data: { role: given, via: 'scim' },
  });
  return { userId: user.user_id };
}

/**
 * For the directory (behaviour §18), in its change: removes the user's membership, if they have
 * one, with their team places (`member.removed` with `via: "scim"`); never the last owner (409).
 */
export async function deprovisionMember(tx: Tx, change: OrganizationChange, userId: string): Promise<void> {
  const target = await membershipOf(tx, change.organizationId, userId);
  if (!target) return;
  assertKeepsAnOwner(target.role, undefined, await ownersLeft(tx, change.organizationId, target.role));
  await recordLeavingTeams(tx, change, userId)();
  deleteMembership(tx, change.organizationId, userId);
  await appendEvent(tx, change, {
    type: 'member.removed',
    subjectUserId: userId,
    data: { role: target.role, via: 'scim' },
  });
}

/**
 * For a person deleting their record (behaviour §15), in the change that took the organization:
 * whether they are its last owner, which the deletion refuses for every organization at once.
 */
export async function isLastOwner(tx: Tx, organizationId: string, userId: string): Promise<boolean> {
  const membership = await membershipOf(tx, organizationId, userId);
  return membership?.role === 'owner' && (await ownerCount(tx, organizationId)) <= 1;
}

/**
 * For a person deleting their record (behaviour §15), in the change that took the organization:
 * removes their membership with its team places and search words (`member.left` with
 * `reason: "account_deleted"`), or the expired one still stored (`member.expired`), so that the
 * member count stays right when the record's foreign keys would otherwise take the row.
 */
export async function leaveForDeletedAccount(tx: Tx, change: OrganizationChange, userId: string): Promise<void> {
  const leaveTeams = recordLeavingTeams(tx, change, userId, userId);
  const current = await membershipOf(tx, change.organizationId, userId);
  if (current) {
    assertKeepsAnOwner(current.role, undefined, await ownersLeft(tx, change.organizationId, current.role));
    await leaveTeams();
    deleteMembership(tx, change.organizationId, userId);
    await appendEvent(tx, change, {
      type: 'member.left',
      actorUserId: userId,
      subjectUserId: userId,
      data: { role: current.role, reason: 'account_deleted' },
    });
    return;
  }
  const lapsed = await lapsedMembershipOf(tx, change.organizationId, userId);
  if (lapsed?.expires_at) {
    await removeLapsedMembership(tx, change, { userId, role: lapsed.role, expiresAt: lapsed.expires_at });
  }
}

/** For the roles domain: how many current members hold `role` as their role. */
export { membersWithRole } from './members.queries.ts';

/** For the domains that make memberships (invitations, organizations): the insert, queued, and the seats. */
export { insertMembership, rolesOf, seatsOf, updateRole, updateRoleAndExpiry, type Seats } from './members.queries.ts';
