/**
 * The statements of a page of the members a search, a role filter and an order select (behaviour
 * §15). The statement's shape (how many words, whether each has an end, how many roles, the order,
 * whether a cursor follows) varies from request to request, its values apart: each shape is built
 * and compiled once (database/prepared.ts), kept among the SHAPES_KEPT last used, and filled in with
 * each request's values, instead of built by Kysely for every request.
 */
import type { Compilable } from 'kysely';
import { LRUCache } from 'lru-cache';
import { nowFor, type ClockedReader } from '../../platform/authorization/memberships.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp, Dialect, Sql } from '../../platform/database/schema.ts';
import {
  afterKey,
  boundCursorValues,
  orderByColumns,
  type SortedRequest,
} from '../../platform/database/sorted-pages.ts';
import type { StoredTimestamp } from '../../platform/database/timestamps.ts';
import { memberMatches, wordRanges, type WordRange } from '../../platform/database/word-index.ts';
import { LEGACY_ITEM_COLUMNS, members, PAGE_ITEM_COLUMNS } from './members.queries.ts';

/** What selects the members of a searched, filtered or sorted page. */
export interface MemberSelection {
  /** Folded search words (shared/search.ts), each beginning a word of every member found. */
  words: string[];
  roles: string[] | undefined;
}

/** What a sort key reads of a member's row. */
export interface LegacyMemberRow {
  user_id: string;
  first_name: string;
  last_name: string;
  role: string;
  email: string;
  created_at: StoredTimestamp;
}

/** All of a statement but its values. */
interface Shape {
  dialect: Dialect;
  /** For each search word, whether its range has an end (word-index.ts, WordRange). */
  ends: boolean[];
  /** How many roles the filter names, or -1 without one. */
  roles: number;
  key: string[];
  descending: boolean;
  afterCursor: boolean;
}

/** The most shapes kept: a caller can make a shape per count of words and of roles. */
const SHAPES_KEPT = 200;

/**
 * The statement of `shape` but its columns, from its values in order: the organization, the
 * moment, each word's range, the roles, the cursor's key values, the limit.
 */
function selectedMembers(sql: Sql, shape: Shape, values: unknown[]) {
  let next = 0;
  const take = () => values[next++];
  const organizationId = take() as string;
  let query = members(sql, organizationId, take() as DbTimestamp);
  const ranges = shape.ends.map((hasEnd): WordRange => ({
    from: take() as string,
    to: hasEnd ? (take() as string) : null,
  }));
  for (const match of memberMatches(shape.dialect, 'm', organizationId, ranges)) query = query.where(match);
  if (shape.roles >= 0) query = query.where('m.role', 'in', Array.from({ length: shape.roles }, take) as string[]);
  if (shape.afterCursor) {
    query = query.where(afterKey(shape.key, shape.descending, shape.key.map(take)));
  }
  for (const { ref, direction } of orderByColumns(shape.key, shape.descending)) query = query.orderBy(ref, direction);
  return query.limit(take() as number);
}

/** The statement of each shape, built when the shape is first asked for. */
function keptByShape<Statement extends object>(build: (shape: Shape) => Statement): (shape: Shape) => Statement {
  const kept = new LRUCache<string, Statement>({ max: SHAPES_KEPT });
  return (shape) => {
    const key = JSON.stringify(shape);
    let statement = kept.get(key);
    if (!statement) {
      statement = build(shape);
      kept.set(key, statement);
    }
    return statement;
  };
}

/**
 * Whether a shape's page runs as a server-side prepared statement (database/prepared.ts), with the
 * caller's guard folded in (database/folded-guards.ts): one statement that costs the database less
 * than the guard and the page as two in one text query, with or without the search's rows
 * (docs/performance.md, "Measured choices in the code"). Only the shapes of at most two words and
 * one role, 336 texts over both statements: each connection keeps its prepared statements, and
 * MariaDB caps them over all sessions, so a caller must not be able to make a text per request.
 */
const preparedShape = (shape: Shape) => shape.ends.length <= 2 && shape.roles <= 1;

const pageStatement = keptByShape((shape) =>
  prepare((sql, ...values: unknown[]) => selectedMembers(sql, shape, values).select(PAGE_ITEM_COLUMNS), {
    serverSide: preparedShape(shape),
  }),
);
const legacyStatement = keptByShape((shape) =>
  prepare((sql, ...values: unknown[]) => selectedMembers(sql, shape, values).select(LEGACY_ITEM_COLUMNS), {
    serverSide: preparedShape(shape),
  }),
);

/** The shape and the values of the page `request` asks for. */
function statementOf(
  reader: ClockedReader,
  organizationId: string,
  selection: MemberSelection,
  request: SortedRequest<LegacyMemberRow>,
): { shape: Shape; values: unknown[] } {
  const ranges = wordRanges(selection.words);
  const cursor = boundCursorValues(request);
  const shape: Shape = {
    dialect: reader.dialect,
    ends: ranges.map((range) => range.to !== null),
    roles: selection.roles?.length ?? -1,
    key: request.key.map((column) => column.column),
    descending: request.descending,
    afterCursor: cursor !== undefined,
  };
  const values = [
    organizationId,
    nowFor(reader),
    ...ranges.flatMap((range) => (range.to === null ? [range.from] : [range.from, range.to])),
    ...(selection.roles ?? []),
    ...(cursor ?? []),
    request.limit + 1,
  ];
  return { shape, values };
}

/** The rows of the page `request` asks for, read by the statement `statements` has for its shape. */
const selectedRows =
  <Row>(statements: (shape: Shape) => (sql: Sql, ...values: unknown[]) => Compilable<Row>) =>
  (
    reader: ClockedReader,
    organizationId: string,
    selection: MemberSelection,
    request: SortedRequest<LegacyMemberRow>,
  ) => {
    const { shape, values } = statementOf(reader, organizationId, selection, request);
    return reader.all(statements(shape)(reader.sql, ...values));
  };

/** A page of the members a search or filter selects, with each membership's expiry and public metadata. */
export const selectedMemberRows = selectedRows(pageStatement);

/**
 * Such a page's rows as the legacy list shows them. Without the public metadata, a text column,
 * MariaDB sorts the page in memory: with it, in a temporary table of its own, which cost a search
 * by e-mail more than the rest of the statement (docs/performance.md, "Measured choices in the code").
 */
export const selectedLegacyMemberRows = selectedRows(legacyStatement);
