/**
 * Handing events out to webhook endpoints (behaviour §13: every event an endpoint is to receive is
 * sent to it) when instances race and when one organization's hand-out fails:
 * - two instances racing for one organization's read position (`webhook_cursors`) while another
 *   session holds its row: the first has seen only an event the endpoint does not want, the second
 *   also a wanted one committed in between. That interleaving once committed the second one's
 *   delivery and left the position behind it; every hand-out of the organization then failed on
 *   the unique key, and every pass with it;
 * - an organization whose hand-out fails at every pass (another session holds its endpoint's row
 *   past DB_TIMEOUT_MS): another organization's new events and due retries go on;
 * - an organization left with a delivery after its read position, the state that race left: its
 *   later events are delivered again, and that one is not made twice.
 *
 * Instances as `npm start` runs them (and in-process servers on both databases for the last),
 * real MariaDB sessions holding the rows, receivers on 127.0.0.1.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../server/platform/database/schema.ts';
import { failWithout } from './support/needs.ts';
import { spawnServices } from './support/bundle-processes.ts';
import { databaseTarget, describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, uniqueId } from './support/fixtures.ts';
import { spawnService, type ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { useServer } from './support/server.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';
import {
  createWebhook,
  deliveriesOf,
  deliveriesPath,
  deliveryWarnings,
  ownerOfNewOrganization,
  startReceiver,
  webhooksPath,
  type Receiver,
} from './support/webhooks.ts';

const mariadb = databaseTarget('mariadb');

/** Receivers on loopback over plain http. */
const LOOPBACK_RECEIVERS = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
const BASE_ENV = { JWT_SECRET: TEST_SECRET, RATE_LIMIT_MAX: '0', ...LOOPBACK_RECEIVERS };
/** Generous: a delivery normally arrives within a poll or two. */
const DELIVERED = { timeout: 20_000, interval: 100 };

interface HeldRows {
  /** Ends the other session's transaction (once), letting the rows go. */
  release(): Promise<void>;
}

/**
 * Another session on the database (an operator's, another program's) that locks the row `select`
 * finds with `SELECT … FOR UPDATE` and keeps it in its open transaction until released.
 */
async function holdRow(databaseUrl: string, select: string, values: unknown[]): Promise<HeldRows> {
  const session = await mysql.createConnection({ uri: databaseUrl.replace(/^mariadb:/, 'mysql:') });
  await session.query('begin');
  const [rows] = await session.query(`${select} for update`, values);
  expect(rows).toHaveLength(1);
  let released: Promise<void> | undefined;
  return {
    release: () => (released ??= session.query('rollback').then(() => session.end())),
  };
}

/** A new user, added to the organization as a member by its owner: a `member.added` event. */
async function addNewMember(baseUrl: string, ownerToken: string, organizationId: string): Promise<string> {
  const userId = uniqueId('member');
  // A role that lets the token create its user record (REQUIRE_CREATOR_ROLE); in the organization, a member.
  const token = await tokenFor(userId, { role: 'owner' });
  const email = `${userId}@example.com`;
  const user = await restCall(baseUrl, 'POST', '/users', token, { first_name: 'New', last_name: 'Member', email });
  expect(user.status).toBe(201);
  const added = await restCall(
    baseUrl,
    'POST',
    '/organization-user',
    ownerToken,
    { email, role: 'member' },
    organizationId,
  );
  expect(added.status).toBe(201);
  return userId;
}

/** An organization.updated event. */
async function rename(baseUrl: string, token: string, organizationId: string): Promise<void> {
  const renamed = await restCall(baseUrl, 'PUT', `/organizations/${organizationId}`, token, {
    organization_name: uniqueId('Renamed'),
  });
  expect(renamed.status).toBe(200);
}

/** The requests that carried an event about `userId` (its subject). */
const arrivalsAbout = (receiver: Receiver, userId: string) =>
  receiver.requests.filter((request) => JSON.parse(request.body).data.subject_user_id === userId);

describe('two instances racing for a read position another session holds', () => {
  failWithout(mariadb.missing);
  let environment: Record<string, string> = {};
  let databaseUrl = '';
  let first: ServiceProcess;
  let drop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const created = await mariadb.create();
    databaseUrl = created.url;
    drop = created.drop;
    environment = {
      ...BASE_ENV,
      DATABASE_URL: databaseUrl,
      // As often as the check that found the race polled.
      WEBHOOK_POLL_INTERVAL_MS: '50',
      // A budget longer than the hold: a hand-out that waits for a held position waits until the hold
      // ends, so the second instance's queues behind the first's, the interleaving that once left the
      // position behind a delivery.
      DB_TIMEOUT_MS: '30000',
      SHUTDOWN_TIMEOUT_MS: '40000',
    };
    first = await spawnService(environment);
  }, 60_000);
  afterAll(async () => {
    first?.kill();
    await first?.exited;
    await drop();
  });

  it('delivers the wanted event only the later one saw, and every event after it', async () => {
    const receiver = await startReceiver();
    let second: ServiceProcess | undefined;
    let held: HeldRows | undefined;
    try {
      const { baseUrl } = first;
      const { token, organizationId } = await ownerOfNewOrganization(baseUrl);
      const memberId = await addNewMember(baseUrl, token, organizationId);
      const created = await restCall(baseUrl, 'POST', webhooksPath(organizationId), token, {
        url: receiver.url(),
        event_types: ['member.added'],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const webhookId: string = created.body.webhook_id;

      held = await holdRow(databaseUrl, 'select last_event_id from webhook_cursors where organization_id = ?', [
        organizationId,
      ]);
      // An event the endpoint does not want; the first instance's passes find it while the position is held.
      const flipped = await restCall(
        baseUrl,
        'PUT',
        '/organization-user',
        token,
        { user_id: memberId, role: 'admin' },
        organizationId,
      );
      expect(flipped.status).toBe(200);
      await sleep(500);
      // One it wants, committed after the first instance's pass began and while the position is held.
      const wantedId = await addNewMember(baseUrl, token, organizationId);
      // A second instance, whose passes see both events.
      second = await spawnService(environment);
      await sleep(1000);
      await held.release();

      await expect.poll(() => arrivalsAbout(receiver, wantedId).length, DELIVERED).toBeGreaterThanOrEqual(1);
      // And the organization's events go on being delivered.
      const laterId = await addNewMember(second.baseUrl, token, organizationId);
      await expect.poll(() => arrivalsAbout(receiver, laterId).length, DELIVERED).toBeGreaterThanOrEqual(1);

      const deliveries = await restCall(baseUrl, 'GET', deliveriesPath(organizationId, webhookId), token);
      expect(deliveries.status).toBe(200);
      expect(deliveries.body.map((delivery: { event_type: string }) => delivery.event_type)).toEqual([
        'member.added',
        'member.added',
      ]);
      expect(receiver.requests.filter((request) => JSON.parse(request.body).type !== 'member.added')).toEqual([]);
      // The instance that lost the race failed nothing: no hand-out or pass was reported failed.
      expect([first, second].flatMap(deliveryWarnings)).toEqual([]);
    } finally {
      await held?.release();
      second?.kill();
      await second?.exited;
      await receiver.close();
    }
  });
});

describe('an organization whose hand-out fails at every pass', () => {
  failWithout(mariadb.missing);
  /** DB_TIMEOUT_MS: how long a pass waits for the held row before that organization's hand-out fails. */
  const BUDGET_MS = 1000;
  let service: ServiceProcess;
  let databaseUrl = '';
  let drop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const created = await mariadb.create();
    databaseUrl = created.url;
    drop = created.drop;
    [service] = (await spawnServices([
      { ...BASE_ENV, DATABASE_URL: databaseUrl, DB_TIMEOUT_MS: String(BUDGET_MS), WEBHOOK_RETRY_SCHEDULE: '1s,1s' },
    ])) as [ServiceProcess];
  }, 60_000);
  afterAll(async () => {
    service?.kill();
    await service?.exited;
    await drop();
  });

  it("holds up neither another organization's new events nor its due retries, and is reported", async () => {
    const stuckReceiver = await startReceiver();
    // The other endpoint's first attempt fails: its retry falls due a second later.
    const otherReceiver = await startReceiver([500]);
    let held: HeldRows | undefined;
    try {
      const { baseUrl } = service;
      const stuck = await ownerOfNewOrganization(baseUrl);
      const other = await ownerOfNewOrganization(baseUrl);
      const endpointOf = async (owner: typeof stuck, receiver: Receiver) => {
        const created = await restCall(baseUrl, 'POST', webhooksPath(owner.organizationId), owner.token, {
          url: receiver.url(),
          event_types: ['organization.updated'],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        return created.body.webhook_id as string;
      };
      const stuckEndpoint = await endpointOf(stuck, stuckReceiver);
      const otherEndpoint = await endpointOf(other, otherReceiver);

      // A delivery row names its endpoint (a foreign key): while another session holds the
      // endpoint's row, none can be written, and each hand-out of the organization fails after
      // DB_TIMEOUT_MS, as on a database that keeps a row locked.
      held = await holdRow(databaseUrl, 'select id from webhooks where id = ?', [stuckEndpoint]);
      await rename(baseUrl, stuck.token, stuck.organizationId);
      await expect.poll(() => deliveryWarnings(service).length, DELIVERED).toBeGreaterThan(0);

      await rename(baseUrl, other.token, other.organizationId);
      await expect
        .poll(async () => {
          const answer = await restCall(
            baseUrl,
            'GET',
            deliveriesPath(other.organizationId, otherEndpoint),
            other.token,
          );
          return answer.body.map((delivery: { status: string; attempts: number }) => [
            delivery.status,
            delivery.attempts,
          ]);
        }, DELIVERED)
        .toEqual([['succeeded', 2]]);
      expect(otherReceiver.requests.map((request) => request.answered)).toEqual([500, 200]);
      expect(stuckReceiver.requests).toEqual([]);
      // Each failure is reported with the organization it concerns: only the stuck one.
      const reported = deliveryWarnings(service).map((warning) => warning.err?.organizationId);
      expect(new Set(reported)).toEqual(new Set([stuck.organizationId]));

      await held.release();
      await expect.poll(() => stuckReceiver.requests.length, DELIVERED).toBe(1);
    } finally {
      await held?.release();
      await stuckReceiver.close();
      await otherReceiver.close();
    }
  });
});

describeOnEachDatabase('an organization left with a delivery after its read position', (target) => {
  const server = useServer(target, LOOPBACK_RECEIVERS);

  it('has its later events delivered, and that delivery is not made twice', async () => {
    const receiver = await startReceiver();
    try {
      const owner = await registerUser(server());
      const organizationId = await createOrganization(server(), owner);
      const endpoint = await createWebhook(server(), owner, organizationId, {
        url: receiver.url(),
        event_types: ['organization.updated'],
      });
      const sql = server().service.orm.em.getKysely<Database>();
      const position = async () =>
        (
          await sql
            .selectFrom('webhook_cursors')
            .select('last_event_id')
            .where('organization_id', '=', organizationId)
            .executeTakeFirstOrThrow()
        ).last_event_id;
      const start = await position();
      await rename(server().baseUrl, owner.token, organizationId);
      await expect.poll(() => receiver.requests.length, DELIVERED).toBe(1);
      // The position put back: the delivery just made is after it, as a racing instance's once was.
      await sql
        .updateTable('webhook_cursors')
        .set({ last_event_id: start })
        .where('organization_id', '=', organizationId)
        .execute();

      await rename(server().baseUrl, owner.token, organizationId);
      await expect.poll(() => receiver.requests.length, DELIVERED).toBe(2);
      const deliveries = await deliveriesOf(server(), owner, organizationId, endpoint.webhook_id);
      expect(deliveries.map((delivery) => delivery.status)).toEqual(['succeeded', 'succeeded']);
      const sent = receiver.requests.map((request) => request.headers['webhook-id']);
      expect(new Set(sent).size).toBe(2);
      expect(await position()).toBe(deliveries[0]!.event_id);
    } finally {
      await receiver.close();
    }
  });
});
