/**
 * Guards of one value folded into the read they go with (guarded-reads.ts): the read's statement
 * with each guard's as a column, `select (<guard>) as guard_value__0, <the read's columns> from …`
 * (`select *, (<guard>) as …` after a bare star).
 * One prepared statement costs the database about two thirds of what the guard and the read cost
 * as two statements in one text query (docs/performance.md, "Measured choices in the code").
 *
 * Only a read that runs as a server-side prepared statement is folded: one of a fixed shape
 * (prepared.ts), so that each folded text is built once and the set of them stays small: one-row
 * reads and the pages of a member search (members/selected-members.queries.ts). The lists sent as
 * text stay as they were: folded into a text query, a list cost the database more, not less. The
 * guards' columns are taken off each row by making the row anew: V8 keeps no fast shape for an
 * object a property was deleted from, even the last one added.
 */
import { CompiledQuery } from 'kysely';
import { isServerPrepared, serveAsPrepared } from './prepared.ts';

/** The column the `index`th guard's value comes back in; no read selects such a name. */
export const guardColumn = (index: number): string => GUARD_COLUMNS[index] ?? `${GUARD_PREFIX}${index}`;
const GUARD_PREFIX = 'guard_value__';
const GUARD_COLUMNS = [`${GUARD_PREFIX}0`, `${GUARD_PREFIX}1`];

/** By a prepared read's SQL: whether it is a single SELECT, which can take guards as columns. */
const foldable = new Map<string, boolean>();

/** Whether a read can take guards as columns: a single prepared SELECT (module comment). */
export function takesGuards(sql: string): boolean {
  if (!isServerPrepared(sql)) return false;
  let takes = foldable.get(sql);
  if (takes === undefined) {
    takes = sql.startsWith('select ') && !sql.includes(' union ');
    foldable.set(sql, takes);
  }
  return takes;
}

/** Folded texts by the read's SQL, then by the guards': built once each (module comment). */
const foldedTexts = new Map<string, Array<{ guards: readonly string[]; sql: string }>>();

function foldedText(guards: readonly CompiledQuery[], read: string): string {
  let known = foldedTexts.get(read);
  if (!known) foldedTexts.set(read, (known = []));
  const found = known.find(
    (folded) =>
      folded.guards.length === guards.length && folded.guards.every((sql, index) => sql === guards[index]!.sql),
  );
  if (found) return found.sql;
  const columns = guards.map((guard, index) => `(${guard.sql}) as ${guardColumn(index)}`).join(', ');
  // After `distinct`, which applies to the whole row; after a bare `*`, which must come first.
  const head = read.startsWith('select distinct ') ? 'select distinct ' : 'select ';
  const list = read.slice(head.length);
  const sql = list.startsWith('* ') ? `${head}*, ${columns} ${list.slice(2)}` : `${head}${columns}, ${list}`;
  known.push({ guards: guards.map((guard) => guard.sql), sql });
  serveAsPrepared(sql);
  return sql;
}

/** `read`, which takesGuards, with `guards` as its first columns. */
export function foldGuards(guards: readonly CompiledQuery[], read: CompiledQuery): CompiledQuery {
  const parameters: unknown[] = [];
  for (const guard of guards) parameters.push(...guard.parameters);
  parameters.push(...read.parameters);
  return CompiledQuery.raw(foldedText(guards, read.sql), parameters);
}

/**
 * Takes the guards' columns off `rows`, each row made anew without them: a row a property was
 * deleted from is a slow object (module comment) for everything after (the item made of it in place,
 * the output's check, its JSON).
 */
export function withoutGuardColumns(rows: Array<Record<string, unknown>>, guards: number): void {
  for (let index = 0; index < rows.length; index++) rows[index] = withoutGuards(rows[index]!, guards);
}

/** `row` without the guards' columns: by name for one guard, the common case. */
function withoutGuards(row: Record<string, unknown>, guards: number): Record<string, unknown> {
  if (guards === 1) {
    const { [GUARD_COLUMNS[0]!]: guard, ...read } = row;
    return read;
  }
  const read: Record<string, unknown> = {};
  for (const column in row) if (!column.startsWith(GUARD_PREFIX)) read[column] = row[column];
  return read;
}
