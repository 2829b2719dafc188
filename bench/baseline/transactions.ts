/**
 * How a membership change runs (POST, PUT, DELETE /organization-user), in two round trips:
 *   1. `START TRANSACTION; UPDATE organizations SET version = version + 1 WHERE id = ?; SELECT ...`
 *      The update is the organization's lock: a row lock on this node, and on a Galera cluster a
 *      write that makes any concurrent change of the same organization on another node fail
 *      certification (1213) and be retried. The SELECT, in the same batch, reads what the decision
 *      needs in one statement: the caller's role, the target's role (for an add: the user by
 *      e-mail and any membership), whether another owner exists (only evaluated when the target is
 *      an owner) and the organization's newest event id. It is the transaction's first plain read,
 *      so its snapshot is taken after the lock and sees every change committed before it.
 *   2. `<insert/update/delete>; INSERT INTO organization_events ...; COMMIT`
 * The lock is held for one round trip between the two batches, instead of four in a
 * statement-per-round-trip transaction, and the next change of a busy organization already waits
 * for the lock in MariaDB, so that it passes on at commit (see `admitted` for when a change waits
 * and when it takes the lock without waiting). Creating a user or an organization is two round
 * trips, the writes then COMMIT: their rows are new (nothing to lock, no earlier event), but COMMIT
 * never goes in a transaction's first round trip (see `lastBatch`).
 *
 * Every request has one budget, DB_TIMEOUT_MS from its arrival, as the service's: its waits for
 * its organization's turn, a write slot, a connection and the lock, its retries, and each
 * statement of a transaction end by it (each sent as `set statement max_statement_time = <seconds
 * left> for ...`, see `batch`), with 503. Past DB_TIMEOUT_MS + 200 ms, its processing limit, it is
 * answered 503 in any case, even by a database that answers nothing at all (a frozen host, a
 * network that holds packets; mysql2 has no timeout for a statement on an open connection), and
 * what it sent must then never commit. So COMMIT is sent only while the request stands, and only
 * after a first answer: sent together with the writes to a database that has stalled, it would
 * commit them when the database woke, after the 503.
 *
 * Why every change takes the organization lock, even when no owner is involved (the "conditional
 * fast path", a guarded UPDATE without the lock, is not correct here): event ids must sort in
 * commit order per organization, or a poller that saw event N misses an event committed after it
 * with a smaller id. Ids are allocated from the newest one, so allocation and commit must be
 * serialised per organization; on Galera only a write to one common row does that across nodes
 * (row locks and `FOR UPDATE` are local to a node). Without it, the audit trail could also show a
 * change made by an admin after the event that demoted them.
 */
import type { PoolConnection as CorePoolConnection, QueryOptions } from 'mysql2';
import mysql, { type PoolConnection, type RowDataPacket } from 'mysql2/promise';
import { randomInt } from 'node:crypto';
import type { Turn } from '../../server/platform/database/admission.ts';
import { Gate } from '../../server/platform/database/gate.ts';
import { unavailable } from './errors.ts';

const POOL_SIZE = Number(process.env.DB_POOL_SIZE ?? 10);
export const TIMEOUT_MS = Number(process.env.DB_TIMEOUT_MS ?? 5000);
export const pool = mysql.createPool({
  uri: (process.env.DATABASE_URL ?? '').replace(/^mariadb:/, 'mysql:'),
  connectionLimit: POOL_SIZE,
  connectTimeout: TIMEOUT_MS,
  // Timestamps stay the strings MariaDB sends: no Date built per row.
  dateStrings: true,
  // Batches of statements in one round trip; every value still goes through mysql2's escaping.
  // Correct on a single server only, which is where the bench runs it: on a Galera node, after a
  // brute-force abort MariaDB runs the rest of a multi-statement query outside the transaction and
  // reports success (the service turns its batching off there: server/platform/database/unit-of-work.ts).
  multipleStatements: true,
});
// No statement and no lock wait outlasts DB_TIMEOUT_MS, enforced by MariaDB: the bound of reads (a
// transaction's statements are bounded tighter, by what is left of their request's budget).
// mysql2 hands this event the pool's core (callback) connection, whatever its promise typings say.
pool.on('connection', (connection) => {
  (connection as unknown as CorePoolConnection).query(
    `set session innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(TIMEOUT_MS / 1000))}, max_statement_time = ${TIMEOUT_MS / 1000}`,
  );
});

/** What the server knows of a request being served. */
export interface Scope {
  /** When its budget of DB_TIMEOUT_MS ends (epoch ms): its waits on the database end by then. */
  deadline: number;
  /** Ends its wait for a connection, while it waits for one (see `takeConnection`). */
  stopWaiting?: () => void;
  /** Whether the processing limit gave it up. */
  givenUp: boolean;
}

const DEADLOCK = 1213;
export const LOCK_WAIT_TIMEOUT = 1205;
export const STATEMENT_TIMEOUT = 1969;
export const DUPLICATE_KEY = 1062;
export const MISSING_PARENT_ROW = 1452;
const CONFLICT_ATTEMPTS = 5;

export const errnoOf = (error: unknown) => (error as { errno?: number }).errno;

/**
 * Which changes may hold a connection, and which may wait for an organization's lock (behaviour §10:
 * a locked organization must not stop reads and other organizations):
 * - changes together hold at most WRITE_SLOTS connections, the rest of the pool is kept for reads
 *   (the service's split);
 * - at most two changes of one organization are admitted at once in this process;
 * - a change waits in MariaDB for the organization's lock only behind another change of this
 *   process that is under way, and at most LOCK_WAITERS at once; every other change takes the lock
 *   without waiting (1205 at once when it is held) and tries again after a pause, holding no
 *   connection meanwhile. An organization locked by anyone else therefore ties up no connection
 *   for long, while the next change of a busy organization is already queued on its lock when the
 *   change before it commits, so that the lock passes on inside MariaDB, without a round trip
 *   through this process (with one change at a time, the next would send its first batch only once
 *   the commit has come back here).
 */
const WRITE_SLOTS = Math.max(1, POOL_SIZE - Math.max(1, Math.floor(POOL_SIZE / 4)));
const CHANGES_PER_ORGANIZATION = 2;
const LOCK_WAITERS = Math.max(1, Math.floor(WRITE_SLOTS / 2));
const tooManyWaiting = () => unavailable('Too many changes are waiting for the database, try again');
const writeSlots = new Gate(WRITE_SLOTS, tooManyWaiting);
let lockWaiters = 0;

/** This process's changes of one organization, by its id. */
const turns = new Map<string, Turn>();

/**
 * Runs `work`, retries included, holding its organization's turn and a write slot. The gates and
 * the turn are the service's (server/platform/database/gate.ts, admission.ts); its Admission is
 * not: that one holds a write slot per attempt, this baseline from the first attempt to the last,
 * pauses included.
 */
async function admitted<T>(organizationId: string | undefined, deadline: number, work: (turn?: Turn) => Promise<T>) {
  if (organizationId === undefined) return writeSlots.run(deadline, () => work());
  let turn = turns.get(organizationId);
  if (!turn) {
    turn = { admitted: new Gate(CHANGES_PER_ORGANIZATION, tooManyWaiting), underWay: 0 };
    turns.set(organizationId, turn);
  }
  try {
    return await turn.admitted.run(deadline, () => writeSlots.run(deadline, () => work(turn)));
  } finally {
    if (turn.admitted.idle) turns.delete(organizationId);
  }
}

/** The first statements of a change of an organization: open the transaction, take its row. */
const TAKE_ORGANIZATION = ['start transaction', 'update organizations set version = version + 1 where id = ?'];
const TAKE_ORGANIZATION_AT_ONCE = [
  'start transaction',
  'set statement innodb_lock_wait_timeout = 0 for update organizations set version = version + 1 where id = ?',
];

const noConnection = () => unavailable('No database connection became free in time, try again');

/**
 * Takes a connection of the pool for a request, waiting until the end of its budget at most, then
 * 503: mysql2's pool waits for a free one without limit and has no setting for one. One that comes
 * later goes straight back. The wait is ended by the request's own timer (`createServer`), not a
 * timer per wait, and on mysql2's callback API, as its pool's `execute` takes one: the promise API
 * builds an event emitter per connection taken. A timer per wait on the promise API took (a) from
 * 92 to 116 µs of CPU per request and (b) from 89 to 95 (`bench:ab`, 3 rounds); this way reads cost
 * no more than with the pool's `execute` alone.
 */
function takeConnection(scope: Scope, then: (error: Error | null, connection?: CorePoolConnection) => void): void {
  if (Date.now() >= scope.deadline) return then(noConnection());
  let waiting = true;
  scope.stopWaiting = () => {
    waiting = false;
    then(noConnection());
  };
  pool.pool.getConnection((error, connection) => {
    if (!waiting) return void connection?.release();
    waiting = false;
    scope.stopWaiting = undefined;
    then(error, connection);
  });
}

/**
 * Runs `work`, which opens its transaction in its first batch (for a change of an organization:
 * with the statements it is given, see `admitted`) and commits in its last, once admitted. Runs it
 * again after a growing random pause when the organization was held (1205) until the request's
 * budget is spent, and on a deadlock or a lost Galera certification (1213) a bounded number of
 * times; 503 past either bound.
 */
export async function transaction<T>(
  organizationId: string | undefined,
  scope: Scope,
  work: (connection: PoolConnection, takeOrganization: string[]) => Promise<T>,
): Promise<T> {
  const { deadline } = scope;
  return admitted(organizationId, deadline, async (turn) => {
    let conflicts = 0;
    for (let attempt = 1; ; attempt++) {
      const connection = await new Promise<PoolConnection>((resolve, reject) =>
        takeConnection(scope, (error, taken) => (taken ? resolve(taken.promise()) : reject(error!))),
      );
      const waits = turn !== undefined && turn.underWay > 0 && lockWaiters < LOCK_WAITERS;
      if (turn) turn.underWay++;
      if (waits) lockWaiters++;
      try {
        const result = await work(connection, waits ? TAKE_ORGANIZATION : TAKE_ORGANIZATION_AT_ONCE);
        connection.release();
        return result;
      } catch (error) {
        try {
          await connection.query('rollback');
          connection.release();
        } catch {
          connection.destroy();
        }
        const errno = errnoOf(error);
        if (errno === DEADLOCK) {
          if (++conflicts === CONFLICT_ATTEMPTS) throw unavailable('The change kept conflicting, try again');
        } else if (errno !== LOCK_WAIT_TIMEOUT) throw error;
      } finally {
        if (turn) turn.underWay--;
        if (waits) lockWaiters--;
      }
      const pause = randomInt(1, 5 * 2 ** Math.min(attempt, 5));
      if (Date.now() + pause >= deadline) throw unavailable('The organization stayed busy, try again');
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  });
}

/** A read, a prepared statement, on a connection taken within the request's budget. */
export function read<Rows extends RowDataPacket[] | RowDataPacket[][]>(
  scope: Scope,
  query: QueryOptions,
): Promise<Rows> {
  return new Promise((resolve, reject) =>
    takeConnection(scope, (error, connection) => {
      if (!connection) return reject(error!);
      connection.execute<Rows>(query, (failure, rows) => {
        connection.release();
        if (failure) reject(failure);
        else resolve(rows);
      });
    }),
  );
}

/** Statements that wait for nothing, sent as they are. */
const UNBOUNDED = new Set(['start transaction', 'commit']);

/**
 * Runs one batch of a transaction's statements in one round trip, within the request's budget, and
 * returns the results of each. Nothing is sent once the budget is spent (503; what was sent rolls
 * back), and each statement runs, a lock wait included, only for the time left of it: MariaDB's
 * max_statement_time counts fractional seconds and ends a lock wait too, where
 * innodb_lock_wait_timeout counts whole seconds, and the session's bound (DB_TIMEOUT_MS from a
 * statement's start) would let a statement begun late outlast the budget.
 */
export async function batch(connection: PoolConnection, scope: Scope, statements: string[], values: unknown[]) {
  const leftMs = Math.floor(scope.deadline - Date.now());
  if (leftMs <= 0) throw unavailable('The database did not carry out the change in time, try again');
  const bound = `set statement max_statement_time = ${(leftMs / 1000).toFixed(3)}`;
  const sql = statements.map((statement) => {
    if (UNBOUNDED.has(statement)) return statement;
    // Nested SET STATEMENT clauses are accepted, but only the inner one applies: one clause.
    if (statement.startsWith('set statement ')) return `${bound}, ${statement.slice('set statement '.length)}`;
    return `${bound} for ${statement}`;
  });
  const [results] = await connection.query(sql.join(';\n'), values);
  return results as unknown[];
}

class GivenUp extends Error {}

/**
 * A transaction's last batch, the one that ends in COMMIT: sent only while the request stands
 * (else the transaction rolls back), and only after an earlier batch of the transaction was
 * answered, so that the database was alive a round trip ago.
 */
export function lastBatch(connection: PoolConnection, scope: Scope, statements: string[], values: unknown[]) {
  if (scope.givenUp) return Promise.reject(new GivenUp());
  return batch(connection, scope, statements, values);
}
