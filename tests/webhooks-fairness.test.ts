/**
 * One organization's dead receivers delay its own deliveries only (behaviour §13): an instance gives
 * one organization at most half of its WEBHOOK_CONCURRENCY attempts, and takes the attempts that
 * are due one organization at a time, in turn. On both databases, with receivers on 127.0.0.1:
 * organizations whose many endpoints lead to a receiver that accepts every request and never
 * answers, beside an organization whose receiver answers 200 at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { LOADED_MACHINE_SLACK_MS } from './support/timing.ts';
import {
  createWebhook,
  deliveriesOf,
  startHangingReceiver,
  startReceiver,
  type HangingReceiver,
  type Receiver,
} from './support/webhooks.ts';

const CONCURRENCY = 4;
/** What one organization may have under way at once: half of WEBHOOK_CONCURRENCY. */
const SHARE = CONCURRENCY / 2;
const TIMEOUT_MS = 4_000;
/** The dispatcher's default WEBHOOK_POLL_INTERVAL_MS. */
const POLL_MS = 200;
/**
 * From a change's request to its delivery's arrival, when a place is free: the next pass hands the
 * event out and makes the attempt; a loaded machine adds its slack. Well under TIMEOUT_MS, the time
 * a hung attempt holds its place.
 */
const PROMPT_MS = 2 * POLL_MS + LOADED_MACHINE_SLACK_MS + 300;
/** More endpoints than the instance makes attempts at once, each with 4 of its own allowed. */
const DEAD_ENDPOINTS = 8;

describeOnEachDatabase('webhook deliveries shared fairly between organizations (behaviour §13)', (target) => {
  const server = useServer(target, {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    // Hung attempts come back soon: their retries keep the dead organizations' backlog due.
    WEBHOOK_RETRY_SCHEDULE: '500ms,500ms,500ms',
  });

  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  let descriptions = 0;
  const changeOrganization = async (owner: TestUser, organizationId: string) => {
    const changed = await server().call('PUT', `/organizations/${organizationId}`, {
      token: owner.token,
      body: { organization_description: `description ${++descriptions}` },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  };

  /** An organization whose DEAD_ENDPOINTS endpoints lead to `dead`, with `events` changes made. */
  const deadOrganization = async (dead: HangingReceiver, events: number) => {
    const owner = await registerUser(server(), 'dead');
    const organizationId = await createOrganization(server(), owner);
    for (let endpoint = 0; endpoint < DEAD_ENDPOINTS; endpoint++) {
      await createWebhook(server(), owner, organizationId, {
        url: dead.url(`/dead/${endpoint}`),
        event_types: ['organization.updated'],
      });
    }
    for (let event = 0; event < events; event++) await changeOrganization(owner, organizationId);
  };

  /**
   * Makes `events` changes in an organization whose endpoint answers 200 at once, one after the
   * other, each once the one before was delivered; answers how long each took from its request to
   * its delivery's arrival, and checks the delivery log says each succeeded at its first attempt.
   */
  const promptOrganization = async (events: number): Promise<number[]> => {
    const prompt = await startReceiver();
    receivers.push(prompt);
    const owner = await registerUser(server(), 'prompt');
    const organizationId = await createOrganization(server(), owner);
    const endpoint = await createWebhook(server(), owner, organizationId, {
      url: prompt.url('/prompt'),
      event_types: ['organization.updated'],
    });
    const waits: number[] = [];
    for (let event = 1; event <= events; event++) {
      const sentAt = Date.now();
      await changeOrganization(owner, organizationId);
      // Long enough to see how late it comes, whatever the bound the test holds it to.
      await expect
        .poll(() => prompt.requests.length, {
          timeout: 3 * TIMEOUT_MS,
          interval: 20,
          message: `event ${event} of the prompt organization not delivered within ${3 * TIMEOUT_MS} ms`,
        })
        .toBe(event);
      waits.push(prompt.requests.at(-1)!.arrivedAt - sentAt);
    }
    await expect
      .poll(async () => (await deliveriesOf(server(), owner, organizationId, endpoint.webhook_id)).map((d) => d.status))
      .toEqual(Array.from({ length: events }, () => 'succeeded'));
    const deliveries = await deliveriesOf(server(), owner, organizationId, endpoint.webhook_id);
    expect(deliveries.map((delivery) => delivery.attempts)).toEqual(Array.from({ length: events }, () => 1));
    return waits;
  };

  /** A receiver that never answers, for one test: closed at its end, so nothing hangs into the next. */
  const withDeadReceiver = async (work: (dead: HangingReceiver) => Promise<void>) => {
    const dead = await startHangingReceiver();
    try {
      await work(dead);
    } finally {
      // The dead organizations' attempts end at once from here on (connection refused).
      await dead.close();
    }
  };

  it("delivers another organization's events at once while one organization's many endpoints hang", () =>
    withDeadReceiver(async (dead) => {
      // 16 deliveries, 4 times WEBHOOK_CONCURRENCY: without a share each, they would take every place.
      await deadOrganization(dead, 2);
      await expect.poll(() => dead.requests(), { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(SHARE);
      // Passes enough to start more, had the organization been allowed more.
      await sleep(3 * POLL_MS);

      const waits = await promptOrganization(3);
      for (const wait of waits) expect(wait).toBeLessThan(PROMPT_MS);
      // The dead organization had its share, and no more.
      expect(dead.mostOpen()).toBe(SHARE);
    }));

  it('hands each place freed to the next organization in turn, not to the dead organizations before it', () =>
    withDeadReceiver(async (dead) => {
      // Two organizations with 16 deliveries each: their shares fill every place, and their backlog
      // is due before the prompt organization's events.
      await deadOrganization(dead, 2);
      await deadOrganization(dead, 2);
      await expect.poll(() => dead.requests(), { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(CONCURRENCY);

      // Each waits for a place freed by a hung attempt (TIMEOUT_MS at most), and gets the first one;
      // taken oldest first, the 32 dead deliveries would hold every place for 8 TIMEOUT_MS and more.
      const waits = await promptOrganization(2);
      for (const wait of waits) expect(wait).toBeLessThan(TIMEOUT_MS + PROMPT_MS);
      expect(dead.mostOpen()).toBe(CONCURRENCY);
    }));
});
