/**
 * Reads outside a transaction that come after a guard (../authorization/in-organization.ts): a statement whose
 * check must pass before any of them is handed back. The guard is queued, and goes out with the
 * first read, in the same round trip where the database takes several statements in one query
 * (MySQL, MariaDB), else just before it; its check runs before that read's rows are returned. So an
 * organization's read is authorized without a round trip of its own, and no read can skip it: the
 * query builder here only builds, like a transaction's (unit-of-work.ts).
 *
 * A guard whose answer is one value (a member's role, a slug's organization) goes further where it
 * can, as a column of the read itself: one statement, a prepared one when the read is
 * (folded-guards.ts). A read that finds no row brings no answer of the guard back; the guard then
 * goes on its own before the empty read is handed back.
 */
import { type CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import { foldGuards, guardColumn, takesGuards, withoutGuardColumns } from './folded-guards.ts';
import { toDbTimestamp, type DbTimestamp, type Dialect, type Sql } from './schema.ts';
import type { StatementRunner } from './statements.ts';
import { sendStatements, type Reader, type Statement } from './unit-of-work.ts';

/** A statement a guard's check asks for before it decides (access.ts, guardReads). */
export interface FollowUp {
  query: Compilable<unknown>;
  check(result: QueryResult<unknown>): void;
}

/** A guard's check: it passes, throws, or asks for a follow-up first. */
export type GuardCheck<Row> = (result: QueryResult<Row>) => FollowUp | undefined | void;

/** A guard that can go as one column of the read it goes with (module comment). */
export interface ScalarGuard<Row> {
  /**
   * The guard as a statement of one column and at most one row, when it can go so as it would go
   * now (it is asked just before the guard goes out); else undefined.
   */
  asColumn(): CompiledQuery | undefined;
  /** The guard's own result from that column's value (null: the statement found no row). */
  resultOf(value: unknown): QueryResult<Row>;
}

/** What #checked is while no guard is under way or refused: every read may hand its rows back. */
const PASSED: Promise<unknown> = Promise.resolve();

/** A read's rows, as `first` and `all` hand them back. */
const firstRow = <Row>(result: QueryResult<Row>) => result.rows[0];
const allRows = <Row>(result: QueryResult<Row>) => result.rows;

interface PendingGuard {
  query: Compilable<unknown>;
  check: GuardCheck<unknown>;
  scalar: ScalarGuard<unknown> | undefined;
}

export class GuardedReads implements Reader {
  readonly sql: Sql;
  readonly dialect: Dialect;
  readonly #pool: StatementRunner;
  readonly #together: boolean;
  #pending: PendingGuard[] = [];
  /**
   * Settles once every guard sent so far has passed, or rejects with the first refusal: a read
   * made while a guard is under way, or after it refused, hands nothing back before it passed.
   * PASSED once a read has seen them pass, so that later reads need not wait on it.
   */
  #checked = PASSED;

  /** `pool` runs the reads; `buildOnly` builds them (unit-of-work.ts, buildOnlySql). */
  constructor(pool: StatementRunner, buildOnly: Sql, dialect: Dialect, together: boolean) {
    this.#pool = pool;
    this.sql = buildOnly;
    this.dialect = dialect;
    this.#together = together;
  }

  timestamp(date: Date): DbTimestamp {
    return toDbTimestamp(this.dialect, date);
  }

  /**
   * Queues a guard: it goes out with the next read, and `check` runs before that read's rows are
   * returned. The query is compiled when it goes out, so that what it reads may still grow until
   * then (OrganizationAccess.alsoRead). `scalar`: its form as a column of the read (module comment).
   */
  guard<Row>(query: Compilable<Row>, check: GuardCheck<Row>, scalar?: ScalarGuard<Row>): void {
    this.#pending.push({ query, check: check as GuardCheck<unknown>, scalar });
  }

  /** Whether a guard is queued that has not gone out yet. */
  get unsettled(): boolean {
    return this.#pending.length > 0;
  }

  /** Sends the guards still queued, on their own; settles once every guard sent has passed. */
  settle(): Promise<unknown> {
    // What was sent is awaited as part of #checked; caught here too, as nothing else awaits it.
    if (this.#pending.length > 0) this.#sendGuarded([]).catch(() => undefined);
    return this.#checked;
  }

  /**
   * Sends the guards queued, then `statements`, then the follow-ups their checks asked for, one by
   * one; the reads wait for every check (#checked).
   */
  #sendGuarded(statements: Statement[]): Promise<Array<QueryResult<unknown>>> {
    const followUps: FollowUp[] = [];
    const guards = this.#pending.splice(0).map(({ query, check }) => ({
      query: query.compile(),
      check: (result: QueryResult<unknown>) => {
        const followUp = check(result);
        if (followUp) followUps.push(followUp);
      },
      guard: true,
    }));
    const sent = sendStatements(this.#pool, [...guards, ...statements], this.#together).then((results) =>
      followUps.length === 0 ? results : this.#followedUp(followUps, results),
    );
    return this.#awaitedByReads(sent);
  }

  /**
   * Has every read wait for `sent`, whose checks are the guards' just sent (#checked); returns it.
   * Nothing under way before (PASSED), `sent` is what they wait for, as is: whoever sent it awaits it
   * (#run, settle), so its refusal is handled.
   */
  #awaitedByReads<T>(sent: Promise<T>): Promise<T> {
    if (this.#checked === PASSED) {
      this.#checked = sent;
      return sent;
    }
    const checked = this.#checked.then(() => sent);
    checked.catch(() => undefined); // each read awaits it; unawaited meanwhile, it is no unhandled rejection
    this.#checked = checked;
    return sent;
  }

  first<Row>(query: Compilable<Row>): Promise<Row | undefined> {
    return this.#run(query, firstRow);
  }

  all<Row>(query: Compilable<Row>): Promise<Row[]> {
    return this.#run(query, allRows);
  }

  /** Runs `query` with the guards queued, and hands back what `rows` takes of its result once they passed. */
  async #run<Row, Rows>(query: Compilable<Row>, rows: (result: QueryResult<Row>) => Rows): Promise<Rows> {
    const compiled = query.compile();
    const sent =
      this.#pending.length === 0
        ? this.#pool.executeQuery(compiled)
        : (this.#sendFolded(compiled) ?? this.#sendGuarded([{ query: compiled }]).then((results) => results.at(-1)!));
    const result = (await sent) as QueryResult<Row>;
    // `sent` itself, when it is all the reads wait for: its checks have passed, as it resolved.
    const checked = this.#checked;
    if (checked !== PASSED && checked !== sent) await checked;
    if (this.#checked === checked) this.#checked = PASSED;
    return rows(result);
  }

  /**
   * Sends the guards queued as columns of `read`, when all of them and the read can go as one
   * prepared statement (module comment); undefined when they cannot. Their checks run in turn, as
   * in #sendGuarded, then the follow-ups they asked for.
   */
  #sendFolded(read: CompiledQuery): Promise<QueryResult<unknown>> | undefined {
    const guards = this.#pending;
    if (!this.#together || !takesGuards(read.sql)) return undefined;
    const columns: CompiledQuery[] = [];
    for (const guard of guards) {
      const column = guard.scalar?.asColumn();
      if (!column) return undefined;
      columns.push(column);
    }
    this.#pending = [];
    return this.#awaitedByReads(
      this.#pool.executeQuery(foldGuards(columns, read)).then((result) => this.#checkFolded(guards, result)),
    );
  }

  /**
   * Runs the checks of guards folded into a read (#sendFolded), then hands the read's result on; at
   * once when the read brought every guard's answer back and no check asks for more, the common case.
   */
  #checkFolded(
    guards: PendingGuard[],
    result: QueryResult<unknown>,
  ): QueryResult<unknown> | Promise<QueryResult<unknown>> {
    const rows = result.rows as Array<Record<string, unknown>>;
    // A read that found nothing brought no guard's answer back: the guards go on their own.
    if (rows.length === 0) return this.#checkFoldedApart(guards, result);
    const followUps: FollowUp[] = [];
    for (let index = 0; index < guards.length; index++) {
      const guard = guards[index]!;
      const followUp = guard.check(guard.scalar!.resultOf(rows[0]![guardColumn(index)]));
      if (followUp) followUps.push(followUp);
    }
    withoutGuardColumns(rows, guards.length);
    return followUps.length === 0 ? result : this.#followedUp(followUps, result);
  }

  /** The checks of guards folded into a read that found no row, each guard sent on its own. */
  async #checkFoldedApart(guards: PendingGuard[], result: QueryResult<unknown>): Promise<QueryResult<unknown>> {
    const followUps: FollowUp[] = [];
    for (const guard of guards) {
      const followUp = guard.check(await this.#pool.executeQuery(guard.query.compile()));
      if (followUp) followUps.push(followUp);
    }
    return this.#followedUp(followUps, result);
  }

  /** Sends the follow-ups the checks asked for, one by one, and checks each; then hands `result` on. */
  async #followedUp<T>(followUps: FollowUp[], result: T): Promise<T> {
    for (const followUp of followUps) followUp.check(await this.#pool.executeQuery(followUp.query.compile()));
    return result;
  }
}
