/**
 * Timestamps as MariaDB stores them, and the ids of organization events: UUID v7, in commit order
 * per organization.
 */
import { randomBytes, randomInt } from 'node:crypto';

/** `YYYY-MM-DD hh:mm:ss.mmm` in UTC, as MariaDB's `datetime(3)` takes it. */
export const storedNow = () => new Date().toISOString().slice(0, 23).replace('T', ' ');
/** A stored `datetime(3)` as the contract's ISO form. */
export const iso = (stored: string) => `${stored.replace(' ', 'T')}Z`;

const RANDOM_BITS = 74n; // rand_a (12 bits) and rand_b (62 bits) of a UUID v7
const RANDOM_MAX = 1n << RANDOM_BITS;

function formatUuidV7(milliseconds: bigint, random: bigint): string {
  const value =
    (milliseconds << 80n) | (0x7n << 76n) | ((random >> 62n) << 64n) | (0x2n << 62n) | (random & ((1n << 62n) - 1n));
  const hex = value.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A UUID v7 strictly greater than `newest` (an organization's newest event id, or null for a
 * fresh id): the clock's when it is ahead, else the newest id's millisecond with its random part
 * moved on by a random step, so that clock skew between instances and two changes in one
 * millisecond cannot reorder events.
 */
export function uuidV7After(newest: string | null): string {
  const now = BigInt(Date.now());
  const fresh = BigInt(`0x${randomBytes(10).toString('hex')}`) % RANDOM_MAX;
  if (newest === null) return formatUuidV7(now, fresh);
  const value = BigInt(`0x${newest.replaceAll('-', '')}`);
  const milliseconds = value >> 80n;
  if (now > milliseconds) return formatUuidV7(now, fresh);
  const random = (((value >> 64n) & 0xfffn) << 62n) | (value & ((1n << 62n) - 1n));
  const next = random + 1n + BigInt(randomInt(2 ** 32));
  return next < RANDOM_MAX ? formatUuidV7(milliseconds, next) : formatUuidV7(milliseconds + 1n, fresh);
}

export const INSERT_EVENT = `insert into organization_events
  (event_id, organization_id, type, actor_user_id, subject_user_id, data, created_at) values (?, ?, ?, ?, ?, ?, ?)`;
