/** SCIM's paging (RFC 7644 §3.4.2.4): `startIndex` from 1, `count` up to MAX_RESULTS (behaviour §18). */
import { invalidValue } from './scim-errors.ts';
import { MAX_RESULTS } from './schemas.ts';

export interface ListQuery {
  filter?: string;
  startIndex?: string;
  count?: string;
  excludedAttributes?: string;
}

const DEFAULT_COUNT = 100;

function integerOf(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^-?\d{1,9}$/.test(value)) throw invalidValue(`${name} must be an integer`);
  return Number(value);
}

/** The page asked for: a `startIndex` below 1 is 1, a negative `count` is 0 (RFC 7644 §3.4.2.4). */
export function pageOf(query: ListQuery): { startIndex: number; offset: number; count: number } {
  const startIndex = Math.max(1, integerOf('startIndex', query.startIndex, 1));
  const count = Math.min(MAX_RESULTS, Math.max(0, integerOf('count', query.count, DEFAULT_COUNT)));
  return { startIndex, offset: startIndex - 1, count };
}
