/**
 * Keyset pagination for the lists (behaviour §6). A page ends at a row; the cursor names that row by
 * its sort key (created_at, id), so pages stay stable while rows are added. The cursor is opaque
 * to callers: base64url JSON of [created_at in ms, id].
 */
import type { ReferenceExpression, SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { badRequest } from '../errors.ts';
import { toDbTimestamp, type DbTimestamp, type Dialect, type Sql } from './schema.ts';
import { prepare } from './prepared.ts';
import type { Reader } from './unit-of-work.ts';
import { cursorMilliseconds, toDate, type StoredTimestamp } from './timestamps.ts';

/** The whole list, or a page of at most `limit` items after the cursor's row (the first without one). */
export type PageRequest = { limit?: undefined; cursor?: undefined } | { limit: number; cursor?: string | null };

export interface Page<T> {
  items: T[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

interface SortKey {
  createdAt: Date;
  id: string;
}

const cursorSchema = z.tuple([cursorMilliseconds, z.string().min(1).max(128)]);

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
 * that another page follows. The last row's key is read before `toItem` runs, which may turn each
 * row into its item in place (replaceInPlace).
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

/** The two columns a list is sorted by, as the list's query names them. */
type SortColumns<DB, TB extends keyof DB> = {
  createdAt: ReferenceExpression<DB, TB>;
  id: ReferenceExpression<DB, TB>;
};

/**
 * A list query paged by keyset (see toPage): all its rows, or `limit + 1` of them after the
 * cursor's row (from the first when there is none), in the list's order: oldest first, or newest
 * first when `newestFirst`. Each of these three
 * shapes is built and compiled once (prepared.ts), with the cursor and the limit as bound values,
 * so a request only fills in its values; the rows come back over the text protocol
 * (`serverSide: false`, see mysql-pool.ts).
 */
export function pagedList<Values extends unknown[], DB, TB extends keyof DB, Row>(
  build: (sql: Sql, ...values: Values) => SelectQueryBuilder<DB, TB, Row>,
  key: SortColumns<DB, TB>,
  { newestFirst = false } = {},
) {
  const direction = newestFirst ? 'desc' : 'asc';
  const beyond = newestFirst ? '<' : '>';
  const ordered = (query: SelectQueryBuilder<DB, TB, Row>) =>
    query.orderBy(key.createdAt, direction).orderBy(key.id, direction);
  const afterRow = (query: SelectQueryBuilder<DB, TB, Row>, createdAt: DbTimestamp, id: string) =>
    query.where((eb) =>
      eb.or([
        eb(key.createdAt, beyond, createdAt),
        eb.and([eb(key.createdAt, '=', createdAt), eb(key.id, beyond, id)]),
      ]),
    );
  const text = { serverSide: false };
  const whole = prepare((sql, ...values: Values) => ordered(build(sql, ...values)), text);
  const first = prepare((sql, limit: number, ...values: Values) => ordered(build(sql, ...values)).limit(limit), text);
  const next = prepare(
    (sql, createdAt: DbTimestamp, id: string, limit: number, ...values: Values) =>
      ordered(afterRow(build(sql, ...values), createdAt, id)).limit(limit),
    text,
  );
  return (reader: Reader, dialect: Dialect, page: PageRequest, ...values: Values): Promise<Row[]> => {
    if (page.limit === undefined) return reader.all(whole(reader.sql, ...values));
    // One row more than the page: it tells that another page follows (toPage).
    const limit = page.limit + 1;
    const cursor = decodeCursor(page.cursor);
    if (!cursor) return reader.all(first(reader.sql, limit, ...values));
    return reader.all(next(reader.sql, toDbTimestamp(dialect, cursor.createdAt), cursor.id, limit, ...values));
  };
}

/**
 * The driver's row with one field replaced, typed as the item it becomes: for the lists, which map
 * thousands of rows per request, instead of a copy of each (docs/performance.md, "Measured choices
 * in the code"). The row's fields, in the query's order, are the item's.
 */
export function replaceInPlace<Row extends object, Key extends keyof Row, Value>(
  row: Row,
  key: Key,
  value: Value,
): Omit<Row, Key> & Record<Key, Value> {
  const item = row as unknown as Record<Key, Value>;
  item[key] = value;
  return item as Omit<Row, Key> & Record<Key, Value>;
}
