/**
 * One transaction attempt on one connection, sending its statements in as few round trips as the
 * database allows. A statement whose result nothing waits for (`later`: the change itself, its
 * audit event, the idempotent answer, the organization's lock) is queued, and goes out with the
 * next statement whose result is awaited (`first`, `all`, `run`), or with COMMIT. So a membership
 * change is two round trips: BEGIN, the lock and the reads; then the writes and COMMIT. On MySQL
 * and MariaDB the statements of a round trip are sent as one multi-statement query (values escaped
 * by the driver, as in every query it sends); the embedded database, in-process, runs them one by one.
 *
 * COMMIT never goes out in a transaction's first round trip: a change with no reads (creating a
 * user or an organization) is two round trips, the change, then COMMIT. A database that has stalled
 * (a frozen server, a network that holds packets) answers nothing; the request is given up at its
 * processing limit and answered 503. Had COMMIT gone with the change, the database would commit it
 * when it woke, after that 503 (tests/faults.test.ts froze one to see it). Sent after an answer, it
 * is held back by the given-up check (transaction.ts), and what the database was sent rolls back.
 * After a first answer, the database was alive a round trip ago: the writes go with COMMIT, and
 * the outcome is unknown only if it stalls during that round trip, as for any COMMIT.
 *
 * Not on a Galera node: there a transaction can be aborted from outside while it runs (a
 * conflicting write set from another node, a "brute-force abort"), and MariaDB then runs the rest
 * of a multi-statement query outside any transaction and reports success, so a change could be
 * answered 200 that never committed (tests/galera.test.ts caught it in about 1 race in 40). One
 * statement at a time, the abort is reported on the next one, as a deadlock to retry.
 *
 * Each round trip goes out only within the transaction's budget (its request's DB_TIMEOUT_MS,
 * transaction.ts), and on MariaDB each of its statements may run, lock waits included, only for the
 * time left of it: `SET STATEMENT max_statement_time` (fractional seconds, and it ends a lock wait
 * too, where `innodb_lock_wait_timeout` counts whole seconds). The session's own bound,
 * DB_TIMEOUT_MS from the start of a statement (orm.ts), would let a statement begun late in the
 * budget outlast it. MySQL has no per-statement form for every statement: there its session bounds
 * hold, and the processing limit answers in time (http/processing-limit.ts).
 *
 * Why not Kysely's own transactions: they send BEGIN and COMMIT as statements of their own, and
 * each statement as its own round trip: seven per membership change, which made writes three times
 * slower than a hand-written server doing the same work (measured by `npm run bench`).
 */
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
  type QueryResult,
} from 'kysely';
import { unavailable } from '../errors.ts';
import { toDbTimestamp, type Database, type DbTimestamp, type Dialect, type Sql } from './schema.ts';
import { BEGIN_IMMEDIATE, COMMIT, ROLLBACK, toQueryResult, type StatementRunner } from './statements.ts';

/** Reads that run the same in a transaction (`Tx`) and outside one (`Db`). */
export interface Reader {
  /** The query builder: build with it, run with the methods below. */
  readonly sql: Sql;
  first<Row>(query: Compilable<Row>): Promise<Row | undefined>;
  all<Row>(query: Compilable<Row>): Promise<Row[]>;
}

/** A transaction in progress, as a data function sees it. */
export interface Tx extends Reader {
  readonly dialect: Dialect;
  /** The attempt's clock: every timestamp one transaction writes is this one. */
  readonly now: Date;
  /**
   * Whether this attempt may wait in the database for its organization's row lock: only behind
   * another change of this process under way (admission.ts); else it takes the lock at once or fails.
   */
  readonly waitsForLock: boolean;
  timestamp(date?: Date): DbTimestamp;
  /**
   * The organizations whose row the transaction took (../organization-changes.ts): once it has
   * committed, its request waits for what must be answered before its change (RequestScope).
   */
  readonly takenOrganizations: Set<string>;
  /**
   * Queues a statement; `check` sees its result when it has run and may throw to fail the
   * transaction. `failed` says what a failure of the statement means (StatementFailure).
   */
  later<Row>(query: Compilable<Row>, check?: (result: QueryResult<Row>) => void, failed?: StatementFailure): void;
  /**
   * Queues a statement whose `check` must have passed before anything of the transaction is
   * returned or committed: it goes out with the next statement whose result is awaited, its check
   * runs before that result is handed back, and COMMIT never travels with it; once a check has
   * thrown, nothing more is sent (the authorization guard, ../authorization/in-organization.ts).
   */
  guard<Row>(query: Compilable<Row>, check: (result: QueryResult<Row>) => void): void;
  /** Runs a statement, after those queued; its result. */
  run<Row>(query: Compilable<Row>): Promise<QueryResult<Row>>;
  /** Sends the queued statements now (their checks run). */
  flush(): Promise<void>;
}

/**
 * What a statement's failure means to the work that queued it: the error to throw instead (a
 * DomainError the request is answered with, or one that has the transaction tried again), or
 * undefined when the error is not the statement's own. Sent with others in one query, a statement
 * cannot be told apart by where the query failed: every one of them is asked, in order, so each
 * must recognise its own failure by what the error says (the constraint it names, on MySQL and
 * MariaDB). One by one (the embedded database, a Galera node) only the statement that failed is.
 */
export type StatementFailure = (error: unknown) => Error | undefined;

export interface Statement {
  query: CompiledQuery;
  check?: (result: QueryResult<unknown>) => void;
  /** A guard (Tx.guard): never sent together with COMMIT. */
  guard?: boolean;
  failed?: StatementFailure;
}

/** What `error`, a failure of a query that sent `statements`, means: the first meaning one of them gives it, or itself. */
function meaningOf(statements: Statement[], error: unknown): unknown {
  for (const statement of statements) {
    const meant = statement.failed?.(error);
    if (meant) return meant;
  }
  return error;
}

/**
 * A query builder that refuses to run anything: the data layer's queries run through Db, Tx or
 * GuardedReads, on statements.ts's one path. It refuses at `init`, which Kysely tries again at each
 * `.execute()`: refused later, once SQLite's adapter had taken Kysely's one-connection lock, the
 * lock would stay taken and every later `.execute()` would wait for ever.
 */
class BuildOnlyDriver extends DummyDriver {
  override init(): Promise<void> {
    return Promise.reject(
      new Error('Run a statement with first, all, run or later (Db, Tx, GuardedReads), not .execute()'),
    );
  }
}

export function buildOnlySql(dialect: Dialect): Sql {
  const sqlite = dialect === 'sqlite';
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => (sqlite ? new SqliteAdapter() : new MysqlAdapter()),
      createDriver: () => new BuildOnlyDriver(),
      createIntrospector: (db) => (sqlite ? new SqliteIntrospector(db) : new MysqlIntrospector(db)),
      createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new MysqlQueryCompiler()),
    },
  });
}

/** One multi-statement query's result per statement, in Kysely's shape. */
const toQueryResults = (rows: unknown[]): Array<QueryResult<unknown>> => rows.map((result) => toQueryResult(result));

/**
 * Sends `statements` on `connection` (a pool or one connection), as one multi-statement query when
 * `together` allows it, else one by one, each shaped by `bound`; then runs their checks in order,
 * before any result is returned. One by one, a check runs before the next statement goes out.
 * `bounded` tells, when a statement is about to go out, how to send it (a time bound).
 */
export async function sendStatements(
  connection: StatementRunner,
  statements: Statement[],
  together: boolean,
  bounded: () => (query: CompiledQuery) => CompiledQuery = () => (query) => query,
): Promise<Array<QueryResult<unknown>>> {
  if (together && statements.length > 1) {
    const bound = bounded();
    const queries = statements.map((statement) => bound(statement.query));
    const joined = CompiledQuery.raw(
      queries.map((query) => query.sql).join(';\n'),
      queries.flatMap((query) => [...query.parameters]),
    );
    const answer = await connection.executeQuery(joined).catch((error: unknown) => {
      throw meaningOf(statements, error);
    });
    const results = toQueryResults(answer.rows);
    statements.forEach((statement, index) => statement.check?.(results[index]!));
    return results;
  }
  const results: Array<QueryResult<unknown>> = [];
  for (const statement of statements) {
    const result = await connection.executeQuery(bounded()(statement.query)).catch((error: unknown) => {
      throw meaningOf([statement], error);
    });
    statement.check?.(result);
    results.push(result);
  }
  return results;
}

/** How a UnitOfWork sends its statements; see the module comment and Tx. */
export interface UnitOfWorkOptions {
  dialect: Dialect;
  /** The build-only query builder for the dialect. */
  sql: Sql;
  /** Whether several statements may go in one query. */
  together: boolean;
  waitsForLock: boolean;
  /** When the transaction's budget ends (epoch ms): nothing is sent after it (module comment). */
  deadline: number;
}

const BEGIN = CompiledQuery.raw('begin');

/** MariaDB's form of a statement that may run `seconds` at most, merged into a `SET STATEMENT` it may have. */
function boundedStatement(sql: string, seconds: string): string {
  const bound = `set statement max_statement_time = ${seconds}`;
  // Nested SET STATEMENT clauses are accepted, but only the inner one applies.
  return /^set statement /i.test(sql) ? `${bound}, ${sql.slice('set statement '.length)}` : `${bound} for ${sql}`;
}

export class UnitOfWork implements Tx {
  readonly sql: Sql;
  readonly dialect: Dialect;
  readonly waitsForLock: boolean;
  readonly now = new Date();
  readonly takenOrganizations = new Set<string>();
  readonly #connection: StatementRunner;
  readonly #together: boolean;
  readonly #deadline: number;
  #queued: Statement[];
  #now: DbTimestamp | undefined;
  /** Whether BEGIN has gone out, so that a failure must roll back. */
  #begun = false;
  /**
   * What a guard's check threw: nothing more is sent, COMMIT included, even if the work caught it
   * and went on (Tx.guard).
   */
  #refused: { error: unknown } | undefined;

  /** `connection`: a Kysely bound to one connection. */
  constructor(connection: StatementRunner, { dialect, sql, together, waitsForLock, deadline }: UnitOfWorkOptions) {
    this.#connection = connection;
    this.dialect = dialect;
    this.sql = sql;
    this.#together = together;
    this.waitsForLock = waitsForLock;
    this.#deadline = deadline;
    this.#queued = [{ query: dialect === 'sqlite' ? BEGIN_IMMEDIATE : BEGIN }];
  }

  timestamp(date?: Date): DbTimestamp {
    if (date) return toDbTimestamp(this.dialect, date);
    // A change writes its clock's timestamp into several rows: formatted once.
    return (this.#now ??= toDbTimestamp(this.dialect, this.now));
  }

  later<Row>(query: Compilable<Row>, check?: (result: QueryResult<Row>) => void, failed?: StatementFailure): void {
    this.#queued.push({ query: query.compile(), check: check as Statement['check'], failed });
  }

  guard<Row>(query: Compilable<Row>, check: (result: QueryResult<Row>) => void): void {
    const checkOrRefuse = (result: QueryResult<unknown>) => {
      try {
        check(result as QueryResult<Row>);
      } catch (error) {
        this.#refused ??= { error };
        throw error;
      }
    };
    this.#queued.push({ query: query.compile(), check: checkOrRefuse, guard: true });
  }

  async run<Row>(query: Compilable<Row>): Promise<QueryResult<Row>> {
    const results = await this.#send([...this.#queued.splice(0), { query: query.compile() }]);
    return results.at(-1) as QueryResult<Row>;
  }

  async first<Row>(query: Compilable<Row>): Promise<Row | undefined> {
    return (await this.run(query)).rows[0];
  }

  async all<Row>(query: Compilable<Row>): Promise<Row[]> {
    return (await this.run(query)).rows;
  }

  async flush(): Promise<void> {
    if (this.#queued.length > 0) await this.#send(this.#queued.splice(0));
  }

  /**
   * Sends what is still queued when nothing has been sent yet (see the module comment); then
   * `commit` sends the rest with COMMIT.
   */
  async prepareCommit(): Promise<void> {
    if (!this.#begun) await this.flush();
  }

  /** Sends what is queued, then COMMIT: a guard still queued goes out first, on its own (Tx.guard). */
  async commit(): Promise<void> {
    if (this.#queued.some((statement) => statement.guard)) await this.flush();
    await this.#send([...this.#queued.splice(0), { query: COMMIT }]);
  }

  /** Undoes what was sent; nothing to undo when BEGIN never went out. */
  async rollback(): Promise<void> {
    if (this.#begun) await this.#connection.executeQuery(ROLLBACK);
  }

  /** A guard's refusal is thrown, not returned rejected: every caller awaits this in an async method. */
  #send(statements: Statement[]): Promise<Array<QueryResult<unknown>>> {
    if (this.#refused) throw this.#refused.error;
    return sendStatements(this.#connection, statements, this.#together, () => {
      const bound = this.#withinBudget();
      this.#begun = true;
      return bound;
    });
  }

  /**
   * How a statement sent now goes out: bounded by the time left of the budget (module comment).
   * 503 when none is left: nothing more is sent, and what was sent rolls back.
   */
  #withinBudget(): (query: CompiledQuery) => CompiledQuery {
    const leftMs = Math.floor(this.#deadline - Date.now());
    if (leftMs <= 0) throw unavailable('The database did not carry out the change in time, try again');
    if (this.dialect !== 'mariadb') return (query) => query;
    const seconds = (leftMs / 1000).toFixed(3);
    return (query) =>
      query === BEGIN || query === COMMIT
        ? query
        : CompiledQuery.raw(boundedStatement(query.sql, seconds), [...query.parameters]);
  }
}
