/**
 * Keyset pages of a list in an order the caller chooses, under a search or filter (behaviour §6,
 * §15): the cursor names the page's last row by the values of its sort key, and carries a
 * fingerprint of the order, search and filter it was made under, so that it is refused (400)
 * under any other. Base64url JSON of [fingerprint, ...key values]. pages.ts pages the fixed order
 * of the plain lists with prepared statements; these lists' statements vary with the search.
 */
import { createHash } from 'node:crypto';
import { sql as kyselySql, type RawBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';
import { badRequest } from '../errors.ts';
import type { Page } from './pages.ts';
import { toDbTimestamp, type Dialect } from './schema.ts';
import { cursorMilliseconds, toDate, type StoredTimestamp } from './timestamps.ts';

/** A sort key's column: its name in the query, and how a row's value of it goes into a cursor and back. */
export interface KeyColumn<Row> {
  column: string;
  /** A string, or a timestamp: milliseconds in the cursor (`cursorMilliseconds`). */
  kind: 'string' | 'timestamp';
  read: (row: Row) => string | number;
  /** The cursor's value as the statement binds it (a timestamp in the dialect's form). */
  bind?: (value: string | number) => unknown;
}

/** A key column of a row's creation time (`created_at`). */
export const createdAtColumn = <Row extends { created_at: StoredTimestamp }>(
  column: string,
  dialect: Dialect,
): KeyColumn<Row> => ({
  column,
  kind: 'timestamp',
  read: (row) => toDate(row.created_at).getTime(),
  bind: (value) => toDbTimestamp(dialect, new Date(value)),
});

const fitsKind = (value: string | number, kind: KeyColumn<never>['kind']) =>
  kind === 'string' ? typeof value === 'string' : cursorMilliseconds.safeParse(value).success;

export interface SortedRequest<Row> {
  key: KeyColumn<Row>[];
  descending: boolean;
  /** Whatever selects the rows besides the order (search, filter): a cursor made under other ones is refused. */
  scope: unknown[];
  limit: number;
  cursor?: string | null;
}

const cursorSchema = z.tuple([z.string()]).rest(z.union([z.string().max(1000), z.number()]));

const fingerprint = (request: SortedRequest<never>) =>
  createHash('sha256')
    .update(JSON.stringify([request.key.map((column) => column.column), request.descending, request.scope]))
    .digest('base64url')
    .slice(0, 16);

const badCursor = () =>
  badRequest('Invalid cursor', [
    { field: 'cursor', problem: 'Not a cursor this service issued for this search, filter and order' },
  ]);

/** The key values the cursor names, or none without a cursor; 400 for any other cursor. */
function decode<Row>(request: SortedRequest<Row>): Array<string | number> | undefined {
  if (!request.cursor) return undefined;
  let parsed: [string, ...Array<string | number>];
  try {
    parsed = cursorSchema.parse(JSON.parse(Buffer.from(request.cursor, 'base64url').toString('utf8')));
  } catch {
    throw badCursor();
  }
  const [print, ...values] = parsed;
  const fits =
    values.length === request.key.length && values.every((value, index) => fitsKind(value, request.key[index]!.kind));
  if (print !== fingerprint(request) || !fits) throw badCursor();
  return values;
}

/** The cursor's key values as the statement binds them, or none without a cursor; 400 for any other cursor. */
export function boundCursorValues<Row>(request: SortedRequest<Row>): unknown[] | undefined {
  return decode(request)?.map((value, index) => {
    const { bind } = request.key[index]!;
    return bind ? bind(value) : value;
  });
}

/**
 * The condition "after the row whose key `columns` hold `values`" (bound) in the order:
 * (a, b, c) > (x, y, z), written out as `a > x or (a = x and (b > y or (b = y and c > z)))` for
 * both databases.
 */
export function afterKey(columns: string[], descending: boolean, values: unknown[]): RawBuilder<SqlBool> {
  const beyond = kyselySql.raw(descending ? '<' : '>');
  let condition: RawBuilder<SqlBool> | undefined;
  for (let index = columns.length - 1; index >= 0; index--) {
    const ref = kyselySql.ref(columns[index]!);
    const value = values[index];
    condition = condition
      ? kyselySql<SqlBool>`(${ref} ${beyond} ${value} or (${ref} = ${value} and ${condition}))`
      : kyselySql<SqlBool>`${ref} ${beyond} ${value}`;
  }
  return condition!;
}

/** The condition "after the cursor's row" in the request's order, or none without a cursor. */
export function afterCursor<Row>(request: SortedRequest<Row>): RawBuilder<SqlBool> | undefined {
  const values = boundCursorValues(request);
  if (!values) return undefined;
  return afterKey(
    request.key.map((column) => column.column),
    request.descending,
    values,
  );
}

/** The order of key `columns`, each in the one direction. */
export const orderByColumns = (columns: string[], descending: boolean) =>
  columns.map((column) => ({
    ref: kyselySql.ref(column),
    direction: descending ? ('desc' as const) : ('asc' as const),
  }));

/** The request's order: each key column, in its direction. */
export const orderOf = <Row>(request: SortedRequest<Row>) =>
  orderByColumns(
    request.key.map((column) => column.column),
    request.descending,
  );

/** Rows fetched `limit + 1` at a time into a page; the extra row only tells that another follows. */
export function toSortedPage<Row, Item>(
  rows: Row[],
  request: SortedRequest<Row>,
  toItem: (row: Row) => Item,
): Page<Item> {
  const hasMore = rows.length > request.limit;
  const pageRows = hasMore ? rows.slice(0, request.limit) : rows;
  const last = pageRows.at(-1);
  const nextCursor =
    hasMore && last
      ? Buffer.from(
          JSON.stringify([
            fingerprint(request as SortedRequest<never>),
            ...request.key.map((column) => column.read(last)),
          ]),
        ).toString('base64url')
      : null;
  return { items: pageRows.map(toItem), nextCursor };
}
