/**
 * A span for each statement a serving connection sends, when tracing is on (platform/tracing/):
 * what the statement is (its kind and table, `select organizations`), never its values, which
 * travel apart from its text anyway. A multi-statement round trip (unit-of-work.ts) is one span
 * that names each of its statements. Installed on each new connection (orm.ts), around Kysely's
 * `executeQuery`, the one call through which every statement of the ORM and of Kysely goes out.
 */
import type { CompiledQuery, DatabaseConnection } from 'kysely';
import { inStatementSpan, type StatementSummary } from '../tracing/spans.ts';
import type { Engine } from './engine.ts';

const KIND = /^\s*\(?\s*([a-z]+)/i;
const TABLE = /\b(?:from|into|update|join)\s+[`"]?(\w+)/i;
/** MariaDB's per-statement time bound (unit-of-work.ts), before the statement it bounds. */
const TIME_BOUND = /^\s*set statement [^;]*? for /i;

/** A statement's kind and table, in lower case: `insert events`, `commit`. */
function describeStatement(bounded: string): { kind: string; table?: string } {
  const sql = bounded.replace(TIME_BOUND, '');
  const kind = (KIND.exec(sql)?.[1] ?? 'statement').toLowerCase();
  const table = TABLE.exec(sql)?.[1]?.toLowerCase();
  return table === undefined ? { kind } : { kind, table };
}

/** Joined as unit-of-work.ts joins the statements of one round trip. */
const STATEMENT_SEPARATOR = ';\n';

export function summarize(sql: string, engine: Engine): StatementSummary {
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
  return { name: summary, attributes };
}

/** The connection hook (orm.ts) that gives every statement of the connection its span. */
export const traceStatements = (engine: Engine) => (connection: DatabaseConnection) => {
  const send = connection.executeQuery.bind(connection);
  connection.executeQuery = <R>(query: CompiledQuery) =>
    inStatementSpan(summarize(query.sql, engine), () => send<R>(query));
  return Promise.resolve();
};
