/**
 * A span for each statement a serving connection sends, when tracing is on (platform/tracing/):
 * what the statement is (its kind and table, `select organizations`), never its values, which
 * travel apart from its text anyway. A multi-statement round trip (unit-of-work.ts) is one span
 * that names each of its statements. Installed on each new connection (orm.ts), around its
 * `executeQuery` (Kysely's, or statements.ts's on MySQL and MariaDB), the one call through which
 * every statement goes out.
 */
import type { CompiledQuery } from 'kysely';
import { inStatementSpan, type StatementSummary } from '../tracing/spans.ts';
import type { Engine } from './engine.ts';
import type { HookedConnection } from './statements.ts';

const KIND = /^\s*\(?\s*([a-z]+)/i;
const TABLE = /\b(?:from|into|update|join)\s+[`"]?(\w+)/i;
/** MariaDB's per-statement settings, before the statement they apply to. */
const SETTINGS = /^\s*set statement [^;]*? for /i;
/**
 * The per-statement time bound a transaction adds (unit-of-work.ts), on its own or merged into a
 * statement's own settings: what it leaves is the statement as written.
 */
const TIME_BOUNDS = /set statement max_statement_time = [\d.]+ for |max_statement_time = [\d.]+, /g;

/** A statement's kind and table, in lower case: `insert events`, `commit`. */
function describeStatement(withSettings: string): { kind: string; table?: string } {
  const sql = withSettings.replace(SETTINGS, '');
  const kind = (KIND.exec(sql)?.[1] ?? 'statement').toLowerCase();
  const table = TABLE.exec(sql)?.[1]?.toLowerCase();
  return table === undefined ? { kind } : { kind, table };
}

/** Joined as unit-of-work.ts joins the statements of one round trip. */
const STATEMENT_SEPARATOR = ';\n';

function summaryOf(sql: string, engine: Engine): StatementSummary {
  const statements = sql.split(STATEMENT_SEPARATOR).map(describeStatement);
  const summary = statements.map(({ kind, table }) => (table === undefined ? kind : `${kind} ${table}`)).join('; ');
  const attributes: StatementSummary['attributes'] = { 'db.system.name': engine, 'db.query.summary': summary };
  const [first] = statements;
  if (statements.length > 1) {
    attributes['db.operation.name'] = 'batch';
    attributes['db.operation.batch.size'] = statements.length;
  } else if (first) {
    attributes['db.operation.name'] = first.kind;
    if (first.table !== undefined) attributes['db.collection.name'] = first.table;
  }
  return Object.freeze({ name: summary, attributes: Object.freeze(attributes) });
}

/** The most summaries kept (summarizer). */
const SUMMARIES_KEPT = 1000;

/**
 * A statement's (or a round trip's) span name and attributes, kept by its text with the time
 * bounds taken off: the service sends a few hundred texts, and matching each of them every time
 * showed in CPU profiles (docs/performance.md, "Tracing"). A plain map emptied when full: the texts
 * are the service's own, so it fills only if a caller can vary a statement's shape, and then it
 * costs what no cache would.
 */
export function summarizer(engine: Engine): (sql: string) => StatementSummary {
  const summaries = new Map<string, StatementSummary>();
  return (sql) => {
    const unbounded = sql.replace(TIME_BOUNDS, '');
    let summary = summaries.get(unbounded);
    if (!summary) {
      if (summaries.size >= SUMMARIES_KEPT) summaries.clear();
      summary = summaryOf(unbounded, engine);
      summaries.set(unbounded, summary);
    }
    return summary;
  };
}

/** The connection hook (orm.ts) that gives every statement of the connection its span. */
export const traceStatements = (engine: Engine) => {
  const summarize = summarizer(engine);
  return (connection: HookedConnection) => {
    const send = connection.executeQuery.bind(connection);
    connection.executeQuery = <R>(query: CompiledQuery) =>
      inStatementSpan(
        () => summarize(query.sql),
        () => send<R>(query),
      );
    return Promise.resolve();
  };
};
