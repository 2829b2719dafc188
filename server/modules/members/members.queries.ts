/**
 * The statements of memberships (behaviour §4.3, §11): each builds, queues or runs SQL and returns
 * rows; none decides anything or throws. The rules are members.service.ts's.
 */
import type { Role } from '../../../shared/fields.ts';
import {
  currentMemberCount,
  lapsed,
  lapsedMemberCount,
  nowFor,
  unexpired,
  type ClockedReader,
} from '../../platform/authorization/memberships.ts';
import { isMissingReference } from '../../platform/database/failures.ts';
import { pagedList, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import type { Tx } from '../../platform/database/transaction.ts';
import { indexMembership, unindexMembership } from '../../platform/database/word-index.ts';

/** A user's current membership (no row for none), with when it expires and its public metadata. */
const membership = prepare((sql, organizationId: string, userId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .select(['m.role', 'm.expires_at', 'm.public_metadata'])
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', '=', userId)
    .where(unexpired('m', now)),
);

export const membershipOf = (tx: Tx, organizationId: string, userId: string) =>
  tx.first(membership(tx.sql, organizationId, userId, tx.timestamp()));

/** The current memberships of these users, by user id. */
export async function rolesOf(tx: Tx, organizationId: string, userIds: string[]): Promise<Map<string, Role>> {
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

const owners = prepare((sql, organizationId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .select((eb) => eb.fn.countAll<number | string>().as('owners'))
    .where('m.organization_id', '=', organizationId)
    .where('m.role', '=', 'owner')
    .where(unexpired('m', now)),
);

export async function ownerCount(tx: Tx, organizationId: string): Promise<number> {
  return Number((await tx.first(owners(tx.sql, organizationId, tx.timestamp())))?.owners ?? 0);
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

const memberCountChange = prepare((sql, organizationId: string, by: number) =>
  sql
    .updateTable('organizations')
    .set((eb) => ({ member_count: eb('member_count', '+', by) }))
    .where('id', '=', organizationId),
);

/**
 * Queues the insert of a membership that expires at `expiresAt` (ISO; null: never), with its count
 * in the organization's row (entities.ts, Organization.memberCount). `userGone` is what the insert
 * fails with when the user's record is not there: deleted by a transaction that committed after
 * this one read it (the membership's foreign key refuses the row).
 */
export function insertMembership(
  tx: Tx,
  organizationId: string,
  userId: string,
  role: Role,
  expiresAt: string | null,
  userGone: () => Error,
): void {
  tx.later(
    membershipInsert(tx.sql, organizationId, userId, role, tx.timestamp(), storedExpiry(tx, expiresAt)),
    undefined,
    (error) => (isMissingReference(error, 'organization_users_user_id_foreign') ? userGone() : undefined),
  );
  tx.later(memberCountChange(tx.sql, organizationId, 1));
  indexMembership(tx, organizationId, userId);
}

const roleUpdate = prepare((sql, organizationId: string, userId: string, role: Role, now: DbTimestamp) =>
  sql
    .updateTable('organization_users')
    .set({ role, updated_at: now })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId),
);

/** Queues a change of a member's role, its expiry left as it is. */
export function updateRole(tx: Tx, organizationId: string, userId: string, role: Role): void {
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

/** Queues a change of a member's role and expiry (ISO; null: never). */
export function updateRoleAndExpiry(
  tx: Tx,
  organizationId: string,
  userId: string,
  role: Role,
  expiresAt: string | null,
): void {
  tx.later(roleAndExpiryUpdate(tx.sql, organizationId, userId, role, tx.timestamp(), storedExpiry(tx, expiresAt)));
}

const metadataUpdate = prepare((sql, organizationId: string, userId: string, metadata: string, now: DbTimestamp) =>
  sql
    .updateTable('organization_users')
    .set({ public_metadata: metadata, updated_at: now })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId),
);

/** Queues the change of a membership's public metadata (serialized JSON). */
export function updateMemberMetadata(tx: Tx, organizationId: string, userId: string, metadata: string): void {
  tx.later(metadataUpdate(tx.sql, organizationId, userId, metadata, tx.timestamp()));
}

const membershipDelete = prepare((sql, organizationId: string, userId: string) =>
  sql.deleteFrom('organization_users').where('organization_id', '=', organizationId).where('user_id', '=', userId),
);

/**
 * Queues the delete of a membership (its team places go with it, by their foreign key), its
 * search words, and its count.
 */
export function deleteMembership(tx: Tx, organizationId: string, userId: string): void {
  tx.later(membershipDelete(tx.sql, organizationId, userId));
  unindexMembership(tx, organizationId, userId);
  tx.later(memberCountChange(tx.sql, organizationId, -1));
}

/** The organization's seats; lapsed memberships and open invitations are counted only under a limit. */
const seatsQuery = (sql: Sql, organizationId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organizations as o')
    .select((eb) => [
      'o.max_members',
      'o.member_count',
      eb.case().when('o.max_members', 'is', null).then(0).else(lapsedMemberCount('o', now)).end().as('lapsed'),
      eb
        .case()
        .when('o.max_members', 'is', null)
        .then(0)
        .else(
          eb
            .selectFrom('invitations as i')
            .select((count) => count.fn.countAll<number | string>().as('invited'))
            .whereRef('i.organization_id', '=', 'o.id')
            .where('i.status', '=', 'pending')
            .where('i.expires_at', '>', now),
        )
        .end()
        .as('invited'),
    ])
    .where('o.id', '=', organizationId);

const seats = prepare(seatsQuery);

/**
 * What a seat limit is judged on: the limit, the current members, the open invitations. Without a
 * limit there is nothing to judge: lapsed memberships and invitations are then not counted.
 */
export interface Seats {
  maxMembers: number | null;
  members: number;
  invited: number;
}

/**
 * Queues the read of the organization's seats, to go out with the change's next read; what it
 * returns tells them once that read has run.
 */
export function seatsOf(tx: Tx, organizationId: string): () => Seats {
  let read: Seats | undefined;
  tx.later(seats(tx.sql, organizationId, tx.timestamp()), (result) => {
    read = seatsIn(result.rows[0]);
  });
  return () => {
    if (!read) throw new Error('The seats are read with the change’s next read: read before asking for them');
    return read;
  };
}

type SeatsRow = Awaited<ReturnType<ReturnType<typeof seatsQuery>['execute']>>[number];

const seatsIn = (row: SeatsRow | undefined): Seats => ({
  maxMembers: row?.max_members ?? null,
  members: Number(row?.member_count ?? 0) - Number(row?.lapsed ?? 0),
  invited: Number(row?.invited ?? 0),
});

/**
 * The user with an e-mail, with their current membership (`m`) or the expired one still stored
 * (`x`), and the organization's seats: what adding a member decides on, in one statement.
 */
const userByEmailWithSeats = prepare((sql, organizationId: string, email: string, now: DbTimestamp) =>
  seatsQuery(sql, organizationId, now)
    .innerJoin('users as u', (join) => join.on('u.email', '=', email))
    .leftJoin('organization_users as m', (join) =>
      join.onRef('m.organization_id', '=', 'o.id').onRef('m.user_id', '=', 'u.id').on(unexpired('m', now)),
    )
    .leftJoin('organization_users as x', (join) =>
      join.onRef('x.organization_id', '=', 'o.id').onRef('x.user_id', '=', 'u.id').on(lapsed('x', now)),
    )
    .select(['u.id as user_id', 'm.role as member_role', 'x.role as lapsed_role', 'x.expires_at as lapsed_expires_at']),
);

/**
 * The user with an e-mail, with their membership here, and the organization's seats (read under
 * the change's lock); undefined when no user has that e-mail (or the organization is gone).
 */
export async function userByEmail(tx: Tx, organizationId: string, email: string) {
  const row = await tx.first(userByEmailWithSeats(tx.sql, organizationId, email, tx.timestamp()));
  return row && { ...row, seats: seatsIn(row) };
}

const memberWithUser = prepare((sql, organizationId: string, userId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select([
      'u.id as user_id',
      'u.first_name',
      'u.last_name',
      'u.email',
      'm.role',
      'm.created_at',
      'm.updated_at',
      'm.expires_at',
      'm.public_metadata',
    ])
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', '=', userId)
    .where(unexpired('m', now)),
);

/** One current member with their profile. */
export const memberRow = (reader: ClockedReader, organizationId: string, userId: string) =>
  reader.first(memberWithUser(reader.sql, organizationId, userId, nowFor(reader)));

/** The organization's current members, each joined with their user. */
export const members = (sql: Sql, organizationId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .where('m.organization_id', '=', organizationId)
    .where(unexpired('m', now));

const listKey = { createdAt: 'm.created_at', id: 'm.user_id' } as const;

/** A legacy list's item: the member, with their membership's role and creation. */
export const LEGACY_ITEM_COLUMNS = [
  'u.id as user_id',
  'u.first_name',
  'u.last_name',
  'm.role',
  'u.email',
  'm.created_at',
] as const;

/** The legacy list's rows: the item's fields, in its order, so that each row becomes the item in place. */
const legacyListRows = pagedList(
  (sql: Sql, organizationId: string, now: DbTimestamp) => members(sql, organizationId, now).select(LEGACY_ITEM_COLUMNS),
  listKey,
);

/** A member page's item: the member, their membership's expiry and public metadata. */
export const PAGE_ITEM_COLUMNS = [...LEGACY_ITEM_COLUMNS, 'm.expires_at', 'm.public_metadata'] as const;

/** The page's rows, with each membership's expiry. */
const pageRows = pagedList(
  (sql: Sql, organizationId: string, now: DbTimestamp) => members(sql, organizationId, now).select(PAGE_ITEM_COLUMNS),
  listKey,
);

export const legacyMemberRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  legacyListRows(reader, reader.dialect, page, organizationId, nowFor(reader));

export const memberPageRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  pageRows(reader, reader.dialect, page, organizationId, nowFor(reader));

/** How many current members the organization has: the count it keeps, less its lapsed memberships. */
const currentMembers = prepare((sql, organizationId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organizations as o')
    .select(currentMemberCount('o', now).as('total'))
    .where('o.id', '=', organizationId),
);

export const memberCount = async (reader: ClockedReader, organizationId: string): Promise<number> =>
  Number((await reader.first(currentMembers(reader.sql, organizationId, nowFor(reader))))?.total ?? 0);

/**
 * The oldest expired memberships, by organization_users_expires_idx. An owner's membership cannot
 * expire (refused on input, cleared when ownership is handed over); should a row say otherwise,
 * it is left alone rather than risk an organization's last owner, and it is not read again.
 */
const expiredMemberships = prepare((sql, now: DbTimestamp, limit: number) =>
  sql
    .selectFrom('organization_users as m')
    .select(['m.organization_id', 'm.user_id'])
    .where(lapsed('m', now))
    .where('m.role', '<>', 'owner')
    .orderBy('m.expires_at')
    .limit(limit),
);

export const expiredMembershipBatch = (reader: ClockedReader, limit: number) =>
  reader.all(expiredMemberships(reader.sql, nowFor(reader), limit));

const expiredMembership = prepare((sql, organizationId: string, userId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organization_users as m')
    .select(['m.role', 'm.expires_at'])
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', '=', userId)
    .where(lapsed('m', now)),
);

/** A membership that has expired and is still stored. */
export const lapsedMembershipOf = (tx: Tx, organizationId: string, userId: string) =>
  tx.first(expiredMembership(tx.sql, organizationId, userId, tx.timestamp()));

/** How many current memberships of the organization have `role`. */
export async function membersWithRole(tx: Tx, organizationId: string, role: Role): Promise<number> {
  const row = await tx.first(
    tx.sql
      .selectFrom('organization_users as m')
      .select((count) => count.fn.countAll<number | string>().as('members'))
      .where('m.organization_id', '=', organizationId)
      .where('m.role', '=', role)
      .where(unexpired('m', tx.timestamp())),
  );
  return Number(row?.members ?? 0);
}
