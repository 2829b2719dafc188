/**
 * The two timestamp forms of the contract (behaviour §5). Values arrive as `Date` from hydrated
 * entities and as whatever the driver returns from projected rows, so both are normalised here.
 */
import { z } from 'zod';

export type StoredTimestamp = Date | string | number;

/**
 * A cursor's timestamp (pages.ts, sorted-pages.ts): whole milliseconds a stored timestamp can hold,
 * from 1970 to the end of MySQL's `datetime`, the year 9999. A cursor is the caller's to send back,
 * and a number past a Date's range would otherwise reach the statement as an invalid date.
 */
export const cursorMilliseconds = z
  .number()
  .int()
  .min(0)
  .max(Date.UTC(9999, 11, 31, 23, 59, 59, 999));

export function toDate(value: StoredTimestamp): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  // A MySQL `datetime` text has no zone; every timestamp is stored in UTC.
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
}

const MYSQL_DATETIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/;
/** A MySQL `datetime(3)` text, as the driver returns every stored timestamp (UTC). */
const MYSQL_DATETIME_MS = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/;

/**
 * `2026-11-22T12:34:56.789Z`. A MySQL `datetime(3)` text is rewritten rather than parsed into a
 * Date and printed again, which every read of a user or member did twice.
 */
export const isoTimestamp = (value: StoredTimestamp): string =>
  typeof value === 'string' && MYSQL_DATETIME_MS.test(value)
    ? `${value.slice(0, 10)}T${value.slice(11)}Z`
    : toDate(value).toISOString();

/** A timestamp that may be absent (an expiry), as `isoTimestamp` writes it, or null. */
export const isoTimestampOrNull = (value: StoredTimestamp | null | undefined): string | null =>
  value == null ? null : isoTimestamp(value);

/** `2026-11-22 12:34:56`, the member list's legacy form. */
export const listTimestamp = (value: StoredTimestamp): string =>
  // MySQL already returns this form (with milliseconds): cut it rather than parse it, since the
  // member list formats thousands of rows per request.
  typeof value === 'string' && MYSQL_DATETIME.test(value)
    ? value.slice(0, 19)
    : toDate(value).toISOString().slice(0, 19).replace('T', ' ');
