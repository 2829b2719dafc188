/**
 * Reads outside a transaction that come after a guard (../authorization/in-organization.ts): a statement whose
 * check must pass before any of them is handed back. The guard is queued, and goes out with the
 * first read, in the same round trip where the database takes several statements in one query
 * (MySQL, MariaDB), else just before it; its check runs before that read's rows are returned. So an
 * organization's read is authorized without a round trip of its own, and no read can skip it: the
 * query builder here only builds, like a transaction's (unit-of-work.ts).
 */
import type { Compilable, QueryResult } from 'kysely';
import { toDbTimestamp, type DbTimestamp, type Dialect, type Sql } from './schema.ts';
import { sendStatements, type Reader, type Statement } from './unit-of-work.ts';

/** A statement a guard's check asks for before it decides (access.ts, guardReads). */
export interface FollowUp {
  query: Compilable<unknown>;
  check(result: QueryResult<unknown>): void;
}

/** A guard's check: it passes, throws, or asks for a follow-up first. */
export type GuardCheck<Row> = (result: QueryResult<Row>) => FollowUp | undefined | void;

export class GuardedReads implements Reader {
  readonly sql: Sql;
  readonly dialect: Dialect;
  readonly #pool: Sql;
  readonly #together: boolean;
  #pending: Array<{ query: Compilable<unknown>; check: GuardCheck<unknown> }> = [];
  /**
   * Settles once every guard sent so far has passed, or rejects with the first refusal: a read
   * made while a guard is under way, or after it refused, hands nothing back before it passed.
   */
  #checked: Promise<unknown> = Promise.resolve();

  /** `pool` runs the reads; `buildOnly` builds them (unit-of-work.ts, buildOnlySql). */
  constructor(pool: Sql, buildOnly: Sql, dialect: Dialect, together: boolean) {
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
   * then (OrganizationAccess.alsoRead).
   */
  guard<Row>(query: Compilable<Row>, check: GuardCheck<Row>): void {
    this.#pending.push({ query, check: check as GuardCheck<unknown> });
  }

  /** Whether a guard is queued that has not gone out yet. */
  get unsettled(): boolean {
    return this.#pending.length > 0;
  }

  /** Sends the guards still queued, on their own; settles once every guard sent has passed. */
  async settle(): Promise<void> {
    if (this.#pending.length > 0) await this.#sendGuarded([]);
    await this.#checked;
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
    const sent = sendStatements(this.#pool, [...guards, ...statements], this.#together).then(async (results) => {
      for (const followUp of followUps) followUp.check(await this.#pool.executeQuery(followUp.query.compile()));
      return results;
    });
    const checked = this.#checked.then(() => sent);
    checked.catch(() => undefined); // each read awaits it; unawaited meanwhile, it is no unhandled rejection
    this.#checked = checked;
    return sent;
  }

  async first<Row>(query: Compilable<Row>): Promise<Row | undefined> {
    return (await this.#run(query)).rows[0];
  }

  async all<Row>(query: Compilable<Row>): Promise<Row[]> {
    return (await this.#run(query)).rows;
  }

  async #run<Row>(query: Compilable<Row>): Promise<QueryResult<Row>> {
    const compiled = query.compile();
    const result =
      this.#pending.length === 0
        ? await this.#pool.executeQuery(compiled)
        : (await this.#sendGuarded([{ query: compiled }])).at(-1);
    await this.#checked;
    return result as QueryResult<Row>;
  }
}
