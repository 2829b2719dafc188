/**
 * Webhook delivery (behaviour §13) by the bundle as `npm start` runs it: two instances sharing one
 * MariaDB database and one stream of events, one of them killed with SIGKILL in the middle of its
 * attempts, the database frozen under the deliveries (behaviour §10), and the effect of each
 * WEBHOOK_* setting of the README (tests/settings.test.ts names these tests as their proofs).
 *
 * The receivers listen on 127.0.0.1 only, and count what arrives per endpoint and `webhook-id`: an
 * event may arrive more than once, but never more often than the delivery log counts attempts of
 * it, since an attempt is claimed in the database before it is sent. tests/webhooks-race.test.ts
 * races the instances for one organization's read position on purpose.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryView, WebhookView } from '../shared/webhooks.ts';
import { spawnServices } from './support/bundle-processes.ts';
import { databaseTarget } from './support/databases.ts';
import { OwnMariadb } from './support/mariadb-instance.ts';
import { failWithout, ownMariadbMissing } from './support/needs.ts';
import { freePorts } from './support/ports.ts';
import { spawnService, type ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { TEST_SECRET } from './support/tokens.ts';
import { ANSWER_MARGIN_MS, timedAnswer, type TimedAnswer } from './support/timing.ts';
import {
  deliveriesPath,
  deliveryWarnings,
  ownerOfNewOrganization,
  startReceiver,
  webhookPath,
  webhooksPath,
  type ReceivedRequest,
  type Receiver,
} from './support/webhooks.ts';

const mariadb = databaseTarget('mariadb');

/** Every instance here may call the receivers: plain http on loopback. */
const LOOPBACK_RECEIVERS = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
const BASE_ENV = { JWT_SECRET: TEST_SECRET, RATE_LIMIT_MAX: '0' };

/** A receiver's responder: every request answered `status` after `delayMs`. */
const answering =
  (status = 200, delayMs = 0) =>
  async () => {
    await sleep(delayMs);
    return { status, body: status < 300 ? 'ok' : 'not now' };
  };

/** Requests the receiver has not answered: not yet, or never, as when their sender died. */
const unanswered = (receiver: Receiver): ReceivedRequest[] =>
  receiver.requests.filter((request) => request.answered === undefined);

/**
 * A receiver answering 200 after `delayMs`, and how many requests it has held unanswered at once at
 * most (each counted as it comes; the helper marks a request answered just before the answer leaves).
 */
async function peakCountingReceiver(delayMs: number): Promise<{ receiver: Receiver; mostOpen: () => number }> {
  const receiver = await startReceiver();
  let most = 0;
  const answer = answering(200, delayMs);
  receiver.respond(() => {
    most = Math.max(most, unanswered(receiver).length);
    return answer();
  });
  return { receiver, mostOpen: () => most };
}

/** How many times each event (its `webhook-id`) came to one endpoint of the receiver. */
function arrivalsPerEvent(receiver: Receiver, path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of receiver.at(path)) {
    const eventId = request.headers['webhook-id']!;
    counts.set(eventId, (counts.get(eventId) ?? 0) + 1);
  }
  return counts;
}

/** An endpoint for the organization's renames (the events renameMany makes). */
async function createEndpoint(
  baseUrl: string,
  token: string,
  organizationId: string,
  url: string,
): Promise<WebhookView> {
  const created = await restCall(baseUrl, 'POST', webhooksPath(organizationId), token, {
    url,
    event_types: ['organization.updated'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/**
 * `count` renames of the organization, each an `organization.updated` event, sent `parallel` at a
 * time and to each of `baseUrls` in turn; all must commit.
 */
async function renameMany(baseUrls: string[], token: string, organizationId: string, count: number, parallel = 4) {
  let next = 0;
  const renamer = async () => {
    while (next < count) {
      const n = next++;
      const renamed = await restCall(baseUrls[n % baseUrls.length]!, 'PUT', `/organizations/${organizationId}`, token, {
        organization_name: `Renamed ${n}`,
      });
      expect(renamed.status).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: parallel }, renamer));
}

/** The ids of the organization's `organization.updated` events: those that committed. */
async function committedRenames(baseUrl: string, token: string, organizationId: string): Promise<string[]> {
  const events = await restCall(
    baseUrl,
    'GET',
    `/organizations/${organizationId}/events?type=organization.updated&limit=1000`,
    token,
  );
  expect(events.status).toBe(200);
  expect(events.body.length).toBeLessThan(1000);
  return events.body.map((event: { event_id: string }) => event.event_id);
}

/** The endpoint's whole delivery log, or undefined when the service cannot answer now. */
async function deliveryLog(
  baseUrl: string,
  token: string,
  organizationId: string,
  webhookId: string,
): Promise<DeliveryView[] | undefined> {
  const answer = await restCall(baseUrl, 'GET', deliveriesPath(organizationId, webhookId), token);
  return answer.status === 200 ? answer.body : undefined;
}

/** Waits until the endpoint has `count` deliveries, all succeeded; returns them. */
async function allSucceeded(
  baseUrl: string,
  token: string,
  organizationId: string,
  webhookId: string,
  count: number,
  timeoutMs: number,
): Promise<DeliveryView[]> {
  let deliveries: DeliveryView[] = [];
  await expect
    .poll(
      async () => {
        deliveries = (await deliveryLog(baseUrl, token, organizationId, webhookId)) ?? [];
        return deliveries.filter((delivery) => delivery.status === 'succeeded').length;
      },
      { timeout: timeoutMs, interval: 200 },
    )
    .toBe(count);
  return deliveries;
}

/**
 * What the delivery log and the receiver must agree on: one delivery per committed event, each
 * succeeded; every event arrived at least once, and never more often than the log counts attempts.
 */
function expectDeliveredOnce(receiver: Receiver, path: string, deliveries: DeliveryView[], eventIds: string[]) {
  expect(deliveries.map((delivery) => delivery.event_id).sort()).toEqual([...eventIds].sort());
  const arrivals = arrivalsPerEvent(receiver, path);
  expect([...arrivals.keys()].filter((id) => !eventIds.includes(id))).toEqual([]);
  for (const delivery of deliveries) {
    expect(delivery.status).toBe('succeeded');
    const arrived = arrivals.get(delivery.event_id) ?? 0;
    expect(arrived, `${path} ${delivery.event_id}`).toBeGreaterThanOrEqual(1);
    expect(arrived, `${path} ${delivery.event_id}`).toBeLessThanOrEqual(delivery.attempts);
  }
}

/** The instance's `webhook_attempts_total` of an outcome, from its metrics listener. */
async function attemptsCounted(metricsPort: number, outcome: 'succeeded' | 'retrying' | 'failed'): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = new RegExp(`^webhook_attempts_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text);
  return Number(line?.[1] ?? 0);
}

async function timedCall(
  baseUrl: string,
  method: string,
  path: string,
  token: string,
  body?: object,
): Promise<TimedAnswer<unknown>> {
  return timedAnswer(() =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body && { 'content-type': 'application/json' }) },
      body: body && JSON.stringify(body),
    }),
  );
}

const LEASE_MS = 2000;
/** A short lease, and a timeout short enough for it: the service wants the lease 1 s longer. */
const SHORT_LEASE = { WEBHOOK_LEASE_MS: String(LEASE_MS), WEBHOOK_TIMEOUT_MS: String(LEASE_MS - 1000) };

describe('two instances delivering the webhooks of one MariaDB database', () => {
  failWithout(mariadb.missing);
  let instances: ServiceProcess[] = [];
  let metricsPorts: number[] = [];
  let drop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const database = await mariadb.create();
    drop = database.drop;
    metricsPorts = await freePorts(2);
    instances = await spawnServices(
      metricsPorts.map((port) => ({
        ...BASE_ENV,
        ...LOOPBACK_RECEIVERS,
        ...SHORT_LEASE,
        DATABASE_URL: database.url,
        METRICS_PORT: String(port),
        // Few attempts at once per instance: more open at the receiver than one instance may hold
        // tells that the other has some under way.
        WEBHOOK_CONCURRENCY: '4',
      })),
    );
  }, 60_000);
  afterAll(async () => {
    for (const instance of instances) {
      instance.child.kill('SIGTERM');
      await instance.exited;
    }
    await drop();
  });

  it('delivers each of 300 events to each endpoint, with no attempt made twice', async () => {
    const receiver = await startReceiver(answering(200, 20));
    try {
      const baseUrls = instances.map((instance) => instance.baseUrl);
      const { token, organizationId } = await ownerOfNewOrganization(baseUrls[0]!);
      const paths = ['/first', '/second'];
      const endpoints = [];
      for (const path of paths) {
        endpoints.push(await createEndpoint(baseUrls[1]!, token, organizationId, receiver.url(path)));
      }
      await renameMany(baseUrls, token, organizationId, 300, 6);
      const eventIds = await committedRenames(baseUrls[0]!, token, organizationId);
      expect(eventIds).toHaveLength(300);

      for (const [index, endpoint] of endpoints.entries()) {
        const deliveries = await allSucceeded(
          baseUrls[index]!,
          token,
          organizationId,
          endpoint.webhook_id,
          300,
          30_000,
        );
        expectDeliveredOnce(receiver, paths[index]!, deliveries, eventIds);
      }
      // Both handed the burst out at once: the one that lost a race for the read position changed
      // and failed nothing (each loss used to fail its pass on the unique key, "Duplicate entry").
      expect(instances.flatMap(deliveryWarnings)).toEqual([]);
      // Each success was recorded once, by the instance that held the attempt's claim; both took part.
      const succeeded = await Promise.all(metricsPorts.map((port) => attemptsCounted(port, 'succeeded')));
      expect(succeeded[0]! + succeeded[1]!).toBe(600);
      expect(Math.min(...succeeded)).toBeGreaterThan(0);

      // Both instances idle now: an event committed after the burst is still handed out and sent.
      await sleep(1000);
      await renameMany(baseUrls, token, organizationId, 1, 1);
      const [afterBurst] = (await committedRenames(baseUrls[0]!, token, organizationId)).slice(300);
      await expect
        .poll(() => paths.map((path) => arrivalsPerEvent(receiver, path).has(afterBurst!)), { timeout: 5_000 })
        .toEqual([true, true]);
    } finally {
      await receiver.close();
    }
  });

  it('takes over the attempts of an instance killed with SIGKILL once their WEBHOOK_LEASE_MS claims lapse', async () => {
    const [doomed, survivor] = instances as [ServiceProcess, ServiceProcess];
    const receiver = await startReceiver();
    // Answers after 300 ms; once 3 requests are open at once, none until the doomed instance is dead.
    let holding: Promise<void> | undefined;
    let release = () => {};
    const bothSending = new Promise<void>((reached) =>
      receiver.respond(async () => {
        if (!holding && unanswered(receiver).length >= 3) {
          holding = new Promise((resolve) => (release = resolve));
          reached();
        }
        await sleep(300);
        await holding;
        return 200;
      }),
    );
    try {
      const { token, organizationId } = await ownerOfNewOrganization(survivor.baseUrl);
      const paths = ['/a', '/b', '/c'];
      const endpoints = [];
      for (const path of paths) {
        endpoints.push(await createEndpoint(survivor.baseUrl, token, organizationId, receiver.url(path)));
      }
      await renameMany([doomed.baseUrl, survivor.baseUrl], token, organizationId, 24);
      // One instance holds at most 2 attempts of one organization (half of its WEBHOOK_CONCURRENCY,
      // behaviour §13): with 3 open, the doomed one has at least one under way.
      const noThree = sleep(10_000, 'never 3 attempts at once');
      await expect(Promise.race([bothSending, noThree])).resolves.toBeUndefined();
      doomed.kill();
      await doomed.exited;
      release();

      const eventIds = await committedRenames(survivor.baseUrl, token, organizationId);
      expect(eventIds).toHaveLength(24);
      const logs = [];
      for (const endpoint of endpoints) {
        logs.push(await allSucceeded(survivor.baseUrl, token, organizationId, endpoint.webhook_id, 24, 30_000));
      }
      // What the doomed instance was sending when it died: never answered.
      const cutOff = unanswered(receiver);
      expect(cutOff.length).toBeGreaterThan(0);
      for (const [index, deliveries] of logs.entries()) {
        expectDeliveredOnce(receiver, paths[index]!, deliveries, eventIds);
        for (const lost of cutOff.filter((request) => request.path === paths[index])) {
          const eventId = lost.headers['webhook-id'];
          // Its claim counted the attempt that died; the next came only once that claim had lapsed.
          expect(deliveries.find((delivery) => delivery.event_id === eventId)!.attempts).toBeGreaterThanOrEqual(2);
          const retaken = receiver
            .at(lost.path)
            .find((request) => request.headers['webhook-id'] === eventId && request.answered === 200);
          // The claim was taken a little before the attempt arrived: half the lease is ample margin.
          expect(retaken!.arrivedAt - lost.arrivedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
        }
      }
    } finally {
      release();
      await receiver.close();
    }
  });
});

const DB_TIMEOUT_MS = 1500;

describe('webhook deliveries while the database is frozen', () => {
  failWithout(ownMariadbMissing());
  // Made in beforeAll: its directory is made at once, and only a run of this block removes it.
  let database: OwnMariadb;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    database = new OwnMariadb();
    await database.start();
    service = await spawnService({
      ...BASE_ENV,
      ...LOOPBACK_RECEIVERS,
      ...SHORT_LEASE,
      DATABASE_URL: database.url,
      DB_TIMEOUT_MS: String(DB_TIMEOUT_MS),
    });
  }, 60_000);
  afterAll(async () => {
    service?.kill();
    await service?.exited;
    await database?.destroy();
  });

  it('answers 503 in time while frozen, then resumes and delivers every committed event', async () => {
    const { baseUrl } = service!;
    // 80 deliveries, 8 at a time, 300 ms each: most are still to come when the database freezes.
    const receiver = await startReceiver(answering(200, 300));
    try {
      const { token, organizationId } = await ownerOfNewOrganization(baseUrl);
      const paths = ['/one', '/two'];
      const endpoints = [];
      for (const path of paths)
        endpoints.push(await createEndpoint(baseUrl, token, organizationId, receiver.url(path)));
      await renameMany([baseUrl], token, organizationId, 40);
      await expect.poll(() => receiver.requests.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);

      database.freeze();
      const frozenUntil = performance.now() + 2 * DB_TIMEOUT_MS;
      const answers = await Promise.all([
        timedCall(baseUrl, 'GET', '/users', token),
        timedCall(baseUrl, 'PUT', `/organizations/${organizationId}`, token, { organization_name: 'Stalled' }),
        timedCall(baseUrl, 'GET', webhooksPath(organizationId), token),
      ]);
      await sleep(Math.max(0, frozenUntil - performance.now()));
      const arrivedBeforeThaw = receiver.requests.length;
      database.thaw();

      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.body).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
        expect(answer.ms).toBeLessThan(DB_TIMEOUT_MS + ANSWER_MARGIN_MS);
      }
      const logs = [];
      for (const endpoint of endpoints) {
        logs.push(await allSucceeded(baseUrl, token, organizationId, endpoint.webhook_id, 40, 30_000));
      }
      // The rename refused while frozen never committed, so nothing carries it.
      const eventIds = await committedRenames(baseUrl, token, organizationId);
      expect(eventIds).toHaveLength(40);
      for (const [index, deliveries] of logs.entries()) {
        expectDeliveredOnce(receiver, paths[index]!, deliveries, eventIds);
      }
      expect(receiver.requests.length, 'deliveries went on after the thaw').toBeGreaterThan(arrivedBeforeThaw);
      expect(receiver.requests.filter((request) => request.body.includes('Stalled'))).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

const RETRY_SCHEDULE_MS = [400, 1500];
const TIMEOUT_MS = 500;
/** 1.8 s: shorter than the retry schedule's span, so an endpoint failing through it is disabled. */
const DISABLE_AFTER_HOURS = 0.0005;
/** WEBHOOK_POLL_INTERVAL_MS of one bundle: ten times the default, so its effect shows. */
const SLOW_POLL_MS = 2000;

describe('the WEBHOOK_* settings, on the bundle', () => {
  let strict: ServiceProcess;
  let httpOnly: ServiceProcess;
  let tuned: ServiceProcess;
  let oneAtATime: ServiceProcess;
  let fourAtATime: ServiceProcess;
  let slowPolling: ServiceProcess;

  beforeAll(async () => {
    const env = { ...BASE_ENV, DATABASE_URL: ':memory:' };
    [strict, httpOnly, tuned, oneAtATime, fourAtATime, slowPolling] = (await spawnServices([
      { ...env, WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE: 'false' },
      { ...env, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'false' },
      {
        ...env,
        ...LOOPBACK_RECEIVERS,
        WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE_MS.map((ms) => `${ms}ms`).join(','),
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_DISABLE_AFTER_HOURS: String(DISABLE_AFTER_HOURS),
      },
      { ...env, ...LOOPBACK_RECEIVERS, WEBHOOK_CONCURRENCY: '1' },
      { ...env, ...LOOPBACK_RECEIVERS, WEBHOOK_CONCURRENCY: '4' },
      { ...env, ...LOOPBACK_RECEIVERS, WEBHOOK_POLL_INTERVAL_MS: String(SLOW_POLL_MS) },
    ])) as [ServiceProcess, ServiceProcess, ServiceProcess, ServiceProcess, ServiceProcess, ServiceProcess];
  }, 60_000);
  afterAll(async () => {
    for (const instance of [strict, httpOnly, tuned, oneAtATime, fourAtATime, slowPolling]) {
      instance?.kill();
      await instance?.exited;
    }
  });

  it('refuses http:// endpoint URLs unless WEBHOOK_ALLOW_HTTP=true, and loopback ones unless WEBHOOK_ALLOW_PRIVATE=true', async () => {
    // Only asks: the organization records nothing afterwards, so nothing is ever sent to these URLs.
    const problemOf = async (service: ServiceProcess, url: string) => {
      const { token, organizationId } = await ownerOfNewOrganization(service.baseUrl);
      const created = await restCall(service.baseUrl, 'POST', webhooksPath(organizationId), token, {
        url,
        event_types: ['organization.deleted'],
      });
      if (created.status === 201) return 'created';
      expect(created.status).toBe(400);
      expect(created.body.issues).toEqual([{ field: 'url', problem: expect.any(String) }]);
      return created.body.issues[0].problem as string;
    };
    const plain = 'http://127.0.0.1:9/hook';
    const secure = 'https://127.0.0.1:9/hook';

    expect(await problemOf(strict, plain)).toMatch(/^Must use https:\/\/ .*WEBHOOK_ALLOW_HTTP/);
    expect(await problemOf(strict, secure)).toMatch(/not a public address .*WEBHOOK_ALLOW_PRIVATE/);
    // Plain http allowed: the same URL gets past its scheme, and is refused for where it leads.
    expect(await problemOf(httpOnly, plain)).toMatch(/not a public address .*WEBHOOK_ALLOW_PRIVATE/);
    expect(await problemOf(httpOnly, secure)).toMatch(/not a public address .*WEBHOOK_ALLOW_PRIVATE/);
    expect(await problemOf(tuned, plain)).toBe('created');
    expect(await problemOf(tuned, secure)).toBe('created');
  });

  it('looks for committed events to deliver every WEBHOOK_POLL_INTERVAL_MS', async () => {
    const receiver = await startReceiver(answering(200));
    try {
      const { token, organizationId } = await ownerOfNewOrganization(slowPolling.baseUrl);
      await createEndpoint(slowPolling.baseUrl, token, organizationId, receiver.url('/polled'));
      await renameMany([slowPolling.baseUrl], token, organizationId, 1);
      await expect.poll(() => receiver.requests.length, { timeout: 3 * SLOW_POLL_MS, interval: 50 }).toBe(1);
      // Committed just after a pass handed out the first: it waits for the next timed pass.
      await sleep(300);
      const renamed = await restCall(slowPolling.baseUrl, 'PUT', `/organizations/${organizationId}`, token, {
        organization_name: 'Renamed again',
      });
      expect(renamed.status).toBe(200);
      await expect.poll(() => receiver.requests.length, { timeout: 3 * SLOW_POLL_MS, interval: 50 }).toBe(2);
      const [first, second] = receiver.requests.map((request) => request.arrivedAt);
      // At the default interval (200 ms) the second would arrive some 300 to 500 ms after the first.
      expect(second! - first!).toBeGreaterThanOrEqual(SLOW_POLL_MS - 500);
    } finally {
      await receiver.close();
    }
  });

  it('spaces the attempts of a failing delivery by WEBHOOK_RETRY_SCHEDULE, and fails it after the last', async () => {
    const receiver = await startReceiver(answering(500));
    try {
      const { token, organizationId } = await ownerOfNewOrganization(tuned.baseUrl);
      const endpoint = await createEndpoint(tuned.baseUrl, token, organizationId, receiver.url('/failing'));
      await renameMany([tuned.baseUrl], token, organizationId, 1);
      let deliveries: DeliveryView[] = [];
      await expect
        .poll(
          async () => {
            deliveries = (await deliveryLog(tuned.baseUrl, token, organizationId, endpoint.webhook_id)) ?? [];
            return deliveries.map((delivery) => delivery.status);
          },
          { timeout: 10_000, interval: 100 },
        )
        .toEqual(['failed']);
      // One attempt, then one more after each wait of the schedule.
      expect(deliveries[0]).toMatchObject({ attempts: 3, last_status_code: 500, last_error: 'HTTP 500: not now' });
      const arrivals = receiver.requests.map((request) => request.arrivedAt);
      expect(arrivals).toHaveLength(3);
      // The next attempt falls due a wait after the previous one's answer, which came after it arrived.
      expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[0]!);
      expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[1]!);
    } finally {
      await receiver.close();
    }
  });

  it('gives up an attempt the receiver does not answer within WEBHOOK_TIMEOUT_MS', async () => {
    const slow = await startReceiver(answering(200, TIMEOUT_MS + 1000));
    const prompt = await startReceiver(answering(200, TIMEOUT_MS - 300));
    try {
      const { token, organizationId } = await ownerOfNewOrganization(tuned.baseUrl);
      const late = await createEndpoint(tuned.baseUrl, token, organizationId, slow.url('/slow'));
      const inTime = await createEndpoint(tuned.baseUrl, token, organizationId, prompt.url('/prompt'));
      await renameMany([tuned.baseUrl], token, organizationId, 1);
      await allSucceeded(tuned.baseUrl, token, organizationId, inTime.webhook_id, 1, 10_000);
      let lateDelivery: DeliveryView | undefined;
      await expect
        .poll(
          async () => {
            [lateDelivery] = (await deliveryLog(tuned.baseUrl, token, organizationId, late.webhook_id)) ?? [];
            return lateDelivery?.last_error ?? null;
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(`No answer within ${TIMEOUT_MS} ms`);
      expect(lateDelivery).toMatchObject({ last_status_code: null });
      expect(lateDelivery!.status).not.toBe('succeeded');
    } finally {
      await slow.close();
      await prompt.close();
    }
  });

  it('disables an endpoint whose every attempt has failed for WEBHOOK_DISABLE_AFTER_HOURS', async () => {
    const receiver = await startReceiver(answering(503));
    try {
      const { token, organizationId } = await ownerOfNewOrganization(tuned.baseUrl);
      const endpoint = await createEndpoint(tuned.baseUrl, token, organizationId, receiver.url('/down'));
      const path = webhookPath(organizationId, endpoint.webhook_id);
      await renameMany([tuned.baseUrl], token, organizationId, 1);
      // The schedule's three attempts span more than 1.8 s: the last failure finds the run long enough.
      await expect
        .poll(async () => (await restCall(tuned.baseUrl, 'GET', path, token)).body.enabled, { timeout: 10_000 })
        .toBe(false);
      const disabled = (await restCall(tuned.baseUrl, 'GET', path, token)).body;
      expect(disabled.disabled_reason).toBe(`Every delivery attempt failed for ${DISABLE_AFTER_HOURS} hours`);
      const events = await restCall(
        tuned.baseUrl,
        'GET',
        `/organizations/${organizationId}/events?type=webhook.disabled`,
        token,
      );
      expect(events.body.map((event: { data: object }) => event.data)).toEqual([
        { webhook_id: endpoint.webhook_id, url: endpoint.url, reason: disabled.disabled_reason },
      ]);
      expect(receiver.requests).toHaveLength(3);
    } finally {
      await receiver.close();
    }
  });

  it('makes at most WEBHOOK_CONCURRENCY attempts at once over all endpoints, at most half of them for one organization: one with 1, several with 4', async () => {
    /**
     * 4 events for each of three endpoints, of one organization or of three: 12 deliveries, each
     * answered after 200 ms. The endpoints and organizations exist before the events, so that the
     * deliveries are due together.
     */
    const deliverTwelve = async (service: ServiceProcess, receiver: Receiver, organizations: 1 | 3) => {
      const owners = [];
      for (let made = 0; made < organizations; made++) owners.push(await ownerOfNewOrganization(service.baseUrl));
      const endpoints = [];
      for (const [index, path] of ['/x', '/y', '/z'].entries()) {
        const { token, organizationId } = owners[index % organizations]!;
        const endpoint = await createEndpoint(service.baseUrl, token, organizationId, receiver.url(path));
        endpoints.push({ token, organizationId, endpoint });
      }
      await Promise.all(
        owners.map(({ token, organizationId }) => renameMany([service.baseUrl], token, organizationId, 4)),
      );
      for (const { token, organizationId, endpoint } of endpoints) {
        await allSucceeded(service.baseUrl, token, organizationId, endpoint.webhook_id, 4, 15_000);
      }
    };
    const single = await peakCountingReceiver(200);
    const oneOrganization = await peakCountingReceiver(200);
    const threeOrganizations = await peakCountingReceiver(200);
    try {
      await Promise.all([
        deliverTwelve(oneAtATime, single.receiver, 1),
        (async () => {
          await deliverTwelve(fourAtATime, oneOrganization.receiver, 1);
          await deliverTwelve(fourAtATime, threeOrganizations.receiver, 3);
        })(),
      ]);
      expect(single.receiver.requests).toHaveLength(12);
      expect(single.mostOpen()).toBe(1);
      // One organization's three endpoints, each of which may have 4 under way: its half of the 4.
      expect(oneOrganization.receiver.requests).toHaveLength(12);
      expect(oneOrganization.mostOpen()).toBe(2);
      // Three organizations: more than one organization's half at once, never over the 4 of the setting.
      expect(threeOrganizations.receiver.requests).toHaveLength(12);
      expect(threeOrganizations.mostOpen()).toBeGreaterThan(2);
      expect(threeOrganizations.mostOpen()).toBeLessThanOrEqual(4);
    } finally {
      await single.receiver.close();
      await oneOrganization.receiver.close();
      await threeOrganizations.receiver.close();
    }
  });
});
