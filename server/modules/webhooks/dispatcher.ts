/**
 * Makes the attempts of webhook deliveries (behaviour §13), on every instance.
 *
 * - A timed pass hands out the organizations' new events (fan-out.ts), then claims the attempts
 *   that are due. Each part fails on its own, and one organization's hand-out apart from the
 *   others': a failure is reported and tried again at the next pass, and never keeps what is due
 *   from being attempted.
 * - An attempt is claimed in the database before it is made: one conditional UPDATE of the
 *   delivery (`where attempts = <what was read> and next_attempt_at <= now`) that counts the
 *   attempt, writes a claim token and moves `next_attempt_at` to when the claim lapses. Of two
 *   instances, one changes the row; on a multi-primary cluster the other's write fails
 *   certification. So no attempt is made twice, and the claim of an instance that dies falls due
 *   again after WEBHOOK_LEASE_MS, for another to take over.
 * - Only the claim's holder records the result (`where claim_token = <its token>`): a 2xx ends
 *   the delivery; a failure schedules the next attempt by WEBHOOK_RETRY_SCHEDULE, or ends it as
 *   failed after the last. An endpoint whose attempts have all failed for
 *   WEBHOOK_DISABLE_AFTER_HOURS is disabled, with a `webhook.disabled` event.
 * - Delivery never slows the API: its statements share a budget of DELIVERY_CONNECTIONS
 *   connections, and at most WEBHOOK_CONCURRENCY attempts run at once.
 * - One organization's slow or dead receivers hold up only its own deliveries: one endpoint gets at
 *   most PER_ENDPOINT of those attempts, one organization at most its share (half of them), and
 *   the attempts that are due are taken one organization at a time, in turn, so that a place freed
 *   goes to the next organization with an attempt due, not to the oldest backlog. The turns are
 *   this instance's own; the claims are as above, so instances still never make one attempt twice.
 */
import { randomUUID } from 'node:crypto';
import { tooManyWaiting } from '../../platform/database/admission.ts';
import { Gate } from '../../platform/database/gate.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import { toDate } from '../../platform/database/timestamps.ts';
import type { Db } from '../../platform/database/transaction.ts';
import { endsWithin } from '../../platform/ends-within.ts';
import { fanOut } from './fan-out.ts';
import { eventOfDelivery, payloadOf } from './payload.ts';
import { Sender, unanswered, type AttemptResult } from './sender.ts';
import { signatureHeader } from './signing.ts';
import { disableFailingWebhook } from './webhooks.service.ts';
import type { UrlGuardOptions } from './url-guard.ts';

/** Connections the delivery machinery uses at most, of the pool the API shares. */
const DELIVERY_CONNECTIONS = 2;
/** Attempts to one endpoint under way at once, per instance. */
const PER_ENDPOINT = 4;
/**
 * Attempts of one organization under way at once, per instance: half of WEBHOOK_CONCURRENCY,
 * rounded up, so that whatever one organization's receivers do, the other half is there for the
 * other organizations (behaviour §13).
 */
export const organizationShare = (concurrency: number): number => Math.ceil(concurrency / 2);
/** How often the queue's depth is counted, for the metrics. */
const DEPTH_EVERY_MS = 5_000;
/** How long a stop waits for attempts under way before it abandons them to their claims' lapse. */
export const STOP_WAIT_MS = 2_000;

export interface DeliveryObserver {
  /** An attempt ended: succeeded, failed and retried later, or failed for good. */
  attempted(outcome: 'succeeded' | 'retrying' | 'failed'): void;
  /** From the event's commit to the 2xx of its delivery. */
  delivered(lagSeconds: number): void;
  /** Deliveries pending (due, scheduled or under way). */
  queueDepth(pending: number): void;
}

/** What a stop left under way after STOP_WAIT_MS: a pass (its statements), and attempts. */
export interface LeftUnderWay {
  pass: boolean;
  attempts: number;
}

export interface DispatcherSettings {
  guard: UrlGuardOptions;
  timeoutMs: number;
  retrySchedule: readonly number[];
  disableAfterMs: number;
  leaseMs: number;
  concurrency: number;
  /** How often the log is looked at for events to hand out and attempts that are due. */
  pollMs: number;
  observer?: DeliveryObserver;
  /**
   * Told when a part of a pass fails (an organization's hand-out, a `HandOutFailed`, or claiming
   * what is due); the next pass tries again.
   */
  onFailure: (error: unknown) => void;
}

/**
 * The due deliveries in the order they are to be attempted: one organization at a time, in turn,
 * each organization's oldest first. Every organization's first, then every one's second, and so on,
 * up to `perOrganization` each; within a turn the organizations after `after` (the last one given
 * an attempt) come first, by id, then those from the first id on. The endpoints and organizations
 * `excluded` (those with all the attempts they may have under way) are left out.
 *
 * It ranks every due delivery (a window over all of them), where reading the oldest few by the
 * index would not see an organization behind another's backlog.
 */
const dueQuery = (
  sql: Sql,
  now: DbTimestamp,
  after: string,
  perOrganization: number,
  limit: number,
  excluded: { webhooks: readonly string[]; organizations: readonly string[] } = { webhooks: [], organizations: [] },
) =>
  sql
    .selectFrom((db) => {
      let due = db
        .selectFrom('webhook_deliveries')
        .select((eb) => [
          'id',
          'webhook_id',
          'organization_id',
          'attempts',
          eb.fn
            .agg<number>('row_number')
            .over((over) => over.partitionBy('organization_id').orderBy('next_attempt_at').orderBy('id'))
            .as('turn'),
        ])
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now);
      if (excluded.webhooks.length > 0) due = due.where('webhook_id', 'not in', excluded.webhooks);
      if (excluded.organizations.length > 0) due = due.where('organization_id', 'not in', excluded.organizations);
      return due.as('due');
    })
    .select(['id', 'webhook_id', 'organization_id', 'attempts'])
    .where('turn', '<=', perOrganization)
    .orderBy('turn')
    .orderBy((eb) => eb.case().when('organization_id', '>', after).then(eb.lit(0)).else(eb.lit(1)).end())
    .orderBy('organization_id')
    .limit(limit);

const dueDeliveries = prepare((sql, now: DbTimestamp, after: string, perOrganization: number, limit: number) =>
  dueQuery(sql, now, after, perOrganization, limit),
);

const claim = prepare((sql, id: string, seenAttempts: number, token: string, now: DbTimestamp, lapsesAt: DbTimestamp) =>
  sql
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      claim_token: token,
      next_attempt_at: lapsesAt,
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('attempts', '=', seenAttempts)
    .where('next_attempt_at', '<=', now),
);

/**
 * What an attempt sends, read with its claim's token: nothing when the endpoint is gone or the claim
 * lost. A test event has no row in the log (payload.ts makes it from the delivery).
 */
const attemptMaterial = prepare((sql, id: string, token: string) =>
  sql
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .leftJoin('organization_events as e', 'e.event_id', 'd.event_id')
    .select([
      'd.attempts',
      'w.url',
      'w.enabled',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'd.event_id',
      'd.event_type',
      'd.organization_id',
      'd.webhook_id',
      'd.created_at',
      'e.actor_user_id',
      'e.actor_key_id',
      'e.subject_user_id',
      'e.data',
      'e.created_at as event_created_at',
    ])
    .where('d.id', '=', id)
    .where('d.claim_token', '=', token),
);

const pendingCount = prepare((sql) =>
  sql
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('pending'))
    .where('status', '=', 'pending'),
);

interface Claim {
  id: string;
  webhookId: string;
  organizationId: string;
  token: string;
}

/** The keys whose count has reached `most`: those with all the attempts they may have under way. */
const full = (counts: Map<string, number>, most: number): string[] =>
  [...counts].filter(([, count]) => count >= most).map(([key]) => key);

/** One more under way for `key`, or (`by` -1) one fewer, the key dropped at none. */
function tally(counts: Map<string, number>, key: string, by: 1 | -1): void {
  const now = (counts.get(key) ?? 0) + by;
  if (now > 0) counts.set(key, now);
  else counts.delete(key);
}

export class Dispatcher {
  readonly #db: Db;
  readonly #settings: DispatcherSettings;
  readonly #sender: Sender;
  readonly #budget = new Gate(DELIVERY_CONNECTIONS, tooManyWaiting);
  readonly #inFlight = new Map<string, { claim: Claim; done: Promise<void> }>();
  readonly #perEndpoint = new Map<string, number>();
  readonly #perOrganization = new Map<string, number>();
  /** The share of WEBHOOK_CONCURRENCY one organization may have under way. */
  readonly #organizationShare: number;
  /** The organization last given an attempt: the next turn begins after it. */
  #lastOrganization = '';
  readonly #stopping = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> = Promise.resolve();
  #passQueued = false;
  #handOutWanted = false;
  #depthCountedAt = 0;
  #stopped = false;

  constructor(db: Db, settings: DispatcherSettings) {
    this.#db = db;
    this.#settings = settings;
    this.#sender = new Sender(settings.guard, settings.timeoutMs);
    this.#organizationShare = organizationShare(settings.concurrency);
  }

  start(): void {
    this.#schedule(this.#settings.pollMs);
  }

  /** The next timed pass: `delayMs` after the end of the last one, for as long as the dispatcher runs. */
  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.#requestPass({ handOut: true }).then(() => this.#schedule(this.#settings.pollMs));
    }, delayMs).unref();
  }

  /**
   * One pass at a time: a pass asked for while one is queued joins it. A timed pass hands out new
   * events first (`handOut`); a pass asked for by a finished attempt only claims what is due, so
   * a busy dispatcher does not read every organization's log after each attempt. Resolves when
   * the pass that serves the request has ended; it never rejects (what failed is reported and
   * tried again).
   */
  #requestPass({ handOut }: { handOut: boolean }): Promise<void> {
    if (handOut) this.#handOutWanted = true;
    if (this.#passQueued || this.#stopped) return this.#pass;
    this.#passQueued = true;
    this.#pass = this.#pass.then(async () => {
      this.#passQueued = false;
      const handingOut = this.#handOutWanted;
      this.#handOutWanted = false;
      if (handingOut) await this.#reporting(() => this.#inBudget(() => fanOut(this.#db, this.#settings.onFailure)));
      await this.#reporting(async () => {
        await this.#dispatch();
        await this.#countDepth();
      });
    });
    return this.#pass;
  }

  /** Runs a part of a pass; its failure is reported, and the pass goes on. */
  async #reporting(part: () => Promise<unknown>): Promise<void> {
    try {
      await part();
    } catch (error) {
      this.#settings.onFailure(error);
    }
  }

  #inBudget<T>(work: () => Promise<T>): Promise<T> {
    return this.#budget.run(Date.now() + this.#settings.leaseMs, work);
  }

  /**
   * Claims the due deliveries there is room for and starts their attempts, one organization at a
   * time in turn (dueQuery), within each endpoint's and each organization's share.
   */
  async #dispatch(): Promise<void> {
    const room = this.#settings.concurrency - this.#inFlight.size;
    if (room <= 0) return;
    const now = this.#db.timestamp(new Date());
    const share = this.#organizationShare;
    // Endpoints and organizations with all the attempts they may have under way are left out, so
    // that the backlog of a slow or dead receiver does not fill the rows read and hold up the others.
    const excluded = {
      webhooks: full(this.#perEndpoint, PER_ENDPOINT),
      organizations: full(this.#perOrganization, share),
    };
    const sql = this.#db.sql;
    const limit = room * PER_ENDPOINT;
    const query =
      excluded.webhooks.length === 0 && excluded.organizations.length === 0
        ? dueDeliveries(sql, now, this.#lastOrganization, share, limit)
        : dueQuery(sql, now, this.#lastOrganization, share, limit, excluded);
    const due = await this.#inBudget(() => this.#db.all(query));
    let started = 0;
    for (const delivery of due) {
      if (started >= room || this.#stopped) break;
      if ((this.#perEndpoint.get(delivery.webhook_id) ?? 0) >= PER_ENDPOINT) continue;
      if ((this.#perOrganization.get(delivery.organization_id) ?? 0) >= share) continue;
      const token = randomUUID();
      if (!(await this.#claim(delivery.id, Number(delivery.attempts), token))) continue;
      this.#begin({ id: delivery.id, webhookId: delivery.webhook_id, organizationId: delivery.organization_id, token });
      this.#lastOrganization = delivery.organization_id;
      started++;
    }
  }

  async #claim(id: string, seenAttempts: number, token: string): Promise<boolean> {
    const now = new Date();
    const lapsesAt = new Date(now.getTime() + this.#settings.leaseMs);
    try {
      const result = await this.#inBudget(() =>
        this.#db.run(
          claim(this.#db.sql, id, seenAttempts, token, this.#db.timestamp(now), this.#db.timestamp(lapsesAt)),
        ),
      );
      return Number(result.numAffectedRows ?? 0) === 1;
    } catch (error) {
      // Another node claimed it at the same moment: certification failed ours.
      if (this.#db.isConflict(error)) return false;
      throw error;
    }
  }

  #begin(claimed: Claim): void {
    tally(this.#perEndpoint, claimed.webhookId, 1);
    tally(this.#perOrganization, claimed.organizationId, 1);
    const done = this.#attempt(claimed)
      .catch((error: unknown) => this.#settings.onFailure(error))
      .finally(() => {
        this.#inFlight.delete(claimed.id);
        tally(this.#perEndpoint, claimed.webhookId, -1);
        tally(this.#perOrganization, claimed.organizationId, -1);
        // Room again: more may be due now, without waiting for the next poll.
        void this.#requestPass({ handOut: false });
      });
    this.#inFlight.set(claimed.id, { claim: claimed, done });
  }

  async #attempt(claimed: Claim): Promise<void> {
    const material = await this.#inBudget(() =>
      this.#db.first(attemptMaterial(this.#db.sql, claimed.id, claimed.token)),
    );
    // The endpoint was deleted meanwhile (its deliveries with it).
    if (!material) return;
    const event = eventOfDelivery(material);
    if (!event) return;
    // Disabled since the attempt was claimed: no attempt is sent, and none follows.
    if (!material.enabled) {
      await this.#record(claimed, Number(material.attempts), unanswered('The endpoint is disabled'), event.created_at, {
        final: true,
      });
      return;
    }
    const body = JSON.stringify(payloadOf(event));
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = [material.secret];
    const previousUntil = material.previous_secret_expires_at;
    if (material.previous_secret && previousUntil && toDate(previousUntil).getTime() > Date.now()) {
      secrets.push(material.previous_secret);
    }
    const headers = {
      'webhook-id': event.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, event.event_id, timestamp, body),
      'user-agent': 'org-user-service-webhooks',
    };
    const result = await this.#sender.post(material.url, headers, body, this.#stopping.signal);
    // Stopped mid-attempt: the claim lapses and another instance makes the next attempt.
    if (this.#stopping.signal.aborted && !result.succeeded) return;
    await this.#record(claimed, Number(material.attempts), result, event.created_at);
  }

  /** Records an attempt's result, if the claim is still this instance's. */
  async #record(
    claimed: Claim,
    attempts: number,
    result: AttemptResult,
    committedAt: string,
    { final = false } = {},
  ): Promise<void> {
    const now = new Date();
    const retryIn = result.succeeded || final ? undefined : this.#settings.retrySchedule[attempts - 1];
    const status = result.succeeded ? 'succeeded' : retryIn !== undefined ? 'pending' : 'failed';
    const db = this.#db;
    const recorded = await this.#inBudget(() =>
      db.run(
        db.sql
          .updateTable('webhook_deliveries')
          .set({
            status,
            last_status_code: result.statusCode,
            last_error: result.error?.slice(0, 1200) ?? null,
            last_response_body: result.responseBody,
            next_attempt_at: retryIn === undefined ? null : db.timestamp(new Date(now.getTime() + retryIn)),
            claim_token: null,
            updated_at: db.timestamp(now),
          })
          .where('id', '=', claimed.id)
          .where('claim_token', '=', claimed.token),
      ),
    );
    if (Number(recorded.numAffectedRows ?? 0) === 0) return;
    const observer = this.#settings.observer;
    observer?.attempted(status === 'succeeded' ? 'succeeded' : status === 'pending' ? 'retrying' : 'failed');
    if (result.succeeded) {
      observer?.delivered((now.getTime() - Date.parse(committedAt)) / 1000);
      await this.#inBudget(() =>
        db.run(
          db.sql
            .updateTable('webhooks')
            .set({ failing_since: null })
            .where('id', '=', claimed.webhookId)
            .where('failing_since', 'is not', null),
        ),
      );
    } else if (!final) {
      await this.#noteFailure(claimed.webhookId, now);
    }
  }

  /** Marks when the endpoint started failing, and disables it once it has failed for long enough. */
  async #noteFailure(webhookId: string, now: Date): Promise<void> {
    const db = this.#db;
    await this.#inBudget(() =>
      db.run(
        db.sql
          .updateTable('webhooks')
          .set({ failing_since: db.timestamp(now) })
          .where('id', '=', webhookId)
          .where('failing_since', 'is', null),
      ),
    );
    const row = await this.#inBudget(() =>
      db.first(
        db.sql
          .selectFrom('webhooks')
          .select(['organization_id', 'failing_since', 'enabled'])
          .where('id', '=', webhookId),
      ),
    );
    if (!row?.enabled || !row.failing_since) return;
    if (toDate(row.failing_since).getTime() > now.getTime() - this.#settings.disableAfterMs) return;
    await this.#inBudget(() => disableFailingWebhook(this.#db, webhookId, this.#settings.disableAfterMs));
  }

  async #countDepth(): Promise<void> {
    const observer = this.#settings.observer;
    if (!observer || Date.now() - this.#depthCountedAt < DEPTH_EVERY_MS) return;
    this.#depthCountedAt = Date.now();
    const row = await this.#inBudget(() => this.#db.first(pendingCount(this.#db.sql)));
    observer.queueDepth(Number(row?.pending ?? 0));
  }

  /**
   * Stops: no new pass or attempt; the pass and the attempts under way get STOP_WAIT_MS to end,
   * then are abandoned (their claims lapse and another instance makes the next attempt). It never
   * waits longer, even on a database that does not answer. Resolves with what it abandoned.
   */
  async stop(): Promise<LeftUnderWay> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    let passEnded = false;
    const pass = this.#pass.then(() => {
      passEnded = true;
    });
    const running = Promise.all([pass, ...[...this.#inFlight.values()].map((flight) => flight.done)]);
    await endsWithin(running, STOP_WAIT_MS);
    // Attempts leave #inFlight as they end.
    const left = { pass: !passEnded, attempts: this.#inFlight.size };
    this.#stopping.abort();
    this.#sender.close();
    return left;
  }
}
