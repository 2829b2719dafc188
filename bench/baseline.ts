/**
 * The hand-written baseline of `npm run bench`: node:http, mysql2 and an HS256 check on
 * node:crypto, serving the endpoints the scenarios call with the contract's rules (permissions,
 * last owner, validation, audit events, retries on a multi-primary cluster, the permission check
 * with the application permissions of ROLES_FILE, organization roles and teams). It is the bar the service is measured against,
 * so it is written to be as fast as a careful hand-written server can be while staying correct.
 * Not part of the product.
 *
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
import {
  createHash,
  createHmac,
  createSecretKey,
  randomBytes,
  randomInt,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { PoolConnection as CorePoolConnection, QueryOptions } from 'mysql2';
import mysql, { type PoolConnection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { pino } from 'pino';
import { SERVICE_PERMISSIONS } from './permissions.ts';

// A key object made once: createHmac given the raw bytes makes one on every call (~10 µs a token).
const secret = createSecretKey(Buffer.from(process.env.JWT_SECRET ?? ''));
const requireCreatorRole = process.env.REQUIRE_CREATOR_ROLE !== 'false';
const POOL_SIZE = Number(process.env.DB_POOL_SIZE ?? 10);
const TIMEOUT_MS = Number(process.env.DB_TIMEOUT_MS ?? 5000);
const pool = mysql.createPool({
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

/** A field of the request and what is wrong with it, as the service lists them in a 400's `issues`. */
interface Issue {
  field: string;
  problem: string;
}

class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues: Issue[] | undefined;
  constructor(status: number, code: string, message: string, issues?: Issue[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.issues = issues;
  }
}
/** A response body already written as JSON. */
class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const badRequest = (message: string) => new HttpError(400, 'BAD_REQUEST', message);
const invalid = (field: string, problem: string) =>
  new HttpError(400, 'BAD_REQUEST', `${field}: ${problem}`, [{ field, problem }]);
const unauthorized = () => new HttpError(401, 'UNAUTHORIZED', 'Missing or invalid bearer token');
const forbidden = (message: string) => new HttpError(403, 'FORBIDDEN', message);
const notFound = (message: string) => new HttpError(404, 'NOT_FOUND', message);
const conflict = (message: string) => new HttpError(409, 'CONFLICT', message);
const notInOrganization = () => forbidden('You are not a member of this organization');

// ---- tokens ----------------------------------------------------------------------------------

interface Caller {
  userId: string;
  role: unknown;
}

const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Verified tokens by their exact text, as the service keeps them: until they expire and at most a
 * minute, the oldest dropped past 1,000 (a Map keeps insertion order).
 */
const verified = new Map<string, { caller: Caller; until: number }>();

function callerOf(request: IncomingMessage): Caller {
  const authorization = request.headers.authorization;
  if (!authorization?.startsWith('Bearer ')) throw unauthorized();
  const known = verified.get(authorization);
  if (known && known.until > Date.now()) return known.caller;
  const entry = verifiedCaller(authorization);
  verified.delete(authorization);
  if (verified.size >= 1000) verified.delete(verified.keys().next().value!);
  verified.set(authorization, entry);
  return entry.caller;
}

function verifiedCaller(authorization: string): { caller: Caller; until: number } {
  const [header, payload, signature, extra] = authorization.slice(7).split('.');
  if (!header || !payload || !signature || extra !== undefined) throw unauthorized();
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthorized();
  let claims;
  try {
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'HS256') throw unauthorized();
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  } catch {
    throw unauthorized();
  }
  const now = Date.now() / 1000;
  if (typeof claims.exp !== 'number' || claims.exp + CLOCK_TOLERANCE_SECONDS < now) throw unauthorized();
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf - CLOCK_TOLERANCE_SECONDS > now))
    throw unauthorized();
  if (typeof claims.sub !== 'string' || claims.sub.length < 1 || claims.sub.length > 128) throw unauthorized();
  return {
    caller: { userId: claims.sub, role: claims.role },
    until: Math.min((claims.exp + CLOCK_TOLERANCE_SECONDS) * 1000, Date.now() + 60_000),
  };
}

function assertMayCreate(caller: Caller): void {
  if (requireCreatorRole && caller.role !== 'owner' && caller.role !== 'admin')
    throw forbidden('Creating this needs the owner or admin role in the token');
}

// ---- input -----------------------------------------------------------------------------------

const MAX_BODY_BYTES = 65_536;

/** What the server knows of a request being served. */
interface Scope {
  /** When its budget of DB_TIMEOUT_MS ends (epoch ms): its waits on the database end by then. */
  deadline: number;
  /** Ends its wait for a connection, while it waits for one (see `takeConnection`). */
  stopWaiting?: () => void;
  /** Whether the processing limit gave it up. */
  givenUp: boolean;
}
/** A little past the budget, so that the request's own waits end it first, as the service's. */
const PROCESSING_LIMIT_MS = TIMEOUT_MS + 200;

function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  if (!request.headers['content-type']?.startsWith('application/json'))
    return Promise.reject(new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/json'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      if (size > MAX_BODY_BYTES) return reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', 'Body over 64 KiB'));
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error();
        resolve(body);
      } catch {
        reject(badRequest('Malformed JSON'));
      }
    });
  });
}

// eslint-disable-next-line no-control-regex -- the control characters the text rules refuse
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
// zod 4's e-mail pattern, so that both servers accept the same addresses.
const EMAIL = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ROLES = new Set(['owner', 'admin', 'member']);

function text(value: unknown, field: string, min: number, max: number, trim = false): string {
  if (typeof value !== 'string') throw badRequest(`${field}: expected a string`);
  const result = trim ? value.trim() : value;
  if (result.length < min || result.length > max) throw badRequest(`${field}: ${min} to ${max} characters`);
  if (CONTROL_CHARACTER.test(result) || !result.isWellFormed()) throw badRequest(`${field}: not plain text`);
  return result;
}

function email(value: unknown): string {
  const address = text(value, 'email', 1, 254);
  if (!EMAIL.test(address)) throw badRequest('email: not an e-mail address');
  return address.toLowerCase();
}

function role(value: unknown): string {
  if (typeof value !== 'string' || !ROLES.has(value)) throw badRequest('role: owner, admin or member');
  return value;
}

function organizationIdOf(request: IncomingMessage): string {
  const value = request.headers['organization_id'];
  if (typeof value !== 'string' || !UUID.test(value)) throw badRequest('organization_id: expected a UUID');
  return value;
}

/** An organization id in a path: any case, lower-cased as the service does. */
function organizationIdIn(value: string): string {
  if (!UUID.test(value)) throw badRequest('organization_id: expected a UUID');
  return value.toLowerCase();
}

// ---- time and event ids ----------------------------------------------------------------------

/** `YYYY-MM-DD hh:mm:ss.mmm` in UTC, as MariaDB's `datetime(3)` takes it. */
const storedNow = () => new Date().toISOString().slice(0, 23).replace('T', ' ');
/** A stored `datetime(3)` as the contract's ISO form. */
const iso = (stored: string) => `${stored.replace(' ', 'T')}Z`;

const RANDOM_BITS = 74n; // rand_a (12 bits) and rand_b (62 bits) of a UUID v7
const RANDOM_MAX = 1n << RANDOM_BITS;

function formatUuidV7(milliseconds: bigint, random: bigint): string {
  const value =
    (milliseconds << 80n) | (0x7n << 76n) | ((random >> 62n) << 64n) | (0x2n << 62n) | (random & ((1n << 62n) - 1n));
  const hex = value.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A UUID v7 strictly greater than `newest` (an organization's newest event id, or null for a
 * fresh id): the clock's when it is ahead, else the newest id's millisecond with its random part
 * moved on by a random step, so that clock skew between instances and two changes in one
 * millisecond cannot reorder events.
 */
function uuidV7After(newest: string | null): string {
  const now = BigInt(Date.now());
  const fresh = BigInt(`0x${randomBytes(10).toString('hex')}`) % RANDOM_MAX;
  if (newest === null) return formatUuidV7(now, fresh);
  const value = BigInt(`0x${newest.replaceAll('-', '')}`);
  const milliseconds = value >> 80n;
  if (now > milliseconds) return formatUuidV7(now, fresh);
  const random = (((value >> 64n) & 0xfffn) << 62n) | (value & ((1n << 62n) - 1n));
  const next = random + 1n + BigInt(randomInt(2 ** 32));
  return next < RANDOM_MAX ? formatUuidV7(milliseconds, next) : formatUuidV7(milliseconds + 1n, fresh);
}

const INSERT_EVENT = `insert into organization_events
  (event_id, organization_id, type, actor_user_id, subject_user_id, data, created_at) values (?, ?, ?, ?, ?, ?, ?)`;

// ---- transactions ----------------------------------------------------------------------------

const DEADLOCK = 1213;
const LOCK_WAIT_TIMEOUT = 1205;
const STATEMENT_TIMEOUT = 1969;
const DUPLICATE_KEY = 1062;
const MISSING_PARENT_ROW = 1452;
const CONFLICT_ATTEMPTS = 5;

const errnoOf = (error: unknown) => (error as { errno?: number }).errno;
const unavailable = (message: string) => new HttpError(503, 'SERVICE_UNAVAILABLE', message);

/** A counting semaphore whose waits end at a deadline with 503. */
class Gate {
  readonly #size: number;
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = this.#free = size;
  }

  /** Nobody holds it or waits for it. */
  get idle(): boolean {
    return this.#free === this.#size && this.#waiting.length === 0;
  }

  async enter(deadline: number): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(admit), 1);
        reject(unavailable('Too many changes are waiting for the database, try again'));
      }, deadline - Date.now());
      this.#waiting.push(admit);
    });
  }

  leave(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

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
const writeSlots = new Gate(WRITE_SLOTS);
let lockWaiters = 0;

/** This process's changes of one organization: those admitted, and those under way. */
interface Turn {
  gate: Gate;
  underWay: number;
}
const turns = new Map<string, Turn>();

async function admitted<T>(organizationId: string | undefined, deadline: number, work: (turn?: Turn) => Promise<T>) {
  if (organizationId === undefined) return withGate(writeSlots, deadline, () => work());
  let turn = turns.get(organizationId);
  if (!turn) turns.set(organizationId, (turn = { gate: new Gate(CHANGES_PER_ORGANIZATION), underWay: 0 }));
  try {
    return await withGate(turn.gate, deadline, () => withGate(writeSlots, deadline, () => work(turn)));
  } finally {
    if (turn.gate.idle) turns.delete(organizationId);
  }
}

async function withGate<T>(gate: Gate, deadline: number, work: () => Promise<T>): Promise<T> {
  await gate.enter(deadline);
  try {
    return await work();
  } finally {
    gate.leave();
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
async function transaction<T>(
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
function read<Rows extends RowDataPacket[] | RowDataPacket[][]>(scope: Scope, query: QueryOptions): Promise<Rows> {
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
async function batch(connection: PoolConnection, scope: Scope, statements: string[], values: unknown[]) {
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
function lastBatch(connection: PoolConnection, scope: Scope, statements: string[], values: unknown[]) {
  if (scope.givenUp) return Promise.reject(new GivenUp());
  return batch(connection, scope, statements, values);
}

// ---- users -----------------------------------------------------------------------------------

async function createUser(caller: Caller, body: Record<string, unknown>, scope: Scope): Promise<[number, unknown]> {
  assertMayCreate(caller);
  const values = [
    caller.userId,
    text(body.first_name, 'first_name', 1, 100, true),
    text(body.last_name, 'last_name', 1, 100, true),
    email(body.email),
  ];
  const now = storedNow();
  try {
    await transaction(undefined, scope, async (connection) => {
      await batch(
        connection,
        scope,
        [
          'start transaction',
          'insert into users (id, first_name, last_name, email, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
        ],
        [...values, now, now],
      );
      await lastBatch(connection, scope, ['commit'], []);
    });
  } catch (error) {
    if (errnoOf(error) !== DUPLICATE_KEY) throw error;
    throw /email/i.test((error as Error).message)
      ? conflict('Another user already has this e-mail address')
      : conflict('A user record already exists for this caller');
  }
  return [201, { success: true, message: 'User created' }];
}

async function getUser(caller: Caller, scope: Scope): Promise<[number, unknown]> {
  const rows = await read<RowDataPacket[]>(scope, {
    sql: 'select id, first_name, last_name, email, created_at, updated_at from users where id = ?',
    values: [caller.userId],
  });
  const user = rows[0];
  if (!user) throw notFound('No user record for this caller: create it with POST /users');
  user.created_at = iso(user.created_at);
  user.updated_at = iso(user.updated_at);
  return [200, user];
}

// ---- organizations ---------------------------------------------------------------------------

/** The organization, its owner and its first event, then COMMIT. */
async function createOrganization(
  caller: Caller,
  body: Record<string, unknown>,
  scope: Scope,
): Promise<[number, unknown]> {
  assertMayCreate(caller);
  const name = text(body.organization_name, 'organization_name', 1, 100, true);
  const description = text(body.organization_description, 'organization_description', 0, 1000);
  const organizationId = uuidV7After(null);
  const now = storedNow();
  try {
    await transaction(undefined, scope, async (connection) => {
      await batch(
        connection,
        scope,
        [
          'start transaction',
          'insert into organizations (id, name, description, created_by, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
          "insert into organization_users (organization_id, user_id, role, created_at, updated_at) values (?, ?, 'owner', ?, ?)",
          INSERT_EVENT,
        ],
        [
          ...[organizationId, name, description, caller.userId, now, now],
          ...[organizationId, caller.userId, now, now],
          ...[uuidV7After(null), organizationId, 'organization.created', caller.userId, caller.userId],
          ...[JSON.stringify({ organization_name: name, organization_description: description }), now],
        ],
      );
      await lastBatch(connection, scope, ['commit'], []);
    });
  } catch (error) {
    // The creator's user row is the foreign key's parent: no row, no user record.
    if (errnoOf(error) === MISSING_PARENT_ROW)
      throw notFound('No user record for this caller: create it with POST /users first');
    throw error;
  }
  return [201, { organization_id: organizationId, user_id: caller.userId, role: 'owner' }];
}

// ---- memberships -----------------------------------------------------------------------------

const ACTOR_ROLE = '(select role from organization_users where organization_id = ? and user_id = ?) as actor_role';
const NEWEST_EVENT = '(select max(event_id) from organization_events where organization_id = ?) as newest_event';
/** Whether an owner other than the target exists; evaluated only when the target is an owner. */
const TARGET_AND_OTHER_OWNER = `t.role as target_role,
  case when t.role = 'owner' then exists(select 1 from organization_users o
    where o.organization_id = t.organization_id and o.role = 'owner' and o.user_id <> t.user_id) end as other_owner`;

interface Decision {
  actor_role: string | null;
  newest_event: string | null;
}
interface TargetDecision extends Decision {
  target_role: string | null;
  other_owner: number | null;
}

/**
 * The first batch of a membership change: lock, then read. No organization row means no such
 * organization, which callers are told as they are told they are not a member.
 */
async function lockAndRead<Row extends Decision>(
  connection: PoolConnection,
  scope: Scope,
  takeOrganization: string[],
  select: string,
  values: unknown[],
  organizationId: string,
): Promise<Row> {
  const [, locked, rows] = await batch(connection, scope, [...takeOrganization, select], [organizationId, ...values]);
  if ((locked as ResultSetHeader).affectedRows === 0) throw notInOrganization();
  return (rows as Row[])[0]!;
}

function assertManager(actorRole: string | null): string {
  if (actorRole === null) throw notInOrganization();
  if (actorRole !== 'owner' && actorRole !== 'admin')
    throw forbidden('Only an owner or admin of the organization may change its members');
  return actorRole;
}

const lastOwner = () => conflict('An organization must keep at least one owner');
const notAMember = () => notFound('The user is not a member of this organization');

async function readTarget(
  connection: PoolConnection,
  scope: Scope,
  takeOrganization: string[],
  organizationId: string,
  caller: Caller,
  userId: string,
): Promise<TargetDecision & { target_role: string }> {
  const decision = await lockAndRead<TargetDecision>(
    connection,
    scope,
    takeOrganization,
    `select ${ACTOR_ROLE}, ${NEWEST_EVENT}, ${TARGET_AND_OTHER_OWNER}
     from (select 1) one left join organization_users t on t.organization_id = ? and t.user_id = ?`,
    [organizationId, caller.userId, organizationId, organizationId, userId],
    organizationId,
  );
  if (decision.actor_role === null) throw notInOrganization();
  if (decision.target_role === null) throw notAMember();
  return decision as TargetDecision & { target_role: string };
}

async function addMember(caller: Caller, organizationId: string, body: Record<string, unknown>, scope: Scope) {
  const address = email(body.email);
  const newRole = role(body.role);
  const userId = await transaction(organizationId, scope, async (connection, takeOrganization) => {
    const decision = await lockAndRead<Decision & { user_id: string | null; existing_role: string | null }>(
      connection,
      scope,
      takeOrganization,
      `select ${ACTOR_ROLE}, ${NEWEST_EVENT}, u.id as user_id, m.role as existing_role
       from (select 1) one left join users u on u.email = ?
       left join organization_users m on m.organization_id = ? and m.user_id = u.id`,
      [organizationId, caller.userId, organizationId, address, organizationId],
      organizationId,
    );
    const actorRole = assertManager(decision.actor_role);
    if (newRole === 'owner' && actorRole !== 'owner') throw forbidden('Only an owner may grant the owner role');
    if (decision.user_id === null) throw notFound('No user has this e-mail address');
    if (decision.existing_role !== null) throw conflict('The user is already a member of this organization');
    const now = storedNow();
    await lastBatch(
      connection,
      scope,
      [
        'insert into organization_users (organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, ?, ?)',
        INSERT_EVENT,
        'commit',
      ],
      [
        ...[organizationId, decision.user_id, newRole, now, now],
        ...[uuidV7After(decision.newest_event), organizationId, 'member.added', caller.userId, decision.user_id],
        ...[JSON.stringify({ role: newRole }), now],
      ],
    );
    return decision.user_id;
  });
  return [201, { organization_id: organizationId, user_id: userId, role: newRole }] as [number, unknown];
}

async function changeRole(caller: Caller, organizationId: string, body: Record<string, unknown>, scope: Scope) {
  const userId = text(body.user_id, 'user_id', 1, 128);
  const newRole = role(body.role);
  await transaction(organizationId, scope, async (connection, takeOrganization) => {
    const decision = await readTarget(connection, scope, takeOrganization, organizationId, caller, userId);
    const actorRole = assertManager(decision.actor_role);
    if (actorRole !== 'owner' && newRole === 'owner') throw forbidden('Only an owner may grant the owner role');
    if (actorRole !== 'owner' && decision.target_role === 'owner')
      throw forbidden('Only an owner may change or remove an owner');
    // The role it already has: nothing changes, no event (the lock's version step is rolled back).
    if (decision.target_role === newRole) return void (await connection.query('rollback'));
    if (decision.target_role === 'owner' && !decision.other_owner) throw lastOwner();
    const now = storedNow();
    await lastBatch(
      connection,
      scope,
      [
        'update organization_users set role = ?, updated_at = ? where organization_id = ? and user_id = ?',
        INSERT_EVENT,
        'commit',
      ],
      [
        ...[newRole, now, organizationId, userId],
        ...[uuidV7After(decision.newest_event), organizationId, 'member.role_changed', caller.userId, userId],
        ...[JSON.stringify({ from: decision.target_role, to: newRole }), now],
      ],
    );
  });
  return [200, { message: 'Role updated' }] as [number, unknown];
}

async function removeMember(caller: Caller, organizationId: string, body: Record<string, unknown>, scope: Scope) {
  const userId = text(body.user_id, 'user_id', 1, 128);
  const leaving = userId === caller.userId;
  await transaction(organizationId, scope, async (connection, takeOrganization) => {
    const decision = await readTarget(connection, scope, takeOrganization, organizationId, caller, userId);
    // Any member may leave; removing someone else follows the permission table.
    if (!leaving) {
      const actorRole = assertManager(decision.actor_role);
      if (actorRole !== 'owner' && decision.target_role === 'owner')
        throw forbidden('Only an owner may change or remove an owner');
    }
    if (decision.target_role === 'owner' && !decision.other_owner) throw lastOwner();
    await lastBatch(
      connection,
      scope,
      ['delete from organization_users where organization_id = ? and user_id = ?', INSERT_EVENT, 'commit'],
      [
        ...[organizationId, userId],
        ...[uuidV7After(decision.newest_event), organizationId, leaving ? 'member.left' : 'member.removed'],
        ...[caller.userId, userId, JSON.stringify({ role: decision.target_role }), storedNow()],
      ],
    );
  });
  return [200, { message: 'Member removed' }] as [number, unknown];
}

/** A member read's answer from its row (null: no such member). */
function memberAnswer(organizationId: string, row: RowDataPacket): [number, unknown] {
  if (row.user_id === null) throw notAMember();
  return [
    200,
    {
      organization_id: organizationId,
      user_id: row.user_id,
      role: row.role,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      first_name: row.first_name,
      last_name: row.last_name,
      email: row.email,
      expires_at: row.expires_at === null ? null : iso(row.expires_at),
    },
  ];
}

/** One member, with the caller's membership checked by the same query. */
async function getMember(
  caller: Caller,
  organizationId: string,
  userId: string,
  scope: Scope,
): Promise<[number, unknown]> {
  const rows = await read<RowDataPacket[]>(scope, {
    sql: `select m.user_id, m.role, m.created_at, m.updated_at, u.first_name, u.last_name, u.email, m.expires_at
     from organization_users actor
     left join organization_users m on m.organization_id = actor.organization_id and m.user_id = ?
       and (m.expires_at is null or m.expires_at > ?)
     left join users u on u.id = m.user_id
     where actor.organization_id = ? and actor.user_id = ? and (actor.expires_at is null or actor.expires_at > ?)`,
    values: [userId, storedNow(), organizationId, caller.userId, storedNow()],
  });
  const row = rows[0];
  if (!row) throw notInOrganization();
  return memberAnswer(organizationId, row);
}

// ---- organization API keys -------------------------------------------------------------------

const KEY_BEARER = 'Bearer oak_';
const KEY_SECRET = /^oak_[A-Za-z0-9_-]{43}$/;
/** How stale a key's `last_used_at` may be before it is written again, as the service keeps it. */
const LAST_USE_PRECISION_MS = 60_000;
const invalidKey = () => new HttpError(401, 'UNAUTHORIZED', 'Invalid API key: unknown, revoked or expired');

/**
 * One member, read by an organization's API key, as the service serves it (behaviour §16): the key
 * found by the SHA-256 of its secret, in the same statement as the member (so a key revoked a moment
 * ago is refused at once), live (not revoked, not expired), of this organization, and its role
 * holding `members:read` as the role is now; its `last_used_at` written after the answer when it is
 * older than a minute, by a statement of its own whose failure costs nothing but that precision.
 */
async function getMemberByKey(
  authorization: string,
  organizationId: string,
  userId: string,
  scope: Scope,
): Promise<[number, unknown]> {
  const secret = authorization.slice('Bearer '.length);
  if (!KEY_SECRET.test(secret)) throw new HttpError(401, 'UNAUTHORIZED', 'Invalid API key');
  const hash = createHash('sha256').update(secret).digest('base64url');
  const now = storedNow();
  const rows = await read<RowDataPacket[]>(scope, {
    sql: `select k.id as key_id, k.organization_id as key_organization_id, k.role as key_role, k.secret_hash,
       k.expires_at as key_expires_at, k.revoked_at, k.last_used_at, r.permissions as key_role_permissions,
       m.user_id, m.role, m.created_at, m.updated_at, u.first_name, u.last_name, u.email, m.expires_at
     from api_keys k
     left join organization_roles r on r.organization_id = k.organization_id and r.name = k.role
     left join organization_users m on m.organization_id = k.organization_id and m.user_id = ?
       and (m.expires_at is null or m.expires_at > ?)
     left join users u on u.id = m.user_id
     where k.secret_hash = ?`,
    values: [userId, now, hash],
  });
  const key = rows[0];
  const stored = key && Buffer.from(key.secret_hash as string);
  if (!key || !timingSafeEqual(stored!, Buffer.from(hash)) || key.revoked_at !== null) throw invalidKey();
  if (key.key_expires_at !== null && key.key_expires_at <= now) throw invalidKey();
  if (key.key_organization_id !== organizationId) throw forbidden('This API key belongs to another organization');
  if (!permissionsOfRole(key.key_role, key.key_role_permissions).has('members:read'))
    throw forbidden('The key may not read members (members:read)');
  // Stored timestamps and storedNow's are one format: they compare as strings.
  const staleBefore = new Date(Date.now() - LAST_USE_PRECISION_MS).toISOString().slice(0, 23).replace('T', ' ');
  if (key.last_used_at === null || key.last_used_at <= staleBefore) {
    pool
      .execute('update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at <= ?)', [
        now,
        key.key_id,
        staleBefore,
      ])
      .catch(() => undefined);
  }
  return memberAnswer(organizationId, key);
}

/**
 * All members, in one query that also checks the caller: the join on the caller's membership
 * yields no row for a non-member, and at least the caller's own row for a member. MariaDB writes
 * the list's timestamp form, and the JSON is written out from rows read as arrays: on 10,000 members
 * that took ~14 ms of CPU against ~17 ms for JSON.stringify of row objects (measured on a loaded
 * machine).
 */
async function listMembers(caller: Caller, organizationId: string, scope: Scope): Promise<[number, unknown]> {
  const rows = await read<RowDataPacket[][]>(scope, {
    sql: `select m.user_id, u.first_name, u.last_name, m.role, u.email,
         date_format(m.created_at, '%Y-%m-%d %H:%i:%s'), m.expires_at
       from organization_users actor
       join organization_users m on m.organization_id = actor.organization_id
         and (m.expires_at is null or m.expires_at > ?)
       join users u on u.id = m.user_id
       where actor.organization_id = ? and actor.user_id = ? and (actor.expires_at is null or actor.expires_at > ?)
       order by m.created_at, m.user_id`,
    rowsAsArray: true,
    values: [storedNow(), organizationId, caller.userId, storedNow()],
  });
  if (rows.length === 0) throw notInOrganization();
  // The columns of the select, in order; the timestamps as MariaDB writes them (dateStrings).
  const members = rows as unknown as Array<[string, string, string, string, string, string, string | null]>;
  let text = '';
  for (const [userId, firstName, lastName, role, email, createdAt, expiresAt] of members) {
    // A role is of a-z, 0-9, `_` and `-`, and the timestamps digits: neither needs escaping.
    const expiry = expiresAt === null ? 'null' : `"${iso(expiresAt)}"`;
    text += `,{"user_id":${JSON.stringify(userId)},"first_name":${JSON.stringify(firstName)},"last_name":${JSON.stringify(lastName)},"role":"${role}","email":${JSON.stringify(email)},"created_at":"${createdAt}","expires_at":${expiry}}`;
  }
  return [200, new JsonText(`[${text.slice(1)}]`)];
}

// ---- permissions -----------------------------------------------------------------------------

const PERMISSION_NAME = /^[a-z][a-z0-9_-]{0,39}:[a-z][a-z0-9_-]{0,39}$/;
const MAX_PERMISSIONS_CHECKED = 100;
const OWNERS_ONLY = new Set(['organization:delete', 'ownership:transfer']);
const MEMBERS_OWN = ['organization:read', 'members:read', 'roles:read', 'teams:read'];

/**
 * The application's permissions and their grants to `admin` and `member`, from the file ROLES_FILE
 * names ({"permissions": {name: description}, "roles": ..., "grants": {"admin": [...], "member":
 * [...]}}), none without it. The file is the bench's own, taken as valid.
 */
function readRolesFile(): {
  permissions: string[];
  admin: string[];
  member: string[];
  roles: Array<[string, string[]]>;
} {
  if (!process.env.ROLES_FILE) return { permissions: [], admin: [], member: [], roles: [] };
  const file = JSON.parse(readFileSync(process.env.ROLES_FILE, 'utf8'));
  return {
    permissions: Object.keys(file.permissions ?? {}),
    admin: file.grants?.admin ?? [],
    member: file.grants?.member ?? [],
    roles: Object.entries(file.roles ?? {}).map(([name, role]) => [
      name,
      (role as { permissions: string[] }).permissions,
    ]),
  };
}

const rolesFile = readRolesFile();
/** Every permission a check may name: the service's own and the application's. */
const KNOWN_PERMISSIONS: ReadonlySet<string> = new Set([...SERVICE_PERMISSIONS, ...rolesFile.permissions]);
/** The built-in roles: an owner holds every permission, an admin all but the owners' own, plus the grants. */
const ROLE_PERMISSIONS = new Map<string, ReadonlySet<string>>([
  ['owner', KNOWN_PERMISSIONS],
  ['admin', new Set([...SERVICE_PERMISSIONS.filter((name) => !OWNERS_ONLY.has(name)), ...rolesFile.admin])],
  ['member', new Set([...MEMBERS_OWN, ...rolesFile.member])],
  ...rolesFile.roles.map(([name, permissions]): [string, ReadonlySet<string>] => [name, new Set(permissions)]),
]);
const NONE: ReadonlySet<string> = new Set();
/** An organization's own roles' permissions by their stored JSON, parsed once each. */
const parsedRoles = new Map<string, ReadonlySet<string>>();

function permissionsOfRole(role: string, stored: string | null): ReadonlySet<string> {
  const fixed = ROLE_PERMISSIONS.get(role);
  if (fixed) return fixed;
  if (stored === null) return NONE;
  let parsed = parsedRoles.get(stored);
  if (!parsed) parsedRoles.set(stored, (parsed = new Set(JSON.parse(stored) as string[])));
  return parsed;
}

interface CheckInput {
  permissions: string[];
  userId: string;
}

/** The body of a check: 1 to 100 distinct known names, and whose (default: the caller's). */
function checkInput(body: Record<string, unknown>, caller: Caller): CheckInput {
  const permissions = body.permissions;
  if (!Array.isArray(permissions)) throw invalid('permissions', 'expected an array');
  if (permissions.length < 1 || permissions.length > MAX_PERMISSIONS_CHECKED)
    throw invalid('permissions', `1 to ${MAX_PERMISSIONS_CHECKED} names`);
  for (let index = 0; index < permissions.length; index++) {
    const name = permissions[index];
    if (typeof name !== 'string' || !PERMISSION_NAME.test(name))
      throw invalid(`permissions.${index}`, 'Must be <resource>:<action>');
    if (!KNOWN_PERMISSIONS.has(name)) throw invalid(`permissions.${index}`, `Unknown permission: ${name}`);
    if (permissions.indexOf(name) !== index) throw invalid('permissions', `Names ${name} more than once`);
  }
  const userId = body.user_id === undefined ? caller.userId : text(body.user_id, 'user_id', 1, 128);
  return { permissions, userId };
}

/**
 * What the caller and `userId` (the caller again when they ask about themselves) hold in the
 * organization, by user id: their role's permissions and those of the roles their teams give
 * (behaviour §12); no entry for a non-member, or for a membership that has expired. One statement,
 * as the service's: one row per team role, at least one per member. A built-in or instance role's
 * permissions are in ROLE_PERMISSIONS, an organization's own role's come from organization_roles.
 * (Measured on MariaDB, 20 teams: DISTINCT, GROUP BY or a GROUP_CONCAT subquery fold the rows in a
 * temporary table, 5 to 10 times the database's time; a UNION ALL of the membership and the team
 * roles, a third more.)
 */
async function membersPermissions(
  scope: Scope,
  organizationId: string,
  callerId: string,
  userId: string,
): Promise<Map<string, ReadonlySet<string>>> {
  const rows = await read<RowDataPacket[][]>(scope, {
    sql: `select m.user_id, m.role, r.permissions, tr.role, trr.permissions from organization_users m
      left join organization_roles r on r.organization_id = m.organization_id and r.name = m.role
      left join team_members tm on tm.organization_id = m.organization_id and tm.user_id = m.user_id
      left join team_roles tr on tr.team_id = tm.team_id
      left join organization_roles trr on trr.organization_id = m.organization_id and trr.name = tr.role
      where m.organization_id = ? and m.user_id in (?, ?) and (m.expires_at is null or m.expires_at > ?)`,
    rowsAsArray: true,
    values: [organizationId, callerId, userId, storedNow()],
  });
  const held = new Map<string, ReadonlySet<string>>();
  // The sets made here, which may grow; the roles' own are shared and never change.
  const made = new Set<ReadonlySet<string>>();
  type Row = [string, string, string | null, string | null, string | null];
  for (const [user, role, stored, teamRole, teamRoleStored] of rows as unknown as Row[]) {
    let permissions = held.get(user);
    if (!permissions) held.set(user, (permissions = permissionsOfRole(role, stored)));
    // A team never gives `owner` (the service refuses it): skipped all the same, as the service does.
    if (teamRole === null || teamRole === 'owner') continue;
    for (const name of permissionsOfRole(teamRole, teamRoleStored)) {
      if (permissions.has(name)) continue;
      if (!made.has(permissions)) {
        held.set(user, (permissions = new Set(permissions)));
        made.add(permissions);
      }
      (permissions as Set<string>).add(name);
    }
  }
  return held;
}

/** Whether the user (default: the caller) holds each permission named; a non-member holds none. */
async function checkPermissions(
  caller: Caller,
  organizationId: string,
  body: Record<string, unknown>,
  scope: Scope,
): Promise<[number, unknown]> {
  let input: CheckInput;
  try {
    input = checkInput(body, caller);
  } catch (error) {
    // A caller who may not act is told 403, whatever the body holds (behaviour §3.2).
    const held = await membersPermissions(scope, organizationId, caller.userId, caller.userId);
    throw held.has(caller.userId) ? error : notInOrganization();
  }
  const held = await membersPermissions(scope, organizationId, caller.userId, input.userId);
  const callers = held.get(caller.userId);
  if (!callers) throw notInOrganization();
  // Every built-in role holds both; an organization's own role need not.
  if (!callers.has('organization:read')) throw forbidden('You may not read this organization');
  if (input.userId !== caller.userId && !callers.has('members:read'))
    throw forbidden("Only a member who may read its members may check another member's permissions");
  const users = held.get(input.userId);
  let allowed = true;
  let results = '';
  for (const name of input.permissions) {
    const holds = users?.has(name) === true;
    allowed &&= holds;
    // A permission's name is of a-z, 0-9, `_`, `-` and one `:`: nothing to escape.
    results += `,"${name}":${holds}`;
  }
  return [
    200,
    new JsonText(`{"user_id":${JSON.stringify(input.userId)},"allowed":${allowed},"results":{${results.slice(1)}}}`),
  ];
}

// ---- routing ---------------------------------------------------------------------------------

const MEMBER_PATH = '/organization-user/';
/** `POST /organizations/{organization_id}/permissions/check`, also under /api. */
const CHECK_PATH = /^(?:\/api)?\/organizations\/([^/]*)\/permissions\/check$/;

/** The user id in a member read's path. */
function memberPathUserId(path: string): string {
  let userId;
  try {
    userId = decodeURIComponent(path.slice(MEMBER_PATH.length));
  } catch {
    throw badRequest('user_id: malformed percent-encoding');
  }
  return text(userId, 'user_id', 1, 128);
}

async function handle(request: IncomingMessage, scope: Scope): Promise<[number, unknown]> {
  const path = (request.url ?? '/').split('?')[0]!;
  if (request.headers.authorization?.startsWith(KEY_BEARER)) {
    // Keys are served on the read the bench sends with one, (m).
    if (!path.startsWith(MEMBER_PATH) || request.method !== 'GET')
      throw forbidden('This baseline serves keys on GET /organization-user/{id} only');
    return getMemberByKey(request.headers.authorization, organizationIdOf(request), memberPathUserId(path), scope);
  }
  const caller = callerOf(request);
  const method = request.method;
  if (path === '/users' || path === '/api/users') {
    if (method === 'GET') return getUser(caller, scope);
    if (method === 'POST') return createUser(caller, await readBody(request), scope);
  } else if (path === '/organizations' || path === '/api/organizations') {
    if (method === 'POST') return createOrganization(caller, await readBody(request), scope);
  } else if (path === '/organization-user') {
    const organizationId = organizationIdOf(request);
    if (method === 'GET') return listMembers(caller, organizationId, scope);
    if (method === 'POST') return addMember(caller, organizationId, await readBody(request), scope);
    if (method === 'PUT') return changeRole(caller, organizationId, await readBody(request), scope);
    if (method === 'DELETE') return removeMember(caller, organizationId, await readBody(request), scope);
  } else if (path.startsWith(MEMBER_PATH) && method === 'GET') {
    return getMember(caller, organizationIdOf(request), memberPathUserId(path), scope);
  } else if (method === 'POST') {
    const check = CHECK_PATH.exec(path);
    if (check) return checkPermissions(caller, organizationIdIn(check[1]!), await readBody(request), scope);
  }
  throw notFound('No such route');
}

/**
 * BASELINE_DUTIES=true: the baseline also does per request what the service does that its users
 * rely on, so that the bench measures both ways (the issue's "both ways"): a request id, sent back
 * as `x-request-id`; one pino JSON line per request with it (method, URL, status, duration), as
 * the service logs; and the service's security headers (server/http/protection.ts), the same
 * bytes on every answer. Off by default: the bare baseline is the bar the targets name.
 */
const DUTIES = process.env.BASELINE_DUTIES === 'true';
const requestLog = DUTIES ? pino() : undefined;
const SECURITY_HEADERS: Record<string, string> = DUTIES
  ? {
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'cross-origin-resource-policy': 'same-origin',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    }
  : {};

function answer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...SECURITY_HEADERS, ...headers });
  response.end(body instanceof JsonText ? body.text : JSON.stringify(body));
}

function answerError(response: ServerResponse, error: unknown) {
  const errno = errnoOf(error);
  if (errno === LOCK_WAIT_TIMEOUT || errno === STATEMENT_TIMEOUT)
    error = unavailable('The database is busy, try again');
  // mysql2 marks the errors of a connection that failed or could not be made (the database gone).
  else if ((error as { fatal?: boolean }).fatal) error = unavailable('The database is unavailable, try again');
  if (!(error instanceof HttpError)) {
    console.error(error);
    error = new HttpError(500, 'INTERNAL_SERVER_ERROR', 'Internal error');
  }
  const { status, code, message, issues } = error as HttpError;
  answer(
    response,
    status,
    issues ? { code, message, issues } : { code, message },
    status === 503 ? { 'retry-after': '1' } : {},
  );
}

function logged(request: IncomingMessage, response: ServerResponse): void {
  const reqId = randomUUID();
  const started = performance.now();
  response.setHeader('x-request-id', reqId);
  response.on('finish', () =>
    requestLog!.info(
      {
        reqId,
        method: request.method,
        url: request.url,
        status: response.statusCode,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      },
      'request',
    ),
  );
}

const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  if (DUTIES) logged(request, response);
  const scope: Scope = { deadline: Date.now() + TIMEOUT_MS, givenUp: false };
  // One timer per request: at the end of its budget it ends a wait for a connection (the other
  // waits end by then by themselves), then becomes the processing limit.
  let timer = setTimeout(() => {
    scope.stopWaiting?.();
    timer = setTimeout(() => {
      scope.givenUp = true;
      answerError(response, unavailable('The request took too long and was given up'));
    }, PROCESSING_LIMIT_MS - TIMEOUT_MS);
  }, TIMEOUT_MS);
  handle(request, scope).then(
    ([status, body]) => {
      clearTimeout(timer);
      if (!scope.givenUp) answer(response, status, body);
    },
    (error: unknown) => {
      clearTimeout(timer);
      if (!scope.givenUp) answerError(response, error);
    },
  );
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', address: [server.address()] }));
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
