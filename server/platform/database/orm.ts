/**
 * Opens the database named by DATABASE_URL, bounded as behaviour §10 asks when serving requests,
 * and applies pending migrations when asked to.
 */
import { closeSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import type { MySqlConnection } from '@mikro-orm/mysql';
import { SqlitePlatform, type SqlEntityManager } from '@mikro-orm/sql';
import type { LibSqlConnection } from '@mikro-orm/libsql';
import { CompiledQuery, type QueryResult } from 'kysely';
import { keptStatements, type NativeDatabase } from './embedded-statements.ts';
import { locateDatabase, type DatabaseLocation } from './engine.ts';
import { createOrmConfig } from './orm-config.ts';
import { makeDirectory } from '../make-directory.ts';
import { servePool } from './mysql-pool.ts';
import { pooledStatements, servesStatements, type ConnectionHook, type HookedConnection } from './statements.ts';
import { traceStatements } from './statement-spans.ts';
import { tracingOn } from '../tracing/spans.ts';

export type Orm = MikroORM & { em: SqlEntityManager };

/** DB_POOL_SIZE and DB_TIMEOUT_MS: how many connections, and the longest any wait on them lasts. */
export interface DatabaseBounds {
  poolSize: number;
  timeoutMs: number;
}

const run = (connection: HookedConnection, sql: string) => connection.executeQuery(CompiledQuery.raw(sql));

/**
 * Per-session bounds, set once on each new connection. Each statement (lock waits included) ends
 * within the bound, enforced by the database itself: MariaDB's max_statement_time covers every
 * statement, MySQL's max_execution_time only SELECTs, and InnoDB's lock wait timeout (whole
 * seconds) every row lock. On MariaDB a transaction's statements are bounded tighter, by what is
 * left of their request's budget (unit-of-work.ts). On a Galera node, reads also wait until the
 * node has applied every write the cluster committed before them (wsrep_sync_wait), so a change
 * made through another node is seen by the next read.
 */
function sessionBounds({ engine, file }: DatabaseLocation, timeoutMs: number, embedded: EmbeddedHandle) {
  const lockWaitSeconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  if (engine === 'mariadb') {
    return async (connection: HookedConnection) => {
      await run(
        connection,
        `set session innodb_lock_wait_timeout = ${lockWaitSeconds}, max_statement_time = ${timeoutMs / 1000}`,
      );
      const { rows } = await run(connection, 'select @@wsrep_on as wsrep');
      if (Number((rows[0] as { wsrep: unknown }).wsrep) === 1) await run(connection, 'set session wsrep_sync_wait = 1');
    };
  }
  if (engine === 'mysql') {
    return (connection: HookedConnection) =>
      run(
        connection,
        `set session innodb_lock_wait_timeout = ${lockWaitSeconds}, max_execution_time = ${timeoutMs}`,
      ).then(() => undefined);
  }
  return embeddedConnection(file, timeoutMs, embedded);
}

/** What the embedded database's connection hook uses of libSQL's own handle on the file. */
interface NativeEmbedded extends NativeDatabase {
  exec(sql: string): unknown;
}

/** libSQL's handle, once the ORM has connected (openDatabase). */
interface EmbeddedHandle {
  native?: NativeEmbedded;
}

/** BEGIN, COMMIT and ROLLBACK, which the embedded connection runs through libSQL's `exec`. */
const TRANSACTION_CONTROL = /^(begin( deferred| immediate| exclusive)?|commit|rollback)$/i;

/**
 * The embedded database's one connection (behaviour §10). Its driver is synchronous: SQLite's busy
 * handler, waiting for another process's lock on the file (a `sqlite3` shell, a backup,
 * `npm run app-key`), would sleep on the event loop and stop the whole service, `/healthz`
 * included, once per statement that met the lock. So no statement waits inside SQLite
 * (`busy_timeout` 0): one that finds the file busy fails at once, and is sent again after a pause,
 * without holding the loop, until its request's DB_TIMEOUT_MS is spent (statements.ts,
 * transaction.ts).
 *
 * Where it meets the lock matters. A statement libSQL prepared and that failed busy is left
 * unfinished until the garbage collector drops it (its `run` resets a statement before running it,
 * never after a failure), and while a write is left so, SQLite refuses every COMMIT of the
 * connection ("SQL statements in progress", itself SQLITE_BUSY). So every write takes the lock
 * first, with BEGIN IMMEDIATE (unit-of-work.ts; a write on its own too, statements.ts), and
 * BEGIN, COMMIT and ROLLBACK go through libSQL's `exec`, which finishes its statement however it
 * ends; the statements between them never wait for another process's lock. Those are prepared once
 * per text and kept (embedded-statements.ts).
 *
 * And the file is kept in WAL mode, where readers (a `.dump`, a backup) and the writer do not hold
 * each other up: only another process's write transaction holds a change back, and nothing holds
 * a read back. The mode is the file's own, kept across opens; a file made before (in
 * rollback-journal mode) is switched at its first open here. The switch needs the file to itself:
 * it waits up to DB_TIMEOUT_MS for other processes' locks, at the start, before anything is
 * served, and a start that cannot get it fails (cli/failures.ts says why in one line).
 */
function embeddedConnection(file: string | undefined, timeoutMs: number, handle: EmbeddedHandle) {
  return async (connection: HookedConnection) => {
    if (file !== ':memory:') {
      await run(connection, `pragma busy_timeout = ${timeoutMs}`);
      await run(connection, 'pragma journal_mode = wal');
    }
    await run(connection, 'pragma busy_timeout = 0');
    const preparedEachTime = connection.executeQuery.bind(connection);
    let runKept: ReturnType<typeof keptStatements> | undefined;
    // The hooks after this one (metrics, statement spans) wrap it: they see every statement.
    connection.executeQuery = <Row>(query: CompiledQuery) => {
      const { native } = handle;
      if (!native) return preparedEachTime<Row>(query);
      const kept = (runKept ??= keptStatements(native));
      return new Promise<QueryResult<Row>>((resolve) => {
        if (query.parameters.length > 0 || !TRANSACTION_CONTROL.test(query.sql)) return resolve(kept<Row>(query));
        native.exec(query.sql);
        resolve({ rows: [] });
      });
    };
  };
}

/**
 * The prepared statements a connection keeps (mysql2's default: 16,000). The service prepares a few
 * dozen texts (prepared.ts), and mysql2 allocates four arrays of this length per connection up
 * front: at the default, half a megabyte each.
 */
const PREPARED_STATEMENTS_PER_CONNECTION = 256;

/**
 * Opens the database (a URL, or one the settings located already). With `bounds` (serving
 * requests), the pool has `poolSize` connections and every wait is bounded by `timeoutMs`; without
 * (migrations, maintenance), nothing is bounded.
 */
export async function openDatabase(
  where: DatabaseLocation | string,
  bounds?: DatabaseBounds,
  options: Partial<Options> = {},
): Promise<Orm> {
  const database = typeof where === 'string' ? locateDatabase(where) : where;
  const { dialect, file } = database;
  // The embedded database's folder is made; a MySQL or MariaDB database must exist (ensureDatabase
  // below). make-directory.ts says why not node:fs's recursive mkdir.
  if (file !== undefined && file !== ':memory:') {
    makeDirectory(dirname(file));
    // Made readable by its owner alone, as the development secret is (auth/secret.ts): it holds
    // webhook secrets and private metadata. SQLite gives its -wal and -shm files the same mode.
    closeSync(openSync(file, 'a', 0o600));
  }
  // Each new connection gets the session bounds, then whatever else the caller asks (metrics).
  const connectionHooks: ConnectionHook[] = [];
  const embedded: EmbeddedHandle = {};
  if (bounds) connectionHooks.push(sessionBounds(database, bounds.timeoutMs, embedded));
  if (options.onCreateConnection) connectionHooks.push(options.onCreateConnection);
  if (bounds && tracingOn()) connectionHooks.push(traceStatements(database.engine));
  const onCreateConnection = async (connection: unknown) => {
    for (const hook of connectionHooks) await hook(connection as HookedConnection);
  };
  const bounded: Partial<Options> = bounds
    ? {
        pool: { min: 0, max: bounds.poolSize },
        // A transaction sends its statements in as few round trips as it can (unit-of-work.ts): several
        // statements per query. Every statement is built by Kysely and its values escaped by mysql2,
        // so no text from a request is ever spliced into SQL that could add a statement.
        ...(dialect === 'mysql' && {
          driverOptions: {
            connectTimeout: bounds.timeoutMs,
            maxPreparedStatements: PREPARED_STATEMENTS_PER_CONNECTION,
          },
          multipleStatements: true,
        }),
      }
    : {};
  // The synchronous constructor, not MikroORM.init: the entities need no discovery from files, and
  // init would try to import every optional MikroORM package that the configuration does not name
  // (the migrator is named: orm-config.ts).
  const orm = new MikroORM(
    await createOrmConfig(database, {
      // MikroORM creates a MySQL or MariaDB database that does not exist when it connects, and its
      // migrator does too: a typo in DATABASE_URL would give an empty database. pingDatabase tells.
      ensureDatabase: false,
      ...bounded,
      ...options,
      ...(connectionHooks.length > 0 && { onCreateConnection }),
    }),
  ) as Orm;
  // MikroORM 7 connects lazily; the pool (and its Kysely client) must exist before the first query.
  await orm.connect();
  // libSQL's own handle, for the connection's BEGIN, COMMIT and ROLLBACK (embeddedConnection).
  if (bounds && dialect === 'sqlite') {
    embedded.native = await (orm.em.getConnection() as unknown as LibSqlConnection).getNativeClient();
  }
  if (bounds && dialect === 'mysql') {
    const pool = await (orm.em.getConnection() as unknown as MySqlConnection).getNativeClient();
    servePool(pool, bounds.timeoutMs);
    // Its statements go to the pool directly (statements.ts), each connection with the same hooks.
    servesStatements(orm.em.getKysely(), pooledStatements(pool, onCreateConnection));
  }
  return orm;
}

/** Whether the database is a node of a MariaDB Galera cluster (wsrep on). */
export async function isGaleraNode(orm: Orm, { engine }: DatabaseLocation): Promise<boolean> {
  if (engine !== 'mariadb') return false;
  // The connection's `execute` is typed `any` whatever its type argument says.
  const [row] = (await orm.em.getConnection().execute('select @@wsrep_on as wsrep')) as Array<{ wsrep: unknown }>;
  return Number(row?.wsrep) === 1;
}

const MIGRATION_LOCK = 'org-user-service:migrations';
const MIGRATION_LOCK_WAIT_SECONDS = 120;

/**
 * Applies the pending migrations of the database's dialect; returns their names. Instances started
 * together each migrate at start: on MySQL and MariaDB they take turns under a named lock
 * (GET_LOCK: owned by one session, freed by the server if that session's process dies), so the
 * later ones find nothing pending instead of failing on the tables the first one is creating.
 * The embedded database belongs to one process and needs none; its migrations wait as long for
 * another process's lock on the file (a backup, `npm run app-key`), then back to none: the
 * service migrates at start on its serving connection, whose statements must not wait (orm.ts's
 * embeddedConnection). Run it on an ORM opened without bounds: a migration may rightly take
 * longer than any request.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  const applyPending = async () => (await orm.migrator.up()).map((migration) => migration.name);
  if (orm.em.getPlatform() instanceof SqlitePlatform) {
    const connection = orm.em.getConnection();
    await connection.execute(`pragma busy_timeout = ${MIGRATION_LOCK_WAIT_SECONDS * 1000}`);
    try {
      return await applyPending();
    } finally {
      await connection.execute('pragma busy_timeout = 0');
    }
  }
  // A transaction is MikroORM's way to keep one session, the lock's owner, for the whole run.
  return orm.em.fork().transactional(async (session) => {
    const [lock] = await session.execute<Array<{ acquired: number | null }>>('select get_lock(?, ?) as acquired', [
      MIGRATION_LOCK,
      MIGRATION_LOCK_WAIT_SECONDS,
    ]);
    if (Number(lock?.acquired) !== 1) {
      throw new Error(`Another process held the migration lock for over ${MIGRATION_LOCK_WAIT_SECONDS} s`);
    }
    try {
      return await applyPending();
    } finally {
      await session.execute('select release_lock(?)', [MIGRATION_LOCK]);
    }
  });
}

/**
 * One round trip to the database; throws the driver's error when it cannot be made (a database
 * that does not exist included, which the start and `npm run migrate` report in one line). MikroORM
 * 7 connects on the first query, and its `isConnected()` answers false until then: readiness asks
 * the database itself, so it holds from the start, before any request has been served.
 */
export async function pingDatabase(orm: Orm): Promise<void> {
  await orm.em.getConnection().execute('select 1');
}
