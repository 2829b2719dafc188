/**
 * The one way the data layer changes data (behaviour §7 and 10): a transaction that
 * - waits, in all, no longer than its request's budget: DB_TIMEOUT_MS from the moment the request
 *   got its Db (forRequest). Its turn, a write slot, a connection, each statement and each lock
 *   wait are bounded by the time left of it (admission.ts, mysql-pool.ts, unit-of-work.ts), so a
 *   request that waits on the database is answered 503 at the end of its budget, rolled back;
 * - is run again, a bounded number of times with jittered pauses, when it loses a conflict (a
 *   deadlock, a lock wait past the limit, a Galera certification failure, or a row its work read
 *   deleted under it: ReadMoved, failures.ts), and ends in 503 after the last attempt or once the
 *   budget is spent, never in 500;
 * - never commits once its request has been given up (the request's signal, aborted by the HTTP
 *   layer's processing limit or by the client leaving), so an answered error means nothing changed,
 *   unless it was given up with its COMMIT under way (`onCommitSent`), which its answer then says;
 * - claims the Idempotency-Key of a request and stores its answer in the same transaction as its
 *   change, and answers a repeated request from that store, through a hook it knows nothing more
 *   of (ChangeHook; ../idempotency.ts is the one there is).
 * The work function runs once per attempt and must do nothing outside the transaction it is given.
 */
import type { SqlEntityManager } from '@mikro-orm/sql';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Compilable, QueryResult } from 'kysely';
import { DomainError, notInTime, unavailable } from '../errors.ts';
import { toDbTimestamp, type Database, type DbTimestamp, type Dialect, type Sql } from './schema.ts';
import { Admission, type Turn } from './admission.ts';
import { isFileBusy, isLostConflict, isUniqueViolation } from './failures.ts';
import { connectionWaitDeadline } from './mysql-pool.ts';
import { statementsOf, type StatementPool } from './statements.ts';
import { GuardedReads } from './guarded-reads.ts';
import { pauseBefore } from './backoff.ts';
import { buildOnlySql, UnitOfWork, type Reader, type Tx } from './unit-of-work.ts';

export type { Reader, Tx } from './unit-of-work.ts';

export interface TransactionSettings {
  /** DB_TIMEOUT_MS: each request's budget, the longest its transactions wait, retries included. */
  timeoutMs: number;
  /** Connections write transactions may hold at once; the rest of the pool is kept for reads. */
  writeSlots: number;
  /** Attempts at most, the first included. */
  maxAttempts: number;
  /** Told of every conflict that is retried and of every transaction that gave up (metrics). */
  onConflict?: (outcome: 'retried' | 'exhausted') => void;
  /** Whether a transaction may send several statements in one query (unit-of-work.ts). */
  statementsTogether: boolean;
  /** Changes of one organization that may be under way at once in this process (admission.ts). */
  changesPerOrganization: number;
}

/** What the HTTP layer knows of the request a transaction serves. */
export interface RequestScope {
  /** Aborted when the request is given up: a transaction not yet committed then rolls back. */
  signal?: AbortSignal;
  /**
   * Called as a transaction's COMMIT is about to go out: a request given up from then on may have
   * changed what it asked for (a database that stalls now commits when it wakes), and must say so.
   */
  onCommitSent?: () => void;
  /** What the request's change does in its own transaction besides its work (an Idempotency-Key). */
  hook?: ChangeHook;
  /** Called when the hook answered the request instead of its work (a replay). */
  onReplay?: () => void;
  /**
   * Awaited once a transaction that took organizations' rows has committed, before its answer:
   * the answers of who may do what under way in them (../requests-in-flight.ts).
   */
  afterOrganizationChanges?: (organizationIds: ReadonlySet<string>) => Promise<void>;
}

/**
 * Work a request's change does in the change's own transaction around the change itself, so that
 * it commits with the change or not at all: claiming an Idempotency-Key and storing its answer
 * (../idempotency.ts). Only the first transaction of a request runs it.
 */
export interface ChangeHook {
  /** Before the attempts: returns what to call after the last, however it ended. */
  enter(signal: AbortSignal | undefined): () => void;
  /** The first statements of each attempt; an `answer` answers the request instead of the work. */
  begin(tx: Tx, isUniqueViolation: (error: unknown) => boolean): Promise<{ answer: unknown } | undefined>;
  /** After the work, in the same transaction, with its answer. */
  complete(tx: Tx, answer: unknown): void;
}

class RequestGivenUp extends Error {
  override name = 'RequestGivenUp';
}

/** What every request's Db shares: the ORM's entity manager (for its platform) and settings. */
interface Shared {
  em: SqlEntityManager;
  /** Where every statement goes (statements.ts): the one path, with its connections' hooks. */
  statements: StatementPool;
  /**
   * Builds (never runs) every query: reads run through `first`, `all` and `run`, or GuardedReads,
   * and transactions' statements through their UnitOfWork, all on `statements`.
   */
  buildSql: Sql;
  dialect: Dialect;
  settings: TransactionSettings;
  admission: Admission;
}

/** The data layer's handle on the database for one request: typed queries and transactions. */
export class Db implements Reader {
  /** Builds queries for `first`, `all` and `run`; `.execute()` on one throws (unit-of-work.ts). */
  readonly sql: Sql;
  readonly dialect: Dialect;
  readonly #shared: Shared;
  #scope: RequestScope;
  /** When the request's budget ends; without a request, each transaction has a budget of its own. */
  readonly #deadline: number | undefined;

  private constructor(shared: Shared, scope: RequestScope, deadline?: number) {
    this.#shared = shared;
    this.sql = shared.buildSql;
    this.dialect = shared.dialect;
    this.#scope = scope;
    this.#deadline = deadline;
  }

  /** The database behind `em`, for requests to scope with `forRequest`. */
  static open(em: SqlEntityManager, dialect: Dialect, settings: TransactionSettings): Db {
    const admission = new Admission(settings);
    const statements = statementsOf(em.getKysely<Database>(), settings.timeoutMs);
    return new Db({ em, statements, buildSql: buildOnlySql(dialect), dialect, settings, admission }, {});
  }

  /** The same database for one request, whose budget of DB_TIMEOUT_MS starts now. */
  forRequest(scope: RequestScope): Db {
    return new Db(this.#shared, scope, Date.now() + this.#shared.settings.timeoutMs);
  }

  /** The same request, whose change carries an Idempotency-Key. */
  withChangeHook(hook: ChangeHook, onReplay: () => void): Db {
    return new Db(this.#shared, { ...this.#scope, hook, onReplay }, this.#deadline);
  }

  timestamp(date: Date): DbTimestamp {
    return toDbTimestamp(this.dialect, date);
  }

  /** Reads that come after a guard (guarded-reads.ts), for a procedure in an organization. */
  guardedReads(): GuardedReads {
    const { statements, buildSql, dialect, settings } = this.#shared;
    return new GuardedReads(statements, buildSql, dialect, settings.statementsTogether);
  }

  async first<Row>(query: Compilable<Row>): Promise<Row | undefined> {
    return (await this.#shared.statements.executeQuery(query.compile())).rows[0];
  }

  async all<Row>(query: Compilable<Row>): Promise<Row[]> {
    return (await this.#shared.statements.executeQuery(query.compile())).rows;
  }

  /**
   * One statement on its own, committed by itself: for a write that needs neither the
   * organization's lock nor an event, such as a webhook delivery's conditional claim.
   */
  async run<Row>(query: Compilable<Row>): Promise<QueryResult<Row>> {
    return this.#shared.statements.executeQuery(query.compile());
  }

  /** A unique index refused a write (a duplicate e-mail, membership, key…). */
  isUniqueViolation(error: unknown): boolean {
    return isUniqueViolation(this.#shared.em, error);
  }

  /** A deadlock, a lock wait given up, or a write that lost certification on a cluster: trying again may succeed. */
  isConflict(error: unknown): boolean {
    return isLostConflict(this.#shared.em, error);
  }

  /**
   * Runs `work` in one transaction and returns what it returns (see the module comment). With an
   * idempotency key, that value is the stored answer: a later identical request gets it back.
   * A change of one organization names it, to wait its turn in this process (admission.ts).
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>, options: { organizationId?: string } = {}): Promise<T> {
    // What the attempt that committed took (each attempt is a transaction of its own); nothing on a replay.
    let taken: ReadonlySet<string> = new Set();
    const answer = await this.#transaction(async (tx) => {
      const done = await work(tx);
      taken = tx.takenOrganizations;
      return done;
    }, options);
    if (taken.size > 0) await this.#scope.afterOrganizationChanges?.(taken);
    return answer;
  }

  async #transaction<T>(work: (tx: Tx) => Promise<T>, options: { organizationId?: string }): Promise<T> {
    const deadline = this.#deadline ?? Date.now() + this.#shared.settings.timeoutMs;
    const hook = this.#scope.hook;
    // One claim per request: a request that runs several transactions keys only the first.
    this.#scope = { ...this.#scope, hook: undefined };
    const run = (attempt: (tx: Tx) => Promise<T>) =>
      this.#shared.admission.inTurn(options.organizationId, deadline, (turn) =>
        this.#attempts(deadline, turn, attempt),
      );
    if (!hook) return run(work);
    const leave = hook.enter(this.#scope.signal);
    let replayed = false;
    try {
      // The hook runs in each attempt's transaction, so what it claimed goes with any failed attempt.
      // On Galera two claims of one key through two nodes meet at certification: one is retried.
      const answer = await run(async (tx) => {
        const replay = await hook.begin(tx, (error) => this.isUniqueViolation(error));
        replayed = replay !== undefined;
        if (replay) return replay.answer as T;
        const done = await work(tx);
        hook.complete(tx, done);
        return done;
      });
      if (replayed) this.#scope.onReplay?.();
      return answer;
    } finally {
      leave();
    }
  }

  #attempts<T>(deadline: number, turn: Turn | undefined, work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#retrying(deadline, () =>
      this.#shared.admission.withWriteSlot(turn, deadline, (waitsForLock) => this.#once(work, waitsForLock, deadline)),
    );
  }

  /**
   * Runs `attempt` again after each lost conflict, with a growing jittered pause, until the deadline.
   * An embedded database's file held by another process is no conflict between transactions: the
   * attempt is made again, however many times, until the deadline, then answered as a database
   * that did not answer in time (behaviour §10). No attempt waits inside SQLite for the lock, which
   * would stop the event loop (statements.ts); the pauses hold no connection.
   */
  async #retrying<T>(deadline: number, attempt: () => Promise<T>): Promise<T> {
    // Attempts that lost a conflict, and that found the file busy.
    let lost = 0;
    let busy = 0;
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        if (error instanceof RequestGivenUp) throw unavailable('The request took too long and was given up');
        if (error instanceof DomainError) throw error;
        if (isFileBusy(error)) {
          const pause = pauseBefore(++busy);
          if (Date.now() + pause >= deadline) throw notInTime();
          await sleep(pause);
          continue;
        }
        if (!isLostConflict(this.#shared.em, error)) throw error;
        const pause = pauseBefore(++lost);
        if (lost >= this.#shared.settings.maxAttempts || Date.now() + pause >= deadline) {
          this.#shared.settings.onConflict?.('exhausted');
          throw unavailable('The change kept conflicting with concurrent changes, try again');
        }
        this.#shared.settings.onConflict?.('retried');
        await sleep(pause);
      }
    }
  }

  /**
   * One attempt: a UnitOfWork on a connection of its own, waited for until `deadline` at most,
   * committed unless the request was given up.
   */
  async #once<T>(work: (tx: Tx) => Promise<T>, waitsForLock: boolean, deadline: number): Promise<T> {
    const { statements, dialect, buildSql, settings } = this.#shared;
    const signal = this.#scope.signal;
    // A request given up between attempts (its client left) makes no more of them.
    if (signal?.aborted) throw new RequestGivenUp();
    return connectionWaitDeadline.run(deadline, () =>
      statements.withConnection(async (connection) => {
        const tx = new UnitOfWork(connection, {
          dialect,
          sql: buildSql,
          together: settings.statementsTogether,
          waitsForLock,
          deadline,
        });
        try {
          const answer = await work(tx);
          await tx.prepareCommit();
          // The last moment to give up: after this the commit is sent, and its outcome is the answer.
          if (signal?.aborted) throw new RequestGivenUp();
          this.#scope.onCommitSent?.();
          await tx.commit();
          return answer;
        } catch (error) {
          await tx.rollback().catch(() => undefined); // a connection that failed rolls back as it closes
          throw error;
        }
      }),
    );
  }
}
