/**
 * Where the service's statements go once built: a pool to take a connection from for each
 * statement (a read outside a transaction), or one connection held for a whole transaction
 * (transaction.ts). Kysely builds every statement; on MySQL and MariaDB the service sends them to
 * mysql2's pool itself (`pooledStatements`), on the embedded database through Kysely's executor.
 *
 * Why not Kysely's executor on MySQL and MariaDB too: per statement it goes through five async
 * layers (the executor, its connection provider, the runtime driver, the MySQL driver, its
 * connection) and the plugins' result transforms, a visible share of a read's CPU and dozens of
 * promises a request (docs/performance.md, "Measured choices in the code"). Each connection still
 * gets the hooks Kysely's driver gives it (orm.ts: the session's bounds, metrics, statement spans),
 * which wrap its `executeQuery` as they wrap Kysely's, once, before its first statement here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CompiledQuery,
  type DatabaseConnection,
  type MysqlPool,
  type MysqlPoolConnection,
  type QueryResult,
} from 'kysely';
import { pauseBefore } from './backoff.ts';
import { isFileBusy } from './failures.ts';
import type { Sql } from './schema.ts';

/**
 * The embedded database's BEGIN: a write takes the file's write lock at once, so that another
 * process's lock is met by BEGIN and by no statement after it (orm.ts's embeddedConnection says
 * why that matters). In-process, transactions take turns on the one connection anyway.
 */
export const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');
export const COMMIT = CompiledQuery.raw('commit');
export const ROLLBACK = CompiledQuery.raw('rollback');

/** Sends a built statement, and hands back its result in Kysely's shape. */
export interface StatementRunner {
  executeQuery<Row>(query: CompiledQuery<Row>): Promise<QueryResult<Row>>;
}

/** A pool: each statement on a connection of its own, or a transaction's on one held throughout. */
export interface StatementPool extends StatementRunner {
  /** Runs `work` on one connection, held until what it returns settles. */
  withConnection<T>(work: (connection: StatementRunner) => Promise<T>): Promise<T>;
}

/** What the connection hooks of orm.ts use of a connection, and wrap: Kysely's `executeQuery`. */
export type HookedConnection = Pick<DatabaseConnection, 'executeQuery'>;

/** Run once on each new connection (orm.ts). */
export type ConnectionHook = (connection: HookedConnection) => Promise<void>;

/** What mysql2 answers a write with (a multi-statement query: one per statement). */
interface OkPacket {
  insertId?: number | string;
  affectedRows: number;
  changedRows?: number;
}

const isOkPacket = (value: unknown): value is OkPacket =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && 'affectedRows' in value;

/** mysql2's answer (or one statement's, in a multi-statement query's) in the shape Kysely's MySQL driver gives it. */
export function toQueryResult<Row>(answer: unknown): QueryResult<Row> {
  if (!isOkPacket(answer)) return { rows: (Array.isArray(answer) ? answer : []) as Row[] };
  const { insertId, affectedRows, changedRows } = answer;
  return {
    insertId: insertId != null && String(insertId) !== '0' ? BigInt(insertId) : undefined,
    numAffectedRows: BigInt(affectedRows),
    numChangedRows: changedRows != null ? BigInt(changedRows) : undefined,
    rows: [],
  };
}

/** One pooled connection, as the hooks see it. */
class PooledConnection implements HookedConnection {
  readonly #connection: MysqlPoolConnection;

  constructor(connection: MysqlPoolConnection) {
    this.#connection = connection;
  }

  executeQuery<Row>(query: CompiledQuery): Promise<QueryResult<Row>> {
    return new Promise((resolve, reject) => {
      this.#connection.query(query.sql, query.parameters, (error, answer) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- mysql2's Error, typed unknown by Kysely
        if (error) reject(error);
        else resolve(toQueryResult<Row>(answer));
      });
    });
  }
}

/**
 * The statements of MySQL and MariaDB, sent to mysql2's `pool` directly (module comment); `hook`
 * runs once on each connection before its first statement sent here.
 */
export function pooledStatements(pool: MysqlPool, hook: ConnectionHook): StatementPool {
  const ready = new WeakMap<MysqlPoolConnection, PooledConnection>();

  /** A connection from the pool (whose wait mysql-pool.ts bounds). */
  const acquire = () =>
    new Promise<MysqlPoolConnection>((resolve, reject) => {
      pool.getConnection((error, connection) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- mysql2's or mysql-pool.ts's Error, typed unknown by Kysely
        if (error) reject(error);
        else resolve(connection);
      });
    });

  /** The connection as the hook made it: the hook runs on its first use here. */
  function pooled(connection: MysqlPoolConnection): PooledConnection | Promise<PooledConnection> {
    const known = ready.get(connection);
    if (known) return known;
    const fresh = new PooledConnection(connection);
    return hook(fresh).then(() => {
      ready.set(connection, fresh);
      return fresh;
    });
  }

  return {
    async withConnection(work) {
      const connection = await acquire();
      try {
        return await work(await pooled(connection));
      } finally {
        connection.release();
      }
    },

    // The one statement of a read, with callbacks until its result: two promises fewer a read than
    // through withConnection's async functions (`AB_PROMISES_DIR`, docs/performance.md).
    executeQuery<Row>(query: CompiledQuery<Row>) {
      return new Promise<QueryResult<Row>>((resolve, reject) => {
        pool.getConnection((error, connection) => {
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- as in acquire
          if (error) return reject(error);
          const hooked = pooled(connection);
          const sent =
            hooked instanceof PooledConnection
              ? hooked.executeQuery<Row>(query)
              : hooked.then((fresh) => fresh.executeQuery<Row>(query));
          sent.then(
            (result) => {
              connection.release();
              resolve(result);
            },
            (failure: unknown) => {
              connection.release();
              // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the statement's, passed on
              reject(failure);
            },
          );
        });
      });
    },
  };
}

/**
 * The pools made by openDatabase (orm.ts) for MySQL and MariaDB, by the query builder of their
 * ORM, where Db.open (transaction.ts) finds them.
 */
const pools = new WeakMap<Sql, StatementPool>();

export const servesStatements = (sql: Sql, pool: StatementPool): void => void pools.set(sql, pool);

/**
 * The statements of `sql`'s database: its pool above, else through Kysely's executor, where a lone
 * statement that finds the file busy waits for it `busyWaitMs` at most (`kyselyStatements`).
 */
export const statementsOf = (sql: Sql, busyWaitMs: number): StatementPool =>
  pools.get(sql) ?? kyselyStatements(sql, busyWaitMs);

/**
 * Sends a statement that `error` refused again, after a growing jittered pause, while another
 * process holds the embedded database's file, until `deadline`; then throws the last refusal (a
 * timeout, failures.ts). Any other error is thrown at once.
 */
async function sentAgainWhenFree<Row>(
  error: unknown,
  send: () => Promise<QueryResult<Row>>,
  deadline: number,
): Promise<QueryResult<Row>> {
  for (let attempt = 1; ; attempt++) {
    const pause = pauseBefore(attempt);
    if (!isFileBusy(error) || Date.now() + pause >= deadline) throw error;
    await sleep(pause);
    try {
      return await send();
    } catch (refused) {
      error = refused;
    }
  }
}

/** A read: what goes out on its own, outside a transaction, but for the writes below. */
const READ = /^\s*select\b/i;

/**
 * Through Kysely's executor: the embedded database's (module comment). No statement waits inside
 * SQLite for another process's lock on the file, which would stop the event loop (orm.ts's
 * embeddedConnection): a statement that finds the file busy has changed nothing, and is sent again
 * after a pause, holding no connection meanwhile, for `busyWaitMs` (DB_TIMEOUT_MS) at most, as
 * MySQL's and MariaDB's session bounds end a statement's lock waits. A write on its own (a
 * webhook delivery's claim, a key's last use) takes the lock first, BEGIN IMMEDIATE, and commits,
 * as a transaction does: orm.ts says why the lock must be met there. A transaction's statements
 * are never sent again on their own: the whole transaction is (transaction.ts).
 */
const kyselyStatements = (sql: Sql, busyWaitMs: number): StatementPool => {
  const alone = <Row>(query: CompiledQuery<Row>): Promise<QueryResult<Row>> => {
    if (READ.test(query.sql)) return sql.executeQuery(query);
    return sql.connection().execute(async (connection) => {
      await connection.executeQuery(BEGIN_IMMEDIATE);
      try {
        const result = await connection.executeQuery(query);
        await connection.executeQuery(COMMIT);
        return result;
      } catch (error) {
        await connection.executeQuery(ROLLBACK).catch(() => undefined);
        throw error;
      }
    });
  };
  return {
    executeQuery: (query) =>
      alone(query).catch((error: unknown) => sentAgainWhenFree(error, () => alone(query), Date.now() + busyWaitMs)),
    withConnection: (work) => sql.connection().execute(work),
  };
};
