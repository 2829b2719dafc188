/**
 * Hot queries built and compiled once, then run with new values. Kysely builds a query's tree and
 * compiles it to SQL on every call, a visible share of every request's CPU in the profiles of
 * `npm run bench`, though their SQL never changes, only their values. Kysely has no prepared form of
 * its own, hence this module.
 *
 * `prepare(build)` returns a function taking the query builder (which fixes the dialect's SQL)
 * and the values. On its first call per query builder it builds the query once with a placeholder
 * for each value and keeps the compiled SQL and where each placeholder landed among the
 * parameters; every call then fills in that call's values. So `build` must use its values only as
 * values (compared, inserted, set), never to choose the query's shape (an optional condition, an
 * IN list of varying length): a placeholder that does not come through to the compiled parameters
 * unchanged fails the first call, and such a query is written inline instead.
 */
import { CompiledQuery, type Compilable } from 'kysely';
import type { Sql } from './schema.ts';

/**
 * The SQL of every query prepared here: on MySQL and MariaDB they run as server-side prepared
 * statements (mysql-pool.ts). The set stays small, as the server requires: each text is prepared
 * once per connection, and MariaDB caps prepared statements (max_prepared_stmt_count, 16,382 by
 * default, over all sessions).
 */
const serverPrepared = new Set<string>();

export const isServerPrepared = (sql: string): boolean => serverPrepared.has(sql);

/**
 * Has `sql` run as a server-side prepared statement too: a statement of a fixed shape made from
 * prepared ones (folded-guards.ts, guards folded into a read), so that the set stays as small.
 */
export const serveAsPrepared = (sql: string): void => void serverPrepared.add(sql);

interface Template {
  sql: string;
  /** The compiled parameters; at the positions `slots[i]` goes the call's value `i`. */
  parameters: readonly unknown[];
  slots: number[][];
}

/** A value no caller sends: one per argument of a query being prepared. */
const placeholder = (index: number) => `\u0000prepared value ${index}\u0000`;

function compileTemplate(query: Compilable<unknown>, arity: number): Template {
  const { sql, parameters } = query.compile();
  const slots = Array.from({ length: arity }, (_, index) => {
    const positions = parameters.flatMap((value, position) => (value === placeholder(index) ? [position] : []));
    if (positions.length === 0 || sql.includes(placeholder(index))) {
      throw new Error(`prepare: value ${index} must be a parameter of the query, not part of its shape: ${sql}`);
    }
    return positions;
  });
  return { sql, parameters, slots };
}

export interface PrepareOptions {
  /**
   * Whether it runs as a server-side prepared statement on MySQL and MariaDB (the default). Not for
   * a list of many rows: mysql2 decodes rows from that protocol far more slowly (mysql-pool.ts).
   */
  serverSide?: boolean;
}

export function prepare<Args extends unknown[], Row>(
  build: (sql: Sql, ...values: Args) => Compilable<Row>,
  { serverSide = true }: PrepareOptions = {},
): (sql: Sql, ...values: Args) => Compilable<Row> {
  const templates = new WeakMap<Sql, Template>();
  return (sql, ...values) => {
    let template = templates.get(sql);
    if (!template) {
      const placeholders = values.map((_, index) => placeholder(index)) as Args;
      template = compileTemplate(build(sql, ...placeholders), values.length);
      templates.set(sql, template);
      if (serverSide) serverPrepared.add(template.sql);
    }
    const parameters = [...template.parameters];
    template.slots.forEach((positions, index) => {
      for (const position of positions) parameters[position] = values[index];
    });
    const compiled = CompiledQuery.raw(template.sql, parameters) as CompiledQuery<Row>;
    return { compile: () => compiled };
  };
}
