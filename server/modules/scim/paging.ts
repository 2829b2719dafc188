/**
 * A list's query parameters (RFC 7644 §3.4.2): `filter`, `excludedAttributes`, and the page,
 * `startIndex` from 1 and `count` up to MAX_RESULTS (behaviour §18). Each is read once: one given
 * twice (`?filter=a&filter=b`, which the query string parser makes a list) is refused, since which
 * of them was meant cannot be told.
 */
import { invalidFilter, invalidValue, ScimProblem } from './scim-errors.ts';
import { MAX_RESULTS } from './schemas.ts';

/** The query string as parsed: a parameter given more than once is a list. */
export type ListQuery = Partial<Record<string, string | string[]>>;

type Parameter = 'filter' | 'startIndex' | 'count' | 'excludedAttributes';

/** The parameter's value, if given; given more than once, 400 (`invalidFilter` for the filter). */
export function parameter(query: ListQuery, name: Parameter): string | undefined {
  const value = query[name];
  if (!Array.isArray(value)) return value;
  const why = `${name} must be given once`;
  throw name === 'filter' ? invalidFilter(why) : invalidValue(why);
}

/**
 * The discovery endpoints (`ServiceProviderConfig`, `ResourceTypes`, `Schemas`) take no filter:
 * one given is 403 (RFC 7644 §4), so that a client never takes what it answers for a match.
 */
export function refuseFilter(query: ListQuery): void {
  if (query.filter !== undefined) {
    throw new ScimProblem('FORBIDDEN', undefined, 'The discovery endpoints take no filter: they answer all they hold');
  }
}

const DEFAULT_COUNT = 100;

/**
 * Any integer, however many digits it has (RFC 7644 §3.4.2.4): one beyond what a number holds
 * exactly is taken as the largest that does, which is past every page (an empty one) or clamped.
 */
function integerOf(name: 'startIndex' | 'count', query: ListQuery, fallback: number): number {
  const value = parameter(query, name);
  if (value === undefined || value === '') return fallback;
  if (!/^-?\d+$/.test(value)) throw invalidValue(`${name} must be an integer`);
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(-Number.MAX_SAFE_INTEGER, Number(value)));
}

/** The page asked for: a `startIndex` below 1 is 1, a negative `count` is 0 (RFC 7644 §3.4.2.4). */
export function pageOf(query: ListQuery): { startIndex: number; offset: number; count: number } {
  const startIndex = Math.max(1, integerOf('startIndex', query, 1));
  const count = Math.min(MAX_RESULTS, Math.max(0, integerOf('count', query, DEFAULT_COUNT)));
  return { startIndex, offset: startIndex - 1, count };
}
