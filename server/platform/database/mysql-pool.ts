/**
 * The mysql2 pool as Kysely's MySQL driver and statements.ts see it when serving requests. MikroORM
 * creates the pool and hands it to Kysely's MysqlDialect itself, with no option to put anything in
 * between, so `servePool` replaces the pool's `getConnection`: the one call through which Kysely
 * (and with it MikroORM) and statements.ts get their connections, and its `end`, through which
 * MikroORM's close ends it. It adds three things mysql2's pool does not have:
 *
 * - A bound on the wait for a connection: mysql2 waits for a free one without limit and has no
 *   setting for one. Past `timeoutMs`, or past the deadline of the wait's request where one is set
 *   (connectionWaitDeadline), the caller gets PoolAcquireTimeoutError (503), and the wait leaves
 *   mysql2's queue of waits (`leaveQueue`); a connection that arrives later anyway (one being
 *   opened for it) goes straight back to the pool.
 * - Server-side prepared statements for the hot queries of prepared.ts: Kysely's driver sends
 *   every statement as text (COM_QUERY), which MariaDB parses and plans on each call; these go as
 *   prepared statements (mysql2's `execute`, prepared once per connection and cached by mysql2),
 *   which cost MariaDB less CPU per single-row read. The rest stays text: statements whose SQL
 *   varies (IN lists of any length), the multi-statement batches of a transaction
 *   (unit-of-work.ts), which a prepared statement cannot hold, and the lists, whose rows mysql2
 *   decodes far more slowly from the binary protocol (each timestamp rebuilt from its parts).
 *   The figures: docs/performance.md, "Measured choices in the code".
 * - A bound on its end (`endWithin`): mysql2 ends each connection with a QUIT sent once the
 *   statement under way on it is answered, which a frozen database never does, so a stop would
 *   wait for ever.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { MysqlPoolConnection } from 'kysely';
import type { Pool, PoolConnection } from 'mysql2';
import { PoolAcquireTimeoutError } from './failures.ts';
import { isServerPrepared } from './prepared.ts';

type QueryCallback = Parameters<MysqlPoolConnection['query']>[2];

/** A pooled connection that answers a fixed-shape statement with a prepared statement. */
class ServingConnection implements MysqlPoolConnection {
  readonly #connection: PoolConnection;

  constructor(connection: PoolConnection) {
    this.#connection = connection;
  }

  get config(): object {
    return this.#connection.config;
  }

  get threadId(): number {
    return this.#connection.threadId;
  }

  connect(callback?: (error: unknown) => void): void {
    this.#connection.connect(callback);
  }

  destroy(): void {
    this.#connection.destroy();
  }

  release(): void {
    this.#connection.release();
  }

  query(sql: string, parameters: never, callback?: QueryCallback): ReturnType<MysqlPoolConnection['query']> {
    const connection = this.#connection;
    if (callback && isServerPrepared(sql)) return connection.execute(sql, parameters, callback as never);
    return connection.query(sql, parameters, callback as never);
  }
}

/**
 * The time (epoch ms) by which a connection asked for within `connectionWaitDeadline.run(time, …)`
 * must have come: the end of a transaction's budget (transaction.ts). An async context, because
 * Kysely asks the pool for a connection with no way to pass anything along.
 */
export const connectionWaitDeadline = new AsyncLocalStorage<number>();

/** The part of mysql2's queue of waits (a ring buffer) that a wait given up needs. */
interface WaitQueue {
  readonly length: number;
  peekBack(): unknown;
  get(index: number): unknown;
  removeOne(index: number): unknown;
}

/**
 * mysql2's queue of waits for a connection: private, as its pool has no way to withdraw a wait.
 * A wait left in it would stay there until a connection is released: while the database is frozen,
 * one more for every request answered 503, each with what its callback holds, under steady load a
 * queue and a heap that grow for as long as the freeze lasts (tests/faults.test.ts, "the database
 * frozen under steady load"). The metrics read the same queue (db_pool_waiting_acquisitions), and
 * tests/metrics.test.ts fails if an upgrade of mysql2 renames it.
 */
const waitQueueOf = (pool: Pool) => (pool as unknown as { _connectionQueue?: WaitQueue })._connectionQueue;

function leaveQueue(queue: WaitQueue, wait: unknown): void {
  for (let index = 0; index < queue.length; index++) {
    if (queue.get(index) === wait) return void queue.removeOne(index);
  }
}

/** mysql2's list of the pool's connections (private: its pool has no getter for them). */
const connectionsOf = (pool: Pool) =>
  (pool as unknown as { _allConnections?: { toArray(): PoolConnection[] } })._allConnections?.toArray() ?? [];

/**
 * Ends `pool` as mysql2 does, but calls back within `timeoutMs` (DB_TIMEOUT_MS) at the latest, and
 * without an error. A database that answers ends each statement within it (the session's bounds,
 * orm.ts), so a connection whose QUIT has not gone out by then waits on a database that does not
 * answer (frozen, or a network that holds its packets); one that fails instead (a connection still
 * opening that times out, one the database dropped) says the same. Then the connections still open
 * are dropped, without a word to the database, which rolls back what they left open once it sees
 * them gone: the pool has ended all the same, and the stop that ends it is no failure.
 */
function endWithin(pool: Pool, timeoutMs: number): void {
  const end = pool.end.bind(pool);
  pool.end = (callback) => {
    let ended = false;
    const done = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      callback?.(null);
    };
    const dropTheRest = () => {
      for (const connection of connectionsOf(pool)) connection.destroy();
      done();
    };
    const timer = setTimeout(dropTheRest, timeoutMs);
    end((error) => (error ? dropTheRest() : done()));
  };
}

/** Makes `pool` the serving pool described above, for Kysely's driver (module comment). */
export function servePool(pool: Pool, timeoutMs: number): void {
  const queue = waitQueueOf(pool);
  // Kysely keeps its own state per connection object (set up once by onCreateConnection), so each
  // pooled connection keeps one wrapper for its whole life.
  const wrappers = new WeakMap<PoolConnection, ServingConnection>();
  const wrapped = (connection: PoolConnection) => {
    let wrapper = wrappers.get(connection);
    if (!wrapper) wrappers.set(connection, (wrapper = new ServingConnection(connection)));
    return wrapper;
  };
  const acquire = pool.getConnection.bind(pool);
  pool.getConnection = ((callback: (error: Error | null, connection?: MysqlPoolConnection) => void) => {
    let waiting = true;
    let queued: unknown;
    const deadline = connectionWaitDeadline.getStore();
    const waitMs = deadline === undefined ? timeoutMs : Math.max(0, Math.min(timeoutMs, deadline - Date.now()));
    const timer = setTimeout(() => {
      waiting = false;
      if (queue && queued !== undefined) leaveQueue(queue, queued);
      callback(new PoolAcquireTimeoutError(`No database connection became free within ${waitMs} ms`));
    }, waitMs);
    const queuedBefore = queue?.length ?? 0;
    acquire((error, connection) => {
      if (!waiting) return void connection?.release();
      waiting = false;
      clearTimeout(timer);
      callback(error, connection && wrapped(connection));
    });
    // mysql2 queues a wait at once, when no connection is free and none may be opened. Its entry is
    // the last one, which need not be the callback given: with a subscriber to mysql2's tracing
    // channel, mysql2 queues a wrapper of it.
    if (queue && queue.length > queuedBefore) queued = queue.peekBack();
  }) as unknown as Pool['getConnection'];
  endWithin(pool, timeoutMs);
}
