/**
 * Keyset pagination for the lists (CONTRACT 6). A page ends at a row; the cursor names that row by
 * its sort key (created_at, id), so pages stay stable while rows are added. The cursor is opaque
 * to callers: base64url JSON of [created_at in ms, id].
 */
import type { ReferenceExpression, SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { badRequest } from '../errors.ts';
import { toDbTimestamp, type Dialect } from './database.ts';
import { toDate, type StoredTimestamp } from './timestamps.ts';

export interface PageRequest {
  /** At most this many items; undefined means the whole list. */
  limit?: number;
  cursor?: string | null;
}

export interface Page<T> {
  items: T[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

interface SortKey {
  createdAt: Date;
  id: string;
}

const cursorSchema = z.tuple([z.number().int().nonnegative(), z.string().min(1).max(128)]);

function decodeCursor(cursor: string | null | undefined): SortKey | undefined {
  if (!cursor) return undefined;
  try {
    const [milliseconds, id] = cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return { createdAt: new Date(milliseconds), id };
  } catch {
    throw badRequest('Invalid cursor', [{ field: 'cursor', problem: 'Not a cursor this service issued' }]);
  }
}

const encodeCursor = (createdAt: StoredTimestamp, id: string) =>
  Buffer.from(JSON.stringify([toDate(createdAt).getTime(), id])).toString('base64url');

/**
 * Cuts the rows of a query that fetched `limit + 1` rows into a page: the extra row only tells
 * that another page follows.
 */
export function toPage<Row, Item>(
  rows: Row[],
  limit: number | undefined,
  keyOf: (row: Row) => { createdAt: StoredTimestamp; id: string },
  toItem: (row: Row) => Item,
): Page<Item> {
  const hasMore = limit !== undefined && rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  const lastKey = hasMore && last ? keyOf(last) : undefined;
  return {
    items: pageRows.map(toItem),
    nextCursor: lastKey ? encodeCursor(lastKey.createdAt, lastKey.id) : null,
  };
}

/**
 * Completes a list query with the keyset condition after the cursor's row, the list's order and
 * the page's size (one extra row, see toPage). `key` names the sort key's two columns.
 */
export function paged<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: Dialect,
  page: PageRequest,
  key: { createdAt: ReferenceExpression<DB, TB>; id: ReferenceExpression<DB, TB> },
): SelectQueryBuilder<DB, TB, O> {
  const after = decodeCursor(page.cursor);
  let ordered = query;
  if (after) {
    const createdAt = toDbTimestamp(dialect, after.createdAt);
    ordered = ordered.where((eb) =>
      eb.or([
        eb(key.createdAt, '>', createdAt),
        eb.and([eb(key.createdAt, '=', createdAt), eb(key.id, '>', after.id)]),
      ]),
    );
  }
  ordered = ordered.orderBy(key.createdAt).orderBy(key.id);
  return page.limit === undefined ? ordered : ordered.limit(page.limit + 1);
}
