/**
 * When a membership row counts (behaviour §11): from its `expires_at` on it is no membership,
 * whether or not the sweep (modules/members/expiry-sweep.ts) has removed it yet. Every read of a
 * membership, in a WHERE or a join's ON, says so with `unexpired` and no other condition.
 */
import { sql as kyselySql, type SqlBool } from 'kysely';
import type { DbTimestamp, Dialect } from '../database/schema.ts';
import type { Reader } from '../database/unit-of-work.ts';
import { forbidden } from '../errors.ts';

/** Non-members and unknown organizations are told the same thing (behaviour §3.2). */
export const notInOrganization = () => forbidden('You are not a member of this organization');

/**
 * A reader that tells the time as the database stores it: a transaction, whose clock is its `now`,
 * or reads outside one.
 */
export type ClockedReader = Reader & {
  readonly dialect: Dialect;
  timestamp(date: Date): DbTimestamp;
  readonly now?: Date;
};

/** The moment memberships are judged at by a read (see `unexpired`): its transaction's clock, else now. */
export const nowFor = (reader: ClockedReader): DbTimestamp => reader.timestamp(reader.now ?? new Date());

/** The membership row `alias` still counts at `now`. */
export const unexpired = (alias: string, now: DbTimestamp) => {
  const expiresAt = kyselySql.ref(`${alias}.expires_at`);
  return kyselySql<SqlBool>`(${expiresAt} is null or ${expiresAt} > ${now})`;
};

/**
 * The join condition of a directory user (`directoryUser`) to `membership`, the row of its linked
 * user's membership while it is current: none once it ended, however it ended (behaviour §18).
 */
export const currentMembershipOfDirectoryUser = (membership: string, directoryUser: string, now: DbTimestamp) =>
  kyselySql<SqlBool>`${kyselySql.ref(`${membership}.organization_id`)} = ${kyselySql.ref(`${directoryUser}.organization_id`)}
    and ${kyselySql.ref(`${membership}.user_id`)} = ${kyselySql.ref(`${directoryUser}.user_id`)} and ${unexpired(membership, now)}`;

/**
 * The opposite of `unexpired`: the membership row `alias` has expired at `now` and awaits removal
 * (written without its `is null`, so that the sweep's search can use organization_users_expires_idx).
 */
export const lapsed = (alias: string, now: DbTimestamp) =>
  kyselySql<SqlBool>`${kyselySql.ref(`${alias}.expires_at`)} <= ${now}`;

/** How many memberships of the organization row `alias` have expired at `now` and await the sweep. */
export const lapsedMemberCount = (alias: string, now: DbTimestamp) =>
  kyselySql<number | string>`(select count(*) from organization_users lapsed_members
    where lapsed_members.organization_id = ${kyselySql.ref(`${alias}.id`)} and ${lapsed('lapsed_members', now)})`;

/**
 * The members of the organization row `alias` at `now`: the count its changes keep (entities.ts,
 * Organization.memberCount) less its expired memberships the sweep has not removed yet, counted by
 * organization_users_lapsed_idx. Every read that shows a member count says it so; none counts the
 * members themselves.
 */
export const currentMemberCount = (alias: string, now: DbTimestamp) =>
  kyselySql<number | string>`(${kyselySql.ref(`${alias}.member_count`)} - ${lapsedMemberCount(alias, now)})`;
