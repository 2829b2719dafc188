/**
 * The webhook run of `npm run bench` (`w` in BENCH_SCENARIOS; bench/run.ts): what webhook delivery
 * (behaviour §13) costs and how fast it is, on the service alone (the baseline has no webhooks).
 * 20 organizations of a user of their own, each with one endpoint (`["*"]`) to a receiver the bench
 * runs on 127.0.0.1, which answers 204 at once and notes when each webhook-id first arrived. The
 * service runs with WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE (the receiver is on loopback, and
 * nothing else ever is) and METRICS_PORT, whose query counts and queue gauge are read.
 *
 * 1. Delivery lag: renames of the 20 organizations at LAG_RUN.perSecond for LAG_RUN.seconds; per
 *    event, its first arrival at the receiver less its `timestamp` (the event's created_at). Target:
 *    p99 ≤ 1 s, every committed event arrived, the rate kept, no write failed.
 * 2. What delivery costs the API: the same renames as fast as autocannon sends them, without
 *    endpoints and with, in turns (without, with, with, without; each as the other comparisons of
 *    the bench: BENCH_WARMUP seconds unmeasured, then half of BENCH_DURATION), the queue drained
 *    before each measured run. Without = no endpoints and no read positions (deleted through the
 *    API, the positions in the database): the same data otherwise. Target: req/s with ≥ 0.9 of
 *    without; every event of the runs with endpoints delivered (after them, if not during them: how
 *    many a second arrived during them is reported).
 * 3. A receiver outage (reported, no target): on a service started afresh with the short
 *    OUTAGE.retrySchedule (the default's second wait is 5 minutes), renames at LAG_RUN.perSecond
 *    from OUTAGE.steadySeconds before the outage until the backlog has arrived; the receiver refuses
 *    connections (closed) for OUTAGE.downSeconds, then listens on its port again. Every second:
 *    deliveries pending (counted in the database) and the `webhook_queue_depth` gauge (counted by
 *    the service every 5 s). Then: how long after the return every event committed before it had
 *    arrived, the renames going on, and the deliveries a second meanwhile; then, the renames
 *    stopped, how long the deliveries still pending took.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import type mysql from 'mysql2/promise';
import { freePorts } from '../tests/support/ports.ts';
import { spawnService, type ServiceProcess } from '../tests/support/process.ts';
import { restCall } from '../tests/support/rest-call.ts';
import { percentile } from './fixed-rate.ts';
import { organizationRenames } from './loads.ts';
import type { Check } from './overheads.ts';
import { cpuMicroseconds } from './process-usage.ts';
import { createWatcher } from './subscriptions.ts';

const ORGANIZATIONS = 20;
const LAG_RUN = { perSecond: 200, seconds: 30, maxP99Ms: 1000 };
const WRITES = { connections: 2 * ORGANIZATIONS, leastRatio: 0.9 };
const OUTAGE = { steadySeconds: 5, downSeconds: 60, retrySchedule: '1s,2s,5s,10s,20s,30s,60s' };
/** Below this share of the rate asked for, the lag is not that of the rate. */
const LEAST_RATE_KEPT = 0.95;
/** The longest the bench waits for the queue to empty or for events to arrive. */
const MOST_WAIT_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rounded = (value: number, places = 0) => Math.round(value * 10 ** places) / 10 ** places;

/** Polls `done` every `everyMs` until it holds: the milliseconds waited, or undefined after `mostMs`. */
async function waitUntil(done: () => Promise<boolean> | boolean, mostMs = MOST_WAIT_MS, everyMs = 100) {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > mostMs) return undefined;
    await sleep(everyMs);
  }
  return Math.round(performance.now() - started);
}

// ---- the receiver -------------------------------------------------------------------------------

interface Arrival {
  /** Date.now() when the first request with this webhook-id arrived. */
  arrivedAt: number;
  /** The body's `timestamp`: the event's created_at. */
  committedAt: number;
}

/**
 * An endpoint's receiver on 127.0.0.1: answers every request 204 once its body is read, and keeps
 * the first arrival of each webhook-id. `refuse` closes it (connections refused); `listen` again
 * opens it on the same port.
 */
class Receiver {
  readonly #server: Server;
  #port = 0;
  /** By webhook-id, the first arrival. */
  readonly first = new Map<string, Arrival>();
  /** When every request arrived (Date.now()), repeated ids too. */
  readonly arrivals: number[] = [];

  constructor() {
    this.#server = createServer((request, response) => {
      const arrivedAt = Date.now();
      this.arrivals.push(arrivedAt);
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const id = request.headers['webhook-id'];
        if (typeof id === 'string' && !this.first.has(id)) {
          const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
          this.first.set(id, { arrivedAt, committedAt: Date.parse(timestamp) });
        }
        response.writeHead(204).end();
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  url(organizationIndex: number): string {
    return `http://127.0.0.1:${this.#port}/organizations/${organizationIndex}`;
  }

  /** Stops listening and drops the service's kept connections: its attempts are refused. */
  refuse(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

// ---- the organizations, their endpoints and their events ----------------------------------------

/** The 20 organizations, their owner's token, and the bench's own connection to their database. */
interface Hooked {
  token: string;
  organizationIds: string[];
  database: mysql.Connection;
  receiver: Receiver;
  /** The endpoints' ids, while they exist. */
  webhookIds: string[];
}

async function createEndpoints(baseUrl: string, hooked: Hooked): Promise<void> {
  hooked.webhookIds = await Promise.all(
    hooked.organizationIds.map(async (organizationId, index) => {
      const path = `/organizations/${organizationId}/webhooks`;
      const body = { url: hooked.receiver.url(index), event_types: ['*'], description: 'bench' };
      const created = await restCall(baseUrl, 'POST', path, hooked.token, body);
      if (created.status !== 201) throw new Error(`POST ${path}: ${created.status} ${JSON.stringify(created.body)}`);
      return created.body.webhook_id as string;
    }),
  );
}

/** Deletes the endpoints through the API, then the read positions they leave: as if there had been none. */
async function deleteEndpoints(baseUrl: string, hooked: Hooked): Promise<void> {
  await Promise.all(
    hooked.webhookIds.map(async (webhookId, index) => {
      const path = `/organizations/${hooked.organizationIds[index]}/webhooks/${webhookId}`;
      const deleted = await restCall(baseUrl, 'DELETE', path, hooked.token);
      if (deleted.status !== 200) throw new Error(`DELETE ${path}: ${deleted.status}`);
    }),
  );
  hooked.webhookIds = [];
  await hooked.database.query('delete from webhook_cursors where organization_id in (?)', [hooked.organizationIds]);
}

async function deliveryCount(database: mysql.Connection, status: 'pending' | 'failed'): Promise<number> {
  const [rows] = await database.query('select count(*) as n from webhook_deliveries where status = ?', [status]);
  return Number((rows as Array<{ n: number | string }>)[0]!.n);
}

/** Per organization, its newest event id now: events after it are those committed since. */
type EventMark = Map<string, string>;

async function markEvents(hooked: Hooked): Promise<EventMark> {
  const [rows] = await hooked.database.query(
    'select organization_id, max(event_id) as newest from organization_events where organization_id in (?) group by organization_id',
    [hooked.organizationIds],
  );
  return new Map(
    (rows as Array<{ organization_id: string; newest: string }>).map((row) => [row.organization_id, row.newest]),
  );
}

/** The ids of the events of the organizations committed after `from` and, given `to`, not after it. */
async function eventsBetween(hooked: Hooked, from: EventMark, to?: EventMark): Promise<string[]> {
  const ids: string[] = [];
  for (const organizationId of hooked.organizationIds) {
    const after = [organizationId, from.get(organizationId) ?? ''];
    const upTo = to?.get(organizationId);
    const [rows] = await hooked.database.query(
      `select event_id from organization_events where organization_id = ? and event_id > ?${upTo === undefined ? '' : ' and event_id <= ?'}`,
      upTo === undefined ? after : [...after, upTo],
    );
    ids.push(...(rows as Array<{ event_id: string }>).map((row) => row.event_id));
  }
  return ids;
}

/**
 * Nothing left to deliver: no organization has events past its read position (all handed out), and
 * then no delivery is pending. In that order: a delivery made between the two counts is counted.
 */
async function queueEmpty(database: mysql.Connection): Promise<boolean> {
  const [behind] = await database.query(
    `select count(*) as n from webhook_cursors c where exists (select 1 from organization_events e
       where e.organization_id = c.organization_id and e.event_id > c.last_event_id)`,
  );
  if (Number((behind as Array<{ n: number | string }>)[0]!.n) > 0) return false;
  return (await deliveryCount(database, 'pending')) === 0;
}

const missingOf = (receiver: Receiver, ids: string[]) => ids.filter((id) => !receiver.first.has(id)).length;

/** Waits until every event committed since `from` has arrived: the milliseconds waited, or undefined. */
async function allArrived(hooked: Hooked, from: EventMark): Promise<number | undefined> {
  const ids = await eventsBetween(hooked, from);
  return waitUntil(() => missingOf(hooked.receiver, ids) === 0, MOST_WAIT_MS, 200);
}

/** Arrival less commit, in ms, of each of `ids` that arrived, sorted. */
function lagsOf(receiver: Receiver, ids: string[]): number[] {
  return ids
    .flatMap((id) => {
      const arrival = receiver.first.get(id);
      return arrival ? [arrival.arrivedAt - arrival.committedAt] : [];
    })
    .sort((a, b) => a - b);
}

export interface LagFigures {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const lagFigures = (lags: number[]): LagFigures => ({
  p50Ms: lags.length ? percentile(lags, 0.5) : NaN,
  p99Ms: lags.length ? percentile(lags, 0.99) : NaN,
  maxMs: lags.length ? percentile(lags, 1) : NaN,
});

// ---- the service's metrics ----------------------------------------------------------------------

/** The samples of metric `name` in a scrape, summed by the value of `label` (all under `''` without one). */
function samplesBy(scrape: string, name: string, label?: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const [, labels = '', value] of scrape.matchAll(new RegExp(`^${name}(?:\\{(.*)\\})? (\\S+)$`, 'gm'))) {
    const key = (label && new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1]) ?? '';
    sums.set(key, (sums.get(key) ?? 0) + Number(value));
  }
  return sums;
}

const scrape = async (metricsUrl: string) => (await fetch(metricsUrl)).text();

/**
 * Queries the service sent, by first SQL word (db_query_duration_seconds_count): round trips, a
 * transaction's first statements going with its BEGIN in one.
 */
async function queries(metricsUrl: string): Promise<Map<string, number>> {
  return samplesBy(await scrape(metricsUrl), 'db_query_duration_seconds_count', 'operation');
}

/** Queries per request by first word, between two counts: `select 2.1, update 1.0 …`. */
function queriesPerRequest(before: Map<string, number>, after: Map<string, number>, requests: number) {
  const per: Record<string, number> = {};
  let total = 0;
  for (const [operation, count] of after) {
    const sent = count - (before.get(operation) ?? 0);
    if (sent <= 0) continue;
    per[operation] = rounded(sent / requests, 2);
    total += sent;
  }
  return { total: rounded(total / requests, 2), byOperation: per };
}

// ---- the loads ----------------------------------------------------------------------------------

export interface RenameFigures {
  /** Answers a second. */
  answeredPerSecond: number;
  /** Non-2xx answers and failed requests. */
  failed: number;
  p50Ms: number;
  p99Ms: number;
}

/** Names unique over the whole run: a rename to the name it has would record no event. */
let renamesSent = 0;

/**
 * Renames of the organizations in turn at `perSecond`, from a timer every 5 ms sending what is due by
 * then (so no burst a second, as one autocannon would send), until `stop`.
 */
function renamesAtRate(baseUrl: string, hooked: Hooked, perSecond: number) {
  const started = performance.now();
  let sent = 0;
  let failed = 0;
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    const organizationId = hooked.organizationIds[sent++ % hooked.organizationIds.length]!;
    const sentAt = performance.now();
    const request = fetch(`${baseUrl}/organizations/${organizationId}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${hooked.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ organization_name: `hooked ${++renamesSent}` }),
    })
      .then(
        async (response) => {
          await response.arrayBuffer();
          if (response.ok) latencies.push(performance.now() - sentAt);
          else failed++;
        },
        () => void failed++,
      )
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    while (sent < due) send();
  }, 5);
  return {
    async stop(): Promise<RenameFigures> {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      await Promise.all(inFlight);
      latencies.sort((a, b) => a - b);
      return {
        answeredPerSecond: rounded(sent / seconds, 1),
        failed,
        p50Ms: latencies.length ? percentile(latencies, 0.5) : NaN,
        p99Ms: latencies.length ? percentile(latencies, 0.99) : NaN,
      };
    },
  };
}

async function renamesFor(baseUrl: string, hooked: Hooked, perSecond: number, seconds: number) {
  const load = renamesAtRate(baseUrl, hooked, perSecond);
  await sleep(seconds * 1000);
  return load.stop();
}

// ---- 1. delivery lag ----------------------------------------------------------------------------

export interface LagRun {
  renames: RenameFigures;
  events: number;
  /** Committed events that never arrived. */
  missing: number;
  /** Requests beyond the first of each webhook-id. */
  repeated: number;
  lag: LagFigures;
}

async function lagRun(server: ServiceProcess, hooked: Hooked, warmupSeconds: number): Promise<LagRun> {
  const { receiver } = hooked;
  await renamesFor(server.baseUrl, hooked, LAG_RUN.perSecond, warmupSeconds);
  await waitUntil(() => queueEmpty(hooked.database));
  const from = await markEvents(hooked);
  const requestsBefore = receiver.arrivals.length;
  const renames = await renamesFor(server.baseUrl, hooked, LAG_RUN.perSecond, LAG_RUN.seconds);
  await allArrived(hooked, from);
  const ids = await eventsBetween(hooked, from);
  const arrived = ids.length - missingOf(receiver, ids);
  return {
    renames,
    events: ids.length,
    missing: ids.length - arrived,
    repeated: receiver.arrivals.length - requestsBefore - arrived,
    lag: lagFigures(lagsOf(receiver, ids)),
  };
}

function lagCheck(run: LagRun): Check {
  const { perSecond, seconds, maxP99Ms } = LAG_RUN;
  return {
    target: `webhooks: ${perSecond} renames/s over ${ORGANIZATIONS} organizations for ${seconds} s, one healthy endpoint each: delivery lag p99 ≤ ${maxP99Ms} ms, every event arrived, the rate kept, no write failed`,
    value: `p99 ${run.lag.p99Ms} ms (p50 ${run.lag.p50Ms}, max ${run.lag.maxMs}), ${run.events - run.missing} of ${run.events} arrived, ${run.renames.answeredPerSecond} renames/s, ${run.renames.failed} failed`,
    pass:
      run.lag.p99Ms <= maxP99Ms &&
      run.missing === 0 &&
      run.renames.answeredPerSecond >= LEAST_RATE_KEPT * perSecond &&
      run.renames.failed === 0,
  };
}

// ---- 2. what delivery costs the API ------------------------------------------------------------

export interface WriteFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx, socket errors and timeouts. */
  failed: number;
  /** The service's CPU per answered request, delivery included. */
  cpuMicrosPerRequest: number;
  /** Queries the service sent per answered request, delivery's included. */
  queriesPerRequest: { total: number; byOperation: Record<string, number> };
  /** With endpoints: requests the receiver got a second during the measured run. */
  deliveredPerSecond?: number;
  /** With endpoints: deliveries still pending when the measured run ended, and how long they took to go. */
  pendingAtEnd?: number;
  drainMs?: number;
}

export interface WriteComparison {
  without: WriteFigures;
  with: WriteFigures;
  ratio: number;
  /** Events committed in the runs with endpoints, and how many of them never arrived or failed. */
  eventsWith: number;
  missingWith: number;
  failedDeliveries: number;
}

interface WriteSettings {
  durationSeconds: number;
  warmupSeconds: number;
  metricsUrl: string;
}

/** One run of autocannon's renames on `server`: warm-up, the queue drained, then the measured run. */
async function writeRun(server: ServiceProcess, hooked: Hooked, settings: WriteSettings, seconds: number) {
  const load = organizationRenames(hooked.token, hooked.organizationIds);
  const run = (duration: number) =>
    autocannon({ url: server.baseUrl, connections: WRITES.connections, duration, ...load });
  const drained = () => waitUntil(() => queueEmpty(hooked.database));
  if (settings.warmupSeconds > 0) await run(settings.warmupSeconds);
  await drained();
  const queriesBefore = await queries(settings.metricsUrl);
  const arrivalsBefore = hooked.receiver.arrivals.length;
  const cpuBefore = cpuMicroseconds(server.pid);
  const result = await run(seconds);
  const cpuUsed = cpuMicroseconds(server.pid) - cpuBefore;
  const deliveredPerSecond = Math.round((hooked.receiver.arrivals.length - arrivalsBefore) / seconds);
  const queriesAfter = await queries(settings.metricsUrl);
  const pendingAtEnd = await deliveryCount(hooked.database, 'pending');
  const drainMs = await drained();
  const answered = Math.max(result.requests.total, 1);
  const figures: WriteFigures = {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    cpuMicrosPerRequest: Math.round(cpuUsed / answered),
    queriesPerRequest: queriesPerRequest(queriesBefore, queriesAfter, answered),
  };
  return hooked.webhookIds.length ? { ...figures, deliveredPerSecond, pendingAtEnd, drainMs } : figures;
}

/** The mean of two runs' figures (the sum of their failures and backlogs, the longer drain). */
function meanOf(first: WriteFigures, second: WriteFigures): WriteFigures {
  const mean = (pick: (figures: WriteFigures) => number) => Math.round((pick(first) + pick(second)) / 2);
  const operations = new Set([
    ...Object.keys(first.queriesPerRequest.byOperation),
    ...Object.keys(second.queriesPerRequest.byOperation),
  ]);
  const byOperation = Object.fromEntries(
    [...operations].map((operation) => [
      operation,
      rounded(
        ((first.queriesPerRequest.byOperation[operation] ?? 0) +
          (second.queriesPerRequest.byOperation[operation] ?? 0)) /
          2,
        2,
      ),
    ]),
  );
  return {
    requestsPerSecond: mean((figures) => figures.requestsPerSecond),
    p50Ms: mean((figures) => figures.p50Ms),
    p99Ms: mean((figures) => figures.p99Ms),
    failed: first.failed + second.failed,
    cpuMicrosPerRequest: mean((figures) => figures.cpuMicrosPerRequest),
    queriesPerRequest: {
      total: rounded((first.queriesPerRequest.total + second.queriesPerRequest.total) / 2, 2),
      byOperation,
    },
    ...(first.pendingAtEnd !== undefined && {
      deliveredPerSecond: mean((figures) => figures.deliveredPerSecond ?? NaN),
      pendingAtEnd: first.pendingAtEnd + (second.pendingAtEnd ?? 0),
      drainMs: Math.max(first.drainMs ?? NaN, second.drainMs ?? NaN),
    }),
  };
}

/**
 * Without endpoints, with, with, without (see inTurns in bench/run.ts): the endpoints are made
 * before the first run with them and deleted after the second.
 */
async function writeComparison(server: ServiceProcess, hooked: Hooked, settings: WriteSettings) {
  const half = settings.durationSeconds / 2;
  const firstWithout = await writeRun(server, hooked, settings, half);
  await createEndpoints(server.baseUrl, hooked);
  const from = await markEvents(hooked);
  const firstWith = await writeRun(server, hooked, settings, half);
  const secondWith = await writeRun(server, hooked, settings, half);
  await allArrived(hooked, from);
  const ids = await eventsBetween(hooked, from);
  const failedDeliveries = await deliveryCount(hooked.database, 'failed');
  await deleteEndpoints(server.baseUrl, hooked);
  const secondWithout = await writeRun(server, hooked, settings, half);
  const without = meanOf(firstWithout, secondWithout);
  const withThem = meanOf(firstWith, secondWith);
  return {
    without,
    with: withThem,
    ratio: rounded(withThem.requestsPerSecond / without.requestsPerSecond, 2),
    eventsWith: ids.length,
    missingWith: missingOf(hooked.receiver, ids),
    failedDeliveries,
  } satisfies WriteComparison;
}

function writeCheck(comparison: WriteComparison): Check {
  const { without, with: withThem } = comparison;
  return {
    target: `webhooks: renames as fast as answered (${WRITES.connections} connections) with one healthy endpoint per organization: req/s ≥ ${WRITES.leastRatio} of without endpoints, in turns; every event delivered, no non-2xx or socket errors`,
    value: `${comparison.ratio} (${withThem.requestsPerSecond}/${without.requestsPerSecond}; CPU µs/req ${withThem.cpuMicrosPerRequest}/${without.cpuMicrosPerRequest}; delivered/s during the runs ${withThem.deliveredPerSecond}, ${withThem.pendingAtEnd} left pending), ${comparison.eventsWith - comparison.missingWith} of ${comparison.eventsWith} delivered after, ${comparison.failedDeliveries} failed deliveries, ${without.failed + withThem.failed} failed requests`,
    pass:
      comparison.ratio >= WRITES.leastRatio &&
      comparison.missingWith === 0 &&
      comparison.failedDeliveries === 0 &&
      without.failed + withThem.failed === 0,
  };
}

// ---- 3. a receiver outage -----------------------------------------------------------------------

export interface OutageSample {
  /** Seconds since the load began. */
  second: number;
  /** Deliveries pending, counted in the database. */
  pending: number;
  /** The service's webhook_queue_depth gauge. */
  gauge: number;
  /** Requests the receiver got in the second before. */
  arrivals: number;
}

/** Deliveries over a stretch of time: its length, and requests at the receiver a second (mean, most in one second). */
export interface Draining {
  seconds: number;
  meanPerSecond: number;
  peakPerSecond: number;
}

/** The receiver's requests from `from` to `to` (Date.now() values). */
function draining(receiver: Receiver, from: number, to: number): Draining {
  const perSecond = new Map<number, number>();
  for (const at of receiver.arrivals) {
    if (at < from || at > to) continue;
    const second = Math.floor((at - from) / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  const seconds = (to - from) / 1000;
  const total = [...perSecond.values()].reduce((sum, count) => sum + count, 0);
  return {
    seconds: rounded(seconds, 1),
    meanPerSecond: seconds > 0 ? Math.round(total / seconds) : 0,
    peakPerSecond: Math.max(0, ...perSecond.values()),
  };
}

export interface OutageFigures {
  retrySchedule: string;
  downSeconds: number;
  renamesBefore: RenameFigures;
  renamesDuring: RenameFigures;
  /** From the return until the backlog had arrived, while the renames went on. */
  renamesAfter: RenameFigures;
  peakPending: number;
  peakGauge: number;
  /** Events committed before the receiver came back that had not arrived by then. */
  backlog: number;
  /** From the return until the last of the backlog arrived, the renames going on. */
  backlogDrain: Draining;
  /** Deliveries pending then (events committed since the return, waiting behind the backlog). */
  pendingAfterBacklog: number;
  /** From then, the renames stopped, until no delivery was pending. */
  restDrain: Draining;
  /** From the return until no delivery was pending. */
  emptySeconds: number;
  /** Arrival less commit of the backlog's events. */
  backlogLag: LagFigures;
  /** Arrival less commit of the events committed after the return. */
  afterLag: LagFigures;
  /** Of every event of the run, those that never arrived, and deliveries that failed for good. */
  missing: number;
  failedDeliveries: number;
  samples: OutageSample[];
}

/** Every second: deliveries pending (in the database), the queue gauge and the receiver's requests. */
function sampleEverySecond(hooked: Hooked, metricsUrl: string) {
  const samples: OutageSample[] = [];
  const started = Date.now();
  let arrivalsSeen = hooked.receiver.arrivals.length;
  const sample = async () => {
    const gauge = samplesBy(await scrape(metricsUrl), 'webhook_queue_depth').get('') ?? 0;
    const arrivals = hooked.receiver.arrivals.length - arrivalsSeen;
    arrivalsSeen += arrivals;
    const second = Math.round((Date.now() - started) / 1000);
    samples.push({ second, pending: await deliveryCount(hooked.database, 'pending'), gauge, arrivals });
  };
  // A sample that fails (the metrics listener busy past its answer) is left out.
  const timer = setInterval(() => void sample().catch(() => undefined), 1000);
  return { samples, stop: () => clearInterval(timer) };
}

async function outageRun(server: ServiceProcess, hooked: Hooked, metricsUrl: string): Promise<OutageFigures> {
  const { receiver, database } = hooked;
  const from = await markEvents(hooked);
  const sampler = sampleEverySecond(hooked, metricsUrl);
  try {
    const renamesBefore = await renamesFor(server.baseUrl, hooked, LAG_RUN.perSecond, OUTAGE.steadySeconds);
    await receiver.refuse();
    const renamesDuring = await renamesFor(server.baseUrl, hooked, LAG_RUN.perSecond, OUTAGE.downSeconds);
    const load = renamesAtRate(server.baseUrl, hooked, LAG_RUN.perSecond);
    await receiver.listen();
    const returnedAt = Date.now();
    const atReturn = await markEvents(hooked);
    const before = await eventsBetween(hooked, from, atReturn);
    const backlog = before.filter((id) => (receiver.first.get(id)?.arrivedAt ?? Infinity) >= returnedAt);
    await waitUntil(() => missingOf(receiver, backlog) === 0, MOST_WAIT_MS, 200);
    const backlogArrived = Math.max(returnedAt, ...backlog.map((id) => receiver.first.get(id)?.arrivedAt ?? 0));
    const renamesAfter = await load.stop();
    const pendingAfterBacklog = await deliveryCount(database, 'pending');
    const loadStopped = Date.now();
    await waitUntil(() => queueEmpty(database), MOST_WAIT_MS, 200);
    const emptyAt = Date.now();
    await allArrived(hooked, from);
    const { samples } = sampler;
    return {
      retrySchedule: OUTAGE.retrySchedule,
      downSeconds: OUTAGE.downSeconds,
      renamesBefore,
      renamesDuring,
      renamesAfter,
      peakPending: Math.max(...samples.map((entry) => entry.pending)),
      peakGauge: Math.max(...samples.map((entry) => entry.gauge)),
      backlog: backlog.length,
      backlogDrain: draining(receiver, returnedAt, backlogArrived),
      pendingAfterBacklog,
      restDrain: draining(receiver, loadStopped, emptyAt),
      emptySeconds: rounded((emptyAt - returnedAt) / 1000, 1),
      backlogLag: lagFigures(lagsOf(receiver, backlog)),
      afterLag: lagFigures(lagsOf(receiver, await eventsBetween(hooked, atReturn))),
      missing: missingOf(receiver, await eventsBetween(hooked, from)),
      failedDeliveries: await deliveryCount(database, 'failed'),
      samples,
    };
  } finally {
    sampler.stop();
  }
}

// ---- the run ------------------------------------------------------------------------------------

export interface WebhookRun {
  lag: LagRun;
  writes: WriteComparison;
  outage: OutageFigures;
}

/**
 * Parts 1 to 3 (see the top of this file) on the database of `env`, through `database`: part 2,
 * then part 1 on one service, then part 3 on one started afresh with the short retry schedule.
 */
export async function webhookRun(
  env: Record<string, string>,
  database: mysql.Connection,
  timing: { durationSeconds: number; warmupSeconds: number },
): Promise<{ figures: WebhookRun; checks: Check[] }> {
  const receiver = new Receiver();
  await receiver.listen();
  const servers: ServiceProcess[] = [];
  const serve = async (extra: Record<string, string> = {}) => {
    const [metricsPort] = await freePorts(1);
    const server = await spawnService(
      {
        ...env,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        METRICS_PORT: String(metricsPort),
        ...extra,
      },
      { discardLogsAfterStart: true },
    );
    servers.push(server);
    return { server, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
  };
  const stop = async (server: ServiceProcess) => {
    server.child.kill('SIGTERM');
    await server.exited;
  };
  try {
    const first = await serve();
    const { token, organizationIds } = await createWatcher(first.server.baseUrl, 'bench-webhooks', ORGANIZATIONS);
    const hooked: Hooked = { token, organizationIds, database, receiver, webhookIds: [] };
    const writes = await writeComparison(first.server, hooked, { ...timing, metricsUrl: first.metricsUrl });
    console.error('webhooks: writes without and with endpoints: done');
    await createEndpoints(first.server.baseUrl, hooked);
    const lag = await lagRun(first.server, hooked, timing.warmupSeconds);
    console.error('webhooks: delivery lag: done');
    await stop(first.server);
    const afresh = await serve({ WEBHOOK_RETRY_SCHEDULE: OUTAGE.retrySchedule });
    const outage = await outageRun(afresh.server, hooked, afresh.metricsUrl);
    console.error('webhooks: receiver outage: done');
    return { figures: { lag, writes, outage }, checks: [lagCheck(lag), writeCheck(writes)] };
  } finally {
    for (const server of servers) if (server.child.exitCode === null) await stop(server);
    await receiver.refuse();
  }
}

/** The run's tables, for the bench's report. */
export function printWebhookRun({ lag, writes, outage }: WebhookRun): void {
  console.log(`\nWebhooks: ${ORGANIZATIONS} organizations, one endpoint each to a receiver on 127.0.0.1 answering 204`);
  console.log(
    `Delivery lag at ${LAG_RUN.perSecond} renames/s for ${LAG_RUN.seconds} s: p50 ${lag.lag.p50Ms} ms, p99 ${lag.lag.p99Ms} ms, max ${lag.lag.maxMs} ms; ${lag.events - lag.missing} of ${lag.events} events arrived, ${lag.repeated} repeated; renames p50/p99 ${lag.renames.p50Ms}/${lag.renames.p99Ms} ms`,
  );
  console.log('\nRenames as fast as answered, without and with endpoints (without, with, with, without; means)');
  console.table(
    (['without', 'with'] as const).map((side) => ({
      endpoints: side,
      'req/s': writes[side].requestsPerSecond,
      'p50/p99 ms': `${writes[side].p50Ms}/${writes[side].p99Ms}`,
      'CPU µs/req': writes[side].cpuMicrosPerRequest,
      'queries/req': writes[side].queriesPerRequest.total,
      'by first word': Object.entries(writes[side].queriesPerRequest.byOperation)
        .map(([operation, count]) => `${operation} ${count}`)
        .join(', '),
      'delivered/s': writes[side].deliveredPerSecond ?? '',
      'pending at end': writes[side].pendingAtEnd ?? '',
      'drained in ms': writes[side].drainMs ?? '',
    })),
  );
  const delivered = writes.with.deliveredPerSecond ?? 0;
  if (delivered < writes.with.requestsPerSecond) {
    console.log(
      `Note: with endpoints, ${delivered} deliveries a second arrived during the runs against ${writes.with.requestsPerSecond} renames: the rest waited for the load to end, so the ratio is not what delivery at the write rate would cost`,
    );
  }
  const { backlogDrain, restDrain } = outage;
  console.log(
    `\nReceiver refusing connections for ${outage.downSeconds} s under ${LAG_RUN.perSecond} renames/s, WEBHOOK_RETRY_SCHEDULE=${outage.retrySchedule}: ` +
      `peak pending ${outage.peakPending} (gauge ${outage.peakGauge}); ` +
      `the backlog of ${outage.backlog} arrived ${backlogDrain.seconds} s after the return, renames going on (${backlogDrain.meanPerSecond} deliveries/s, at most ${backlogDrain.peakPerSecond} in a second), ${outage.pendingAfterBacklog} pending then; ` +
      `renames stopped, the rest went in ${restDrain.seconds} s (${restDrain.meanPerSecond}/s, at most ${restDrain.peakPerSecond}); queue empty ${outage.emptySeconds} s after the return; ` +
      `lag of the backlog p50/max ${outage.backlogLag.p50Ms}/${outage.backlogLag.maxMs} ms, of events after the return p50/p99 ${outage.afterLag.p50Ms}/${outage.afterLag.p99Ms} ms; ` +
      `${outage.missing} never arrived, ${outage.failedDeliveries} failed deliveries; ` +
      `renames p99 before/during/after ${outage.renamesBefore.p99Ms}/${outage.renamesDuring.p99Ms}/${outage.renamesAfter.p99Ms} ms`,
  );
  console.log(
    `Pending by second: ${outage.samples.map((entry) => `${entry.second}:${entry.pending}/${entry.arrivals}`).join(' ')} (second:pending/arrivals)`,
  );
}
