/**
 * The embedded database's statements, each text prepared once and kept (orm.ts, embeddedConnection).
 * MikroORM's libSQL connection prepares every statement it runs anew, and SQLite plans a query
 * while preparing it: on the one connection, whose driver is synchronous, every request's
 * statements were planned again on the event loop, every request behind them waiting
 * (docs/performance.md, "Measured choices in the code").
 *
 * A kept statement runs as MikroORM's connection runs one, to its end within the call: `all` reads
 * every row and `run` steps it to the end, which ends its read, so a statement kept between two
 * runs holds no transaction open. One that fails is dropped, not kept: libSQL leaves a statement
 * that failed unfinished (an unfinished write makes SQLite refuse the connection's COMMIT: orm.ts,
 * embeddedConnection), and dropped it is finalized when collected, as every statement was before. A
 * streamed list's statement (Kysely's `streamQuery`) is not one of these: it stays open while its
 * rows are read.
 */
import type { CompiledQuery, QueryResult } from 'kysely';
import { LRUCache } from 'lru-cache';

/** What this module uses of libSQL's handle on the file. */
export interface NativeDatabase {
  prepare(sql: string): NativeStatement;
}

interface NativeStatement {
  /** Whether the statement reads (SQLite: it has result columns). */
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

/**
 * How many statement texts are kept. The service runs a few dozen texts (prepared.ts); others, a
 * list of values of each length say, come and go, the least recently run dropped first.
 */
const STATEMENTS_KEPT = 256;

interface KeptStatement {
  statement: NativeStatement;
  /** Whether it returns rows, as MikroORM's connection decides it: a SELECT, or a write with RETURNING. */
  returnsRows: boolean;
}

function prepared(native: NativeDatabase, sql: string): KeptStatement {
  const statement = native.prepare(sql);
  const text = sql.trim().toLowerCase();
  const returnsRows =
    statement.reader ||
    text.startsWith('select') ||
    ((text.startsWith('insert into') || text.startsWith('update ')) && text.includes(' returning '));
  return { statement, returnsRows };
}

/** Runs the statements of one handle, each text prepared once. */
export function keptStatements(native: NativeDatabase) {
  const kept = new LRUCache<string, KeptStatement>({ max: STATEMENTS_KEPT });
  return <Row>({ sql, parameters }: CompiledQuery): QueryResult<Row> => {
    let found = kept.get(sql);
    if (!found) {
      found = prepared(native, sql);
      kept.set(sql, found);
    }
    try {
      if (found.returnsRows) return { rows: found.statement.all(parameters) as Row[] };
      const { changes, lastInsertRowid } = found.statement.run(parameters);
      return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    } catch (error) {
      kept.delete(sql);
      throw error;
    }
  };
}
