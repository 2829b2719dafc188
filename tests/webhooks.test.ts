/**
 * Webhooks (behaviour §13) end to end, on both databases, with real receivers on 127.0.0.1: the
 * endpoints over REST (with and without /api) and tRPC, their refusals and the URL guard; every
 * delivery signed as Standard Webhooks says and verified with the `standardwebhooks` package, its
 * body the event as the event list shows it; retries by the schedule, failures of every kind in the
 * delivery log, manual retries, endpoints disabled after failing for long enough; nothing sent for
 * a change that did not commit; and the events recorded for the endpoints themselves.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client/src/index.ts';
import type { AuditEvent } from '../shared/events.ts';
import type { DeliveryView, WebhookView } from '../shared/webhooks.ts';
import { rejection } from './support/api-errors.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { organizationWithRoles } from './support/lifecycle.ts';
import { useServer, type TestServer } from './support/server.ts';
import {
  createWebhook,
  deliveriesOf,
  deliveriesPath,
  retryPath,
  rotateSecretPath,
  startReceiver,
  startTricklingReceiver,
  webhookPath,
  webhooksPath,
  type ReceivedRequest,
  type Receiver,
  type Responder,
} from './support/webhooks.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** `whsec_` and the base64 of 32 bytes. */
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

/** The wait before each retry, and how many attempts a delivery gets: the first and one per wait. */
const RETRY_WAIT_MS = 1_000;
const ATTEMPTS = 3;
const TIMEOUT_MS = 1_500;
/** Receivers on loopback over plain http, a short schedule and timeout: the settings the tests deliver with. */
const DELIVERING = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1s,1s',
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
};
/** Several of the dispatcher's 200 ms polls: what was going to be sent has been sent by then. */
const QUIET_MS = 1_500;
/** Long enough for every attempt of a delivery, retries included. */
const POLL = { timeout: 15_000, interval: 50 };

const badRequest = (field: string | RegExp) => ({
  code: 'BAD_REQUEST',
  message: expect.any(String),
  issues: expect.arrayContaining([
    expect.objectContaining({ field: typeof field === 'string' ? field : expect.stringMatching(field) }),
  ]),
});

const nextLink = (headers: Headers) => /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '')?.[1];

/** An endpoint as every answer but its creation shows it: without the secret. */
const withoutSecret = (created: WebhookView & { secret: string }): WebhookView => {
  const endpoint: WebhookView & { secret?: string } = { ...created };
  delete endpoint.secret;
  return endpoint;
};

const summary = ({ type, actor_user_id, subject_user_id, data }: AuditEvent) => ({
  type,
  actor_user_id,
  subject_user_id,
  data,
});

/** The Standard Webhooks headers of a received delivery, as a receiver passes them to `verify`. */
const signed = (request: ReceivedRequest) => ({
  'webhook-id': request.headers['webhook-id']!,
  'webhook-timestamp': request.headers['webhook-timestamp']!,
  'webhook-signature': request.headers['webhook-signature']!,
});

const verify = (secret: string, request: ReceivedRequest) => new Webhook(secret).verify(request.body, signed(request));

const idsOf = (requests: ReceivedRequest[]) => requests.map((request) => request.headers['webhook-id']);

describeOnEachDatabase('webhooks (behaviour §13)', (target) => {
  const server = useServer(target, DELIVERING);

  const started: Receiver[] = [];
  /**
   * A receiver for one test; all are closed at the end, not after each test, as some tests run
   * concurrently.
   */
  const receiver = async (responder?: Responder) => {
    const one = await startReceiver(responder);
    started.push(one);
    return one;
  };
  afterAll(async () => {
    await Promise.all(started.map((each) => each.close()));
  });

  const trpc = (user: TestUser) => createClient({ url: server().baseUrl, token: user.token });
  const send = (actor: TestUser, method: string, path: string, body?: unknown, on: TestServer = server()) =>
    on.call(method, path, { token: actor.token, body });

  const eventsOf = async (viewer: TestUser, organizationId: string, on: TestServer = server()) => {
    const listed = await send(viewer, 'GET', `/organizations/${organizationId}/events?limit=1000`, undefined, on);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    return listed.body as AuditEvent[];
  };
  const webhookEvents = async (viewer: TestUser, organizationId: string, on?: TestServer) =>
    (await eventsOf(viewer, organizationId, on)).filter((event) => event.type.startsWith('webhook.'));

  let descriptions = 0;
  /** A committed change of the organization: one `organization.updated` event. */
  const changeOrganization = async (owner: TestUser, organizationId: string, on: TestServer = server()) => {
    const changed = await send(
      owner,
      'PUT',
      `/organizations/${organizationId}`,
      { organization_description: `description ${++descriptions}` },
      on,
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  };

  /** The endpoint's one delivery (the test made one event it asks for). */
  const onlyDelivery = async (owner: TestUser, organizationId: string, webhookId: string) => {
    const deliveries = await deliveriesOf(server(), owner, organizationId, webhookId);
    expect(deliveries).toHaveLength(1);
    return deliveries[0]!;
  };

  /** An organization and its owner, with an endpoint for `event_types` at a new receiver. */
  async function endpointAt(
    responder: Responder | undefined,
    eventTypes: string[] = ['organization.updated'],
    on: TestServer = server(),
  ) {
    const owner = await registerUser(on, 'owner');
    const organizationId = await createOrganization(on, owner);
    const hook = await receiver(responder);
    const endpoint = await createWebhook(on, owner, organizationId, { url: hook.url(), event_types: eventTypes });
    return { owner, organizationId, hook, endpoint };
  }

  describe('managing endpoints', () => {
    it.each(['', '/api'])(
      'creates (201, with its secret), reads, lists, rotates and deletes an endpoint over REST (prefix "%s")',
      async (prefix) => {
        const owner = await registerUser(server(), 'owner');
        const organizationId = await createOrganization(server(), owner);
        const url = 'http://127.0.0.1:9/never-called';
        const created = await send(owner, 'POST', webhooksPath(organizationId, prefix), {
          url,
          event_types: ['member.added', 'member.removed'],
          description: 'CRM sync',
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toEqual({
          webhook_id: expect.stringMatching(UUID_V7),
          organization_id: organizationId,
          url,
          event_types: ['member.added', 'member.removed'],
          description: 'CRM sync',
          enabled: true,
          disabled_reason: null,
          created_at: expect.stringMatching(ISO_MS),
          updated_at: created.body.created_at,
          secret: expect.stringMatching(SECRET),
        });
        const endpoint = withoutSecret(created.body);
        const webhookId = endpoint.webhook_id;

        const read = await send(owner, 'GET', webhookPath(organizationId, webhookId, prefix));
        expect(read).toMatchObject({ status: 200, body: endpoint });
        expect(read.body).toEqual(endpoint);
        const listed = await send(owner, 'GET', webhooksPath(organizationId, prefix));
        expect(listed).toMatchObject({ status: 200, body: [endpoint] });

        const rotated = await send(owner, 'POST', rotateSecretPath(organizationId, webhookId, prefix));
        expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
        expect(rotated.body).toEqual({ secret: expect.stringMatching(SECRET) });
        expect(rotated.body.secret).not.toBe(created.body.secret);
        const afterRotation = await send(owner, 'GET', webhookPath(organizationId, webhookId, prefix));
        expect(afterRotation.body).toEqual({ ...endpoint, updated_at: expect.stringMatching(ISO_MS) });

        const deleted = await send(owner, 'DELETE', webhookPath(organizationId, webhookId, prefix));
        expect(deleted).toMatchObject({ status: 200, body: { message: expect.any(String) } });
        for (const path of [
          webhookPath(organizationId, webhookId, prefix),
          deliveriesPath(organizationId, webhookId, prefix),
        ]) {
          expect((await send(owner, 'GET', path)).status).toBe(404);
        }
        expect((await send(owner, 'DELETE', webhookPath(organizationId, webhookId, prefix))).status).toBe(404);
        expect((await send(owner, 'GET', webhooksPath(organizationId, prefix))).body).toEqual([]);

        // behaviour §13: the events name the endpoint and never carry its secret.
        const events = await webhookEvents(owner, organizationId);
        expect(events.map(summary)).toEqual([
          {
            type: 'webhook.created',
            actor_user_id: owner.id,
            subject_user_id: null,
            data: {
              webhook_id: webhookId,
              url,
              event_types: ['member.added', 'member.removed'],
              description: 'CRM sync',
            },
          },
          {
            type: 'webhook.updated',
            actor_user_id: owner.id,
            subject_user_id: null,
            data: { webhook_id: webhookId, changes: {}, secret_rotated: true },
          },
          {
            type: 'webhook.deleted',
            actor_user_id: owner.id,
            subject_user_id: null,
            data: { webhook_id: webhookId, url },
          },
        ]);
        const everything = JSON.stringify(await eventsOf(owner, organizationId));
        expect(everything).not.toContain(created.body.secret);
        expect(everything).not.toContain(rotated.body.secret);
      },
    );

    it('answers a repeated creation or rotation with the same Idempotency-Key 409, never its secret again', async () => {
      const owner = await registerUser(server(), 'owner');
      const organizationId = await createOrganization(server(), owner);
      const repeated = async (path: string, body?: object) => {
        const headers = { 'idempotency-key': `secret-${path}` };
        const first = await server().call('POST', path, { token: owner.token, body, headers });
        const again = await server().call('POST', path, { token: owner.token, body, headers });
        expect(first.body.secret).toMatch(SECRET);
        expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'CONFLICT' });
        expect(JSON.stringify(again.body)).not.toContain(first.body.secret);
        return first.body;
      };
      const created = await repeated(webhooksPath(organizationId), {
        url: 'http://127.0.0.1:9/never-called',
        event_types: ['member.added'],
      });
      await repeated(rotateSecretPath(organizationId, created.webhook_id));
      expect((await send(owner, 'GET', webhooksPath(organizationId))).body).toHaveLength(1);
    });

    it('changes each field, records what changed, and changes nothing (nor updated_at) when nothing differs', async () => {
      const { owner, admin, organizationId } = await organizationWithRoles(server());
      const endpoint = withoutSecret(
        await createWebhook(server(), owner, organizationId, {
          url: 'http://127.0.0.1:9/first',
          event_types: ['member.added'],
        }),
      );
      expect(endpoint.description).toBe('');
      const path = webhookPath(organizationId, endpoint.webhook_id);
      const steps: [Record<string, unknown>, Partial<WebhookView>][] = [
        [{ url: 'http://127.0.0.1:9/second' }, { url: 'http://127.0.0.1:9/second' }],
        [{ event_types: ['*'] }, { event_types: ['*'] }],
        [{ description: 'Audit copy' }, { description: 'Audit copy' }],
        [{ enabled: false }, { enabled: false, disabled_reason: null }],
        [
          { enabled: true, event_types: ['member.added', 'team.created'] },
          { enabled: true, event_types: ['member.added', 'team.created'] },
        ],
      ];
      let current = endpoint;
      for (const [body, expected] of steps) {
        const changed = await send(admin, 'PUT', path, body);
        expect(changed.status, JSON.stringify(changed.body)).toBe(200);
        current = { ...current, ...expected, updated_at: changed.body.updated_at };
        expect(changed.body).toEqual(current);
        expect(Date.parse(changed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(endpoint.updated_at));
        expect((await send(owner, 'GET', path)).body).toEqual(current);
      }

      const eventsBefore = await eventsOf(owner, organizationId);
      const unchanged = await send(owner, 'PUT', path, {
        url: current.url,
        event_types: current.event_types,
        description: current.description,
        enabled: true,
      });
      expect(unchanged).toMatchObject({ status: 200, body: current });
      expect((await send(owner, 'GET', path)).body).toEqual(current);
      expect(await eventsOf(owner, organizationId)).toEqual(eventsBefore);

      const updates = (await webhookEvents(owner, organizationId)).filter((event) => event.type === 'webhook.updated');
      expect(updates.map(summary)).toEqual(
        [
          { url: { from: 'http://127.0.0.1:9/first', to: 'http://127.0.0.1:9/second' } },
          { event_types: { from: ['member.added'], to: ['*'] } },
          { description: { from: '', to: 'Audit copy' } },
          { enabled: { from: true, to: false } },
          { enabled: { from: false, to: true }, event_types: { from: ['*'], to: ['member.added', 'team.created'] } },
        ].map((changes) => ({
          type: 'webhook.updated',
          actor_user_id: admin.id,
          subject_user_id: null,
          data: { webhook_id: endpoint.webhook_id, changes },
        })),
      );
    });

    it('lists oldest first, a page at a time, and refuses a 21st endpoint (409)', async () => {
      const owner = await registerUser(server(), 'owner');
      const organizationId = await createOrganization(server(), owner);
      const endpoints: WebhookView[] = [];
      for (let index = 0; index < 20; index++) {
        const created = await createWebhook(server(), owner, organizationId, {
          url: `http://127.0.0.1:9/hook-${index}`,
          event_types: ['member.added'],
        });
        endpoints.push(withoutSecret(created));
      }
      const refused = await send(owner, 'POST', webhooksPath(organizationId), {
        url: 'http://127.0.0.1:9/hook-20',
        event_types: ['member.added'],
      });
      expect(refused).toMatchObject({ status: 409, body: { code: 'CONFLICT', message: expect.any(String) } });

      const whole = await send(owner, 'GET', webhooksPath(organizationId));
      expect(whole.body).toEqual(endpoints);
      expect(whole.headers.get('link')).toBeNull();

      const pages: WebhookView[][] = [];
      let next: string | undefined = `${webhooksPath(organizationId, '/api')}?limit=7`;
      while (next) {
        const page = await send(owner, 'GET', next);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        pages.push(page.body);
        next = nextLink(page.headers);
      }
      expect(pages.map((page) => page.length)).toEqual([7, 7, 6]);
      expect(pages.flat()).toEqual(endpoints);

      const api = trpc(owner);
      expect(await api.webhooks.list.query({ organization_id: organizationId })).toEqual(endpoints);
      const first = await api.webhooks.page.query({ organization_id: organizationId, limit: 15 });
      expect(first.items).toEqual(endpoints.slice(0, 15));
      const second = await api.webhooks.page.query({
        organization_id: organizationId,
        limit: 15,
        cursor: first.nextCursor,
      });
      expect(second).toEqual({ items: endpoints.slice(15), nextCursor: null });

      // Room again once one is deleted.
      expect((await send(owner, 'DELETE', webhookPath(organizationId, endpoints[0]!.webhook_id))).status).toBe(200);
      await createWebhook(server(), owner, organizationId, {
        url: 'http://127.0.0.1:9/hook-20',
        event_types: ['member.added'],
      });
    });

    it('serves every procedure over tRPC', async () => {
      const { owner, organizationId, hook, endpoint } = await endpointAt([]);
      const api = trpc(owner);
      const ids = { organization_id: organizationId, webhook_id: endpoint.webhook_id };
      const created = await api.webhooks.create.mutate({
        organization_id: organizationId,
        url: hook.url('/second'),
        event_types: ['team.created'],
        description: 'second',
      });
      expect(created).toMatchObject({ url: hook.url('/second'), secret: expect.stringMatching(SECRET) });
      expect(await api.webhooks.get.query(ids)).toEqual(withoutSecret(endpoint));
      expect(await api.webhooks.list.query({ organization_id: organizationId })).toEqual([
        withoutSecret(endpoint),
        withoutSecret(created),
      ]);
      const updated = await api.webhooks.update.mutate({ ...ids, description: 'over tRPC' });
      expect(updated).toEqual({ ...withoutSecret(endpoint), description: 'over tRPC', updated_at: updated.updated_at });
      expect(await api.webhooks.rotateSecret.mutate(ids)).toEqual({ secret: expect.stringMatching(SECRET) });

      await changeOrganization(owner, organizationId);
      await expect.poll(() => hook.requests.length, POLL).toBe(1);
      await expect
        .poll(async () => (await api.webhooks.deliveries.query(ids)).map((each) => each.status), POLL)
        .toEqual(['succeeded']);
      const [delivery] = await api.webhooks.deliveries.query(ids);
      expect(await api.webhooks.deliveriesPage.query({ ...ids, limit: 5 })).toEqual({
        items: [delivery],
        nextCursor: null,
      });
      const retried = await api.webhooks.retryDelivery.mutate({ ...ids, delivery_id: delivery!.delivery_id });
      expect(retried).toMatchObject({ delivery_id: delivery!.delivery_id, status: 'pending' });
      await expect.poll(() => hook.requests.length, POLL).toBe(2);

      expect(await api.webhooks.remove.mutate(ids)).toEqual({ message: expect.any(String) });
      expect((await rejection(api.webhooks.get.query(ids))).status).toBe(404);
      expect((await rejection(api.webhooks.deliveriesPage.query(ids))).status).toBe(404);
    });

    it('answers 404 for an endpoint or delivery the organization does not have', async () => {
      const owner = await registerUser(server(), 'owner');
      const organizationId = await createOrganization(server(), owner);
      const endpoint = await createWebhook(server(), owner, organizationId, {
        url: 'http://127.0.0.1:9/',
        event_types: ['member.added'],
      });
      // Another organization's endpoint is not this one's.
      const other = await createOrganization(server(), owner);
      const requests: [string, string, unknown?][] = [
        ['GET', webhookPath(organizationId, UNKNOWN_ID)],
        ['PUT', webhookPath(organizationId, UNKNOWN_ID), { description: 'x' }],
        ['DELETE', webhookPath(organizationId, UNKNOWN_ID)],
        ['POST', rotateSecretPath(organizationId, UNKNOWN_ID)],
        ['GET', deliveriesPath(organizationId, UNKNOWN_ID)],
        ['GET', webhookPath(other, endpoint.webhook_id)],
        ['POST', retryPath(organizationId, endpoint.webhook_id, UNKNOWN_ID)],
        ['POST', retryPath(organizationId, UNKNOWN_ID, UNKNOWN_ID)],
      ];
      for (const [method, path, body] of requests) {
        const answer = await send(owner, method, path, body);
        expect(answer, `${method} ${path}`).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      }
    });
  });

  describe('refusals', () => {
    let owner: TestUser;
    let member: TestUser;
    let outsider: TestUser;
    let organizationId: string;
    let endpoint: WebhookView;
    let delivery: DeliveryView;
    /** An endpoint with one delivery made, for the refusals to leave as they are. */
    beforeAll(async () => {
      ({ owner, member, outsider, organizationId } = await organizationWithRoles(server()));
      const sink = await receiver();
      endpoint = withoutSecret(
        await createWebhook(server(), owner, organizationId, {
          url: sink.url(),
          event_types: ['organization.updated'],
        }),
      );
      await changeOrganization(owner, organizationId);
      delivery = await vi.waitFor(async () => {
        const [made] = await deliveriesOf(server(), owner, organizationId, endpoint.webhook_id);
        expect(made?.status).toBe('succeeded');
        return made!;
      }, POLL);
    });

    const valid = { url: 'http://127.0.0.1:9/valid', event_types: ['member.added'] };
    const longUrl = (length: number) => {
      const base = 'http://127.0.0.1:9/';
      return base + 'a'.repeat(length - base.length);
    };
    /** A field's invalid value, and the field the 400 names. */
    const invalidFields: [string, Record<string, unknown>, string | RegExp][] = [
      ['a url that is not a URL', { url: 'not a url' }, 'url'],
      ['an ftp url', { url: 'ftp://127.0.0.1/hook' }, 'url'],
      ['a url of 2,049 characters', { url: longUrl(2049) }, 'url'],
      ['a url with a user and password', { url: 'http://user:secret@127.0.0.1:9/' }, 'url'],
      // Kept as sent or refused: the URL parser would have stored U+FFFD and percent-encoded the rest.
      ['a url with a lone surrogate', { url: 'http://127.0.0.1:9/a\ud800b' }, 'url'],
      ['a url with a lone surrogate in its query', { url: 'http://127.0.0.1:9/a?q=\udc00' }, 'url'],
      ['a url with a NUL', { url: 'http://127.0.0.1:9/a\u0000b' }, 'url'],
      ['a url with a control character in its fragment', { url: 'http://127.0.0.1:9/a#\u0007' }, 'url'],
      ['a url with DEL', { url: 'http://127.0.0.1:9/a\u007f' }, 'url'],
      ['an unknown event type', { event_types: ['member.added', 'member.invented'] }, /^event_types/],
      ['no event types', { event_types: [] }, /^event_types/],
      ['a repeated event type', { event_types: ['member.added', 'member.added'] }, /^event_types/],
      ['"*" with other types', { event_types: ['*', 'member.added'] }, /^event_types/],
      ['a description of 501 characters', { description: 'd'.repeat(501) }, 'description'],
    ];

    it.each(invalidFields)('refuses to create an endpoint with %s (400)', async (_case, invalid, field) => {
      const refused = await send(owner, 'POST', webhooksPath(organizationId), { ...valid, ...invalid });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body).toEqual(badRequest(field));
      expect((await send(owner, 'GET', webhooksPath(organizationId))).body).toEqual([endpoint]);
    });

    it.each(invalidFields)('refuses to change an endpoint to %s (400)', async (_case, invalid, field) => {
      const refused = await send(owner, 'PUT', webhookPath(organizationId, endpoint.webhook_id), invalid);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body).toEqual(badRequest(field));
      expect((await send(owner, 'GET', webhookPath(organizationId, endpoint.webhook_id))).body).toEqual(endpoint);
    });

    it('accepts a url of 2,048 characters and a description of 500', async () => {
      const other = await createOrganization(server(), owner);
      const created = await createWebhook(server(), owner, other, {
        url: longUrl(2048),
        event_types: ['*'],
        description: 'd'.repeat(500),
      });
      expect(created.url).toHaveLength(2048);
    });

    it('refuses a change that names no field (400)', async () => {
      const refused = await send(owner, 'PUT', webhookPath(organizationId, endpoint.webhook_id), {});
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    });

    it('refuses a member without webhooks:manage and a non-member (403), whatever they ask', async () => {
      const webhookId = endpoint.webhook_id;
      const requests: [string, string, unknown?][] = [
        ['GET', webhooksPath(organizationId)],
        ['POST', webhooksPath(organizationId), valid],
        ['GET', webhookPath(organizationId, webhookId)],
        ['PUT', webhookPath(organizationId, webhookId), { description: 'taken over' }],
        ['DELETE', webhookPath(organizationId, webhookId)],
        ['POST', rotateSecretPath(organizationId, webhookId)],
        ['GET', deliveriesPath(organizationId, webhookId)],
        ['POST', retryPath(organizationId, webhookId, delivery.delivery_id)],
      ];
      const eventsBefore = await eventsOf(owner, organizationId);
      for (const caller of [member, outsider]) {
        for (const [method, path, body] of requests) {
          const answer = await send(caller, method, path, body);
          expect(answer, `${method} ${path}`).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
          expect(JSON.stringify(answer.body)).not.toContain('whsec_');
        }
        const api = trpc(caller);
        const ids = { organization_id: organizationId, webhook_id: webhookId };
        // One at a time: a call made before the one before it is awaited would reject unhandled.
        for (const call of [
          () => api.webhooks.list.query({ organization_id: organizationId }),
          () => api.webhooks.deliveriesPage.query(ids),
          () => api.webhooks.retryDelivery.mutate({ ...ids, delivery_id: delivery.delivery_id }),
        ]) {
          expect((await rejection(call())).status).toBe(403);
        }
      }
      expect((await send(owner, 'GET', webhooksPath(organizationId))).body).toEqual([endpoint]);
      expect(await deliveriesOf(server(), owner, organizationId, webhookId)).toEqual([delivery]);
      expect(await eventsOf(owner, organizationId)).toEqual(eventsBefore);
    });
  });

  describe('with the default URL guard (https, public addresses only)', () => {
    const strict = useServer(target);

    it('refuses plain http, credentials and loopback addresses at creation (400 on url), connecting nowhere', async () => {
      const owner = await registerUser(strict(), 'owner');
      const organizationId = await createOrganization(strict(), owner);
      const listening = await receiver();
      const port = new URL(listening.url()).port;
      for (const url of [
        `http://127.0.0.1:${port}/hook`,
        `https://user:password@127.0.0.1:${port}/hook`,
        `https://127.0.0.1:${port}/hook`,
        `https://[::1]:${port}/hook`,
        `https://localhost:${port}/hook`,
      ]) {
        const refused = await send(owner, 'POST', webhooksPath(organizationId), { url, event_types: ['*'] }, strict());
        expect(refused.status, `${url}: ${JSON.stringify(refused.body)}`).toBe(400);
        expect(refused.body).toEqual(badRequest('url'));
      }
      expect((await send(owner, 'GET', webhooksPath(organizationId), undefined, strict())).body).toEqual([]);
      expect(listening.connections()).toBe(0);
    });
  });

  describe('deliveries', () => {
    it('signs every delivery so that standardwebhooks verifies it; its body is the event as the event list shows it', async () => {
      const { owner, organizationId, hook, endpoint } = await endpointAt([], ['*']);
      await changeOrganization(owner, organizationId);
      await expect.poll(() => hook.requests.length, POLL).toBe(1);
      const [request] = hook.requests as [ReceivedRequest];

      expect(request).toMatchObject({ method: 'POST', path: '/hook' });
      expect(request.headers['content-type']).toMatch(/^application\/json\b/);
      expect(request.headers['user-agent']).toBe('org-user-service-webhooks');
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      const payload = verify(endpoint.secret, request);

      const events = await eventsOf(owner, organizationId);
      const event = events.find((each) => each.event_id === request.headers['webhook-id']);
      expect(event?.type).toBe('organization.updated');
      expect(payload).toEqual({ type: event!.type, timestamp: event!.created_at, data: event });
      expect(JSON.parse(request.body)).toEqual(payload);

      // A receiver holding another secret, or given a body changed on the way, refuses it.
      const otherSecret = (await send(owner, 'POST', rotateSecretPath(organizationId, endpoint.webhook_id))).body
        .secret as string;
      expect(() => verify(otherSecret, request)).toThrow(WebhookVerificationError);
      const tampered = request.body.replace('description ', 'Description ');
      expect(tampered).not.toBe(request.body);
      expect(() => new Webhook(endpoint.secret).verify(tampered, signed(request))).toThrow(WebhookVerificationError);

      // The same delivery signed as of 10 minutes before: outside the library's tolerance.
      const tenMinutesBefore = new Date((Number(request.headers['webhook-timestamp']) - 600) * 1000);
      const stale = {
        ...signed(request),
        'webhook-timestamp': String(tenMinutesBefore.getTime() / 1000),
        'webhook-signature': new Webhook(endpoint.secret).sign(
          request.headers['webhook-id']!,
          tenMinutesBefore,
          request.body,
        ),
      };
      expect(() => new Webhook(endpoint.secret).verify(request.body, stale)).toThrow('Message timestamp too old');
    });

    it('signs with the new secret and the one it replaced after a rotation', async () => {
      const { owner, organizationId, hook, endpoint } = await endpointAt([]);
      await changeOrganization(owner, organizationId);
      await expect.poll(() => hook.requests.length, POLL).toBe(1);
      expect(verify(endpoint.secret, hook.requests[0]!)).toBeTruthy();

      const rotated = await send(owner, 'POST', rotateSecretPath(organizationId, endpoint.webhook_id));
      expect(rotated.status).toBe(200);
      await changeOrganization(owner, organizationId);
      await expect.poll(() => hook.requests.length, POLL).toBe(2);
      const afterRotation = hook.requests[1]!;
      expect(afterRotation.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(verify(rotated.body.secret, afterRotation)).toEqual(verify(endpoint.secret, afterRotation));
      expect(() => verify(rotated.body.secret, hook.requests[0]!)).toThrow(WebhookVerificationError);
    });

    it('sends what each endpoint asks for, only events after its creation, with the event id as webhook-id', async () => {
      const { owner, organizationId, member } = await organizationWithRoles(server());
      // Before any endpoint: no one receives it.
      await changeOrganization(owner, organizationId);
      const hook = await receiver();
      const create = (path: string, eventTypes: string[]) =>
        createWebhook(server(), owner, organizationId, { url: hook.url(path), event_types: eventTypes });
      const memberEvents = await create('/members', ['member.role_changed']);
      const organizationEvents = await create('/organization', ['organization.updated']);
      const everyEvent = await create('/all', ['*']);

      const changedRole = await server().call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: member.id, role: 'admin' },
      });
      expect(changedRole.status, JSON.stringify(changedRole.body)).toBe(200);
      await changeOrganization(owner, organizationId);

      const events = await eventsOf(owner, organizationId);
      const lastCreation = events.findIndex(
        (event) => event.type === 'webhook.created' && event.data.webhook_id === everyEvent.webhook_id,
      );
      const after = events.slice(lastCreation + 1);
      expect(after.map((event) => event.type)).toEqual(['member.role_changed', 'organization.updated']);
      const [roleChanged, organizationUpdated] = after.map((event) => event.event_id);

      // The log is written as the events are handed out, all endpoints at once: once the last
      // event is in one log, every log holds all it will for these events.
      // (Deliveries made in one pass share their created_at: their order in the log is left open.)
      const loggedIds = async (webhookId: string) =>
        (await deliveriesOf(server(), owner, organizationId, webhookId)).map((each) => each.event_id).sort();
      await expect.poll(() => loggedIds(everyEvent.webhook_id), POLL).toEqual([roleChanged, organizationUpdated]);
      expect(await loggedIds(memberEvents.webhook_id)).toEqual([roleChanged]);
      expect(await loggedIds(organizationEvents.webhook_id)).toEqual([organizationUpdated]);

      await expect.poll(() => hook.requests.length, POLL).toBe(4);
      expect(idsOf(hook.at('/members'))).toEqual([roleChanged]);
      expect(idsOf(hook.at('/organization'))).toEqual([organizationUpdated]);
      expect(new Set(idsOf(hook.at('/all')))).toEqual(new Set([roleChanged, organizationUpdated]));
      const secrets: Record<string, string> = {
        '/members': memberEvents.secret,
        '/organization': organizationEvents.secret,
        '/all': everyEvent.secret,
      };
      for (const request of hook.requests) {
        const payload = verify(secrets[request.path]!, request) as { data: AuditEvent };
        expect(payload.data.event_id).toBe(request.headers['webhook-id']);
      }
    });

    it('logs deliveries newest first, a page at a time, with the answer of each, and retries one on request (202, same webhook-id)', async () => {
      const { owner, organizationId, hook, endpoint } = await endpointAt(() => ({ status: 200, body: '{"ok":true}' }));
      for (let count = 1; count <= 3; count++) {
        await changeOrganization(owner, organizationId);
        await expect.poll(() => hook.requests.length, POLL).toBe(count);
      }
      const arrived = idsOf(hook.requests);
      const path = deliveriesPath(organizationId, endpoint.webhook_id);
      await expect
        .poll(
          async () => (await deliveriesOf(server(), owner, organizationId, endpoint.webhook_id)).map((d) => d.status),
          POLL,
        )
        .toEqual(['succeeded', 'succeeded', 'succeeded']);
      const whole = (await send(owner, 'GET', path)).body as DeliveryView[];
      expect(whole.map((each) => each.event_id)).toEqual([...arrived].reverse());
      const sentBodies = new Map(hook.requests.map((request) => [request.headers['webhook-id'], request.body]));
      for (const delivery of whole) {
        expect(delivery).toEqual({
          delivery_id: expect.stringMatching(UUID_V7),
          event_id: delivery.event_id,
          event_type: 'organization.updated',
          status: 'succeeded',
          attempts: 1,
          last_status_code: 200,
          last_error: null,
          // A success keeps the receiver's answer too.
          response_body: '{"ok":true}',
          next_attempt_at: null,
          created_at: expect.stringMatching(ISO_MS),
          updated_at: expect.stringMatching(ISO_MS),
          // The log shows the body that was sent.
          payload: JSON.parse(sentBodies.get(delivery.event_id)!) as unknown,
        });
      }

      const first = await send(owner, 'GET', `/api${path}?limit=2`);
      expect(first.body).toEqual(whole.slice(0, 2));
      const second = await send(owner, 'GET', nextLink(first.headers)!);
      expect(second.body).toEqual(whole.slice(2));
      expect(nextLink(second.headers)).toBeUndefined();
      const ids = { organization_id: organizationId, webhook_id: endpoint.webhook_id };
      const page = await trpc(owner).webhooks.deliveriesPage.query({ ...ids, limit: 2 });
      expect(page.items).toEqual(whole.slice(0, 2));
      expect(await trpc(owner).webhooks.deliveriesPage.query({ ...ids, limit: 2, cursor: page.nextCursor })).toEqual({
        items: whole.slice(2),
        nextCursor: null,
      });

      const oldest = whole.at(-1)!;
      const eventsBefore = await eventsOf(owner, organizationId);
      const retried = await send(owner, 'POST', retryPath(organizationId, endpoint.webhook_id, oldest.delivery_id));
      expect(retried.status, JSON.stringify(retried.body)).toBe(202);
      expect(await eventsOf(owner, organizationId)).toEqual(eventsBefore);
      expect(retried.body).toEqual({
        ...oldest,
        status: 'pending',
        next_attempt_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });
      await expect.poll(() => hook.requests.length, POLL).toBe(4);
      expect(hook.requests[3]!.headers['webhook-id']).toBe(oldest.event_id);
      expect(hook.requests[3]!.body).toBe(hook.requests[0]!.body);
      await expect
        .poll(async () => (await send(owner, 'GET', path)).body.at(-1), POLL)
        .toMatchObject({ delivery_id: oldest.delivery_id, status: 'succeeded', attempts: 2 });
    });

    it("keeps the first KiB of a successful attempt's answer, without the character the KiB cuts", async () => {
      // 1200 bytes of UTF-8, 3 a character: the 1024th byte falls inside the 342nd.
      const answer = '€'.repeat(400);
      const { owner, organizationId, hook, endpoint } = await endpointAt(() => ({ status: 200, body: answer }));
      await changeOrganization(owner, organizationId);
      await expect
        .poll(() => onlyDelivery(owner, organizationId, endpoint.webhook_id), POLL)
        .toMatchObject({ status: 'succeeded' });
      expect(hook.requests).toHaveLength(1);
      const delivery = await onlyDelivery(owner, organizationId, endpoint.webhook_id);
      expect(delivery).toMatchObject({ last_status_code: 200, last_error: null, response_body: '€'.repeat(341) });
      expect(Buffer.byteLength(delivery.response_body!)).toBe(1023);
    });
  });

  // Each of these waits for retries: they run side by side, each with its own organization and receiver.
  describe.concurrent('failed attempts and retries', () => {
    const deliveryState = (owner: TestUser, organizationId: string, webhookId: string) => () =>
      onlyDelivery(owner, organizationId, webhookId);

    it('retries by the schedule until a 2xx, which ends the delivery', async ({ expect }) => {
      const { owner, organizationId, hook, endpoint } = await endpointAt([
        { status: 500, body: 'busy' },
        { status: 503, body: 'still busy' },
        { status: 200, body: '{"ok":true}' },
      ]);
      await changeOrganization(owner, organizationId);
      await expect
        .poll(deliveryState(owner, organizationId, endpoint.webhook_id), POLL)
        .toMatchObject({ status: 'succeeded' });
      expect(hook.requests.map((request) => request.answered)).toEqual([500, 503, 200]);
      expect(new Set(idsOf(hook.requests)).size).toBe(1);
      for (const [index, request] of hook.requests.entries()) {
        verify(endpoint.secret, request);
        if (index > 0) {
          expect(request.arrivedAt - hook.requests[index - 1]!.arrivedAt).toBeGreaterThanOrEqual(RETRY_WAIT_MS);
        }
      }
      expect(await onlyDelivery(owner, organizationId, endpoint.webhook_id)).toMatchObject({
        status: 'succeeded',
        attempts: ATTEMPTS,
        last_status_code: 200,
        last_error: null,
        // The last attempt's answer: the failed ones' are not kept.
        response_body: '{"ok":true}',
        next_attempt_at: null,
      });
    });

    it('fails a delivery after the last retry, keeping at most 1 KiB of the answer; a manual retry makes one more attempt', async ({
      expect,
    }) => {
      const answer = Array.from({ length: 256 }, (_, line) => `line ${String(line).padStart(3, '0')} of the answer\n`)
        .join('')
        .slice(0, 5 * 1024);
      const { owner, organizationId, hook, endpoint } = await endpointAt(() => ({ status: 500, body: answer }));
      await changeOrganization(owner, organizationId);
      const state = deliveryState(owner, organizationId, endpoint.webhook_id);
      await expect.poll(state, POLL).toMatchObject({ status: 'failed' });
      const failed = await state();
      expect(failed).toMatchObject({
        attempts: ATTEMPTS,
        last_status_code: 500,
        last_error: expect.stringMatching(/^HTTP 500: line 000 of the answer\n/),
        next_attempt_at: null,
      });
      expect(hook.requests).toHaveLength(ATTEMPTS);
      const excerpt = failed.last_error!.slice('HTTP 500: '.length);
      expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(1024);
      expect(answer.startsWith(excerpt)).toBe(true);
      // The answer is kept whole too, its first KiB (one byte a character here).
      expect(failed.response_body).toBe(answer.slice(0, 1024));

      const retried = await send(owner, 'POST', retryPath(organizationId, endpoint.webhook_id, failed.delivery_id));
      expect(retried).toMatchObject({ status: 202, body: { status: 'pending', attempts: ATTEMPTS } });
      await expect.poll(state, POLL).toMatchObject({ status: 'failed', attempts: ATTEMPTS + 1 });
      expect(hook.requests).toHaveLength(ATTEMPTS + 1);
      await sleep(QUIET_MS);
      expect(hook.requests).toHaveLength(ATTEMPTS + 1);
      expect(await state()).toMatchObject({ status: 'failed', attempts: ATTEMPTS + 1 });
    });

    it('does not follow a redirect: a failed attempt, and the target receives nothing', async ({ expect }) => {
      const target = await receiver();
      const { owner, organizationId, hook, endpoint } = await endpointAt(() => ({
        status: 302,
        headers: { location: target.url('/moved') },
      }));
      await changeOrganization(owner, organizationId);
      await expect
        .poll(deliveryState(owner, organizationId, endpoint.webhook_id), POLL)
        .toMatchObject({ last_status_code: 302, last_error: 'Redirect 302 (not followed)', response_body: '' });
      expect(hook.requests.length).toBeGreaterThanOrEqual(1);
      expect(target.requests).toEqual([]);
    });

    it('fails an attempt not answered within WEBHOOK_TIMEOUT_MS; a retry is refused (409) while it is under way', async ({
      expect,
    }) => {
      let released = false;
      const { owner, organizationId, hook, endpoint } = await endpointAt(async () => {
        await sleep(TIMEOUT_MS * 2);
        released = true;
        return 200;
      });
      await changeOrganization(owner, organizationId);
      await expect.poll(() => hook.requests.length, POLL).toBe(1);
      const underWay = await onlyDelivery(owner, organizationId, endpoint.webhook_id);
      expect(underWay).toMatchObject({ status: 'pending', attempts: 1 });
      const refused = await send(owner, 'POST', retryPath(organizationId, endpoint.webhook_id, underWay.delivery_id));
      expect(refused).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });

      await expect.poll(deliveryState(owner, organizationId, endpoint.webhook_id), POLL).toMatchObject({
        last_status_code: null,
        last_error: `No answer within ${TIMEOUT_MS} ms`,
        response_body: null,
      });
      // The late answer counted for nothing.
      await expect.poll(() => released, POLL).toBe(true);
      expect((await onlyDelivery(owner, organizationId, endpoint.webhook_id)).status).not.toBe('succeeded');
    });

    it('counts a status that came within WEBHOOK_TIMEOUT_MS though its body was still coming, keeping what had arrived: a 2xx succeeds, a 500 fails', async ({
      expect,
    }) => {
      const first = 'accepted, ';
      // A byte every 100 ms: the whole body would take 9 s, six times the attempt's time.
      const rest = 'and here is the rest of the answer, one byte at a time, far slower than anyone waits';
      const trickling = await Promise.all([200, 500].map((status) => startTricklingReceiver(status, first, rest, 100)));
      try {
        const [accepted, refused] = await Promise.all(
          trickling.map(async (hook) => {
            const owner = await registerUser(server(), 'owner');
            const organizationId = await createOrganization(server(), owner);
            const endpoint = await createWebhook(server(), owner, organizationId, {
              url: hook.url(),
              event_types: ['organization.updated'],
            });
            await changeOrganization(owner, organizationId);
            return deliveryState(owner, organizationId, endpoint.webhook_id);
          }),
        );
        await expect.poll(accepted!, POLL).toMatchObject({ status: 'succeeded' });
        const delivered = await accepted!();
        expect(delivered).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null });
        // What had arrived when the time was up: the first part at least, not the whole body.
        expect(delivered.response_body).toMatch(/^accepted, /);
        expect((first + rest).startsWith(delivered.response_body!)).toBe(true);
        expect(delivered.response_body!.length).toBeLessThan((first + rest).length);
        expect(trickling[0]!.requests()).toBe(1);

        await expect.poll(async () => (await refused!()).last_status_code, POLL).toBe(500);
        const failed = await refused!();
        expect(failed.status).not.toBe('succeeded');
        expect(failed.response_body).toMatch(/^accepted, /);
        expect((first + rest).startsWith(failed.response_body!)).toBe(true);
        expect(failed.response_body!.length).toBeLessThan((first + rest).length);
        expect(failed.last_error).toBe(`HTTP 500: ${failed.response_body}`);
      } finally {
        await Promise.all(trickling.map((hook) => hook.close()));
      }
    });
  });

  describe('a change that did not commit', () => {
    it('sends nothing for a request refused with 409, 403 or 400', async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      const hook = await receiver();
      const endpoint = await createWebhook(server(), owner, organizationId, { url: hook.url(), event_types: ['*'] });

      const demoteLastOwner = await server().call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: owner.id, role: 'admin' },
      });
      expect(demoteLastOwner.status, JSON.stringify(demoteLastOwner.body)).toBe(409);
      const byMember = await send(member, 'PUT', `/organizations/${organizationId}`, { organization_name: 'Mine' });
      expect(byMember.status).toBe(403);
      const emptyName = await send(owner, 'PUT', `/organizations/${organizationId}`, { organization_name: '' });
      expect(emptyName.status).toBe(400);
      await sleep(QUIET_MS);
      expect(hook.requests).toEqual([]);

      // A change that commits now arrives: the wait was long enough to see one.
      await changeOrganization(owner, organizationId);
      await expect.poll(() => hook.requests.length, POLL).toBe(1);
      const payload = verify(endpoint.secret, hook.requests[0]!) as { type: string };
      expect(payload.type).toBe('organization.updated');
      expect(
        (await deliveriesOf(server(), owner, organizationId, endpoint.webhook_id)).map((d) => d.event_type),
      ).toEqual(['organization.updated']);
    });
  });

  describe('an endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS', () => {
    const disabling = useServer(target, { ...DELIVERING, WEBHOOK_DISABLE_AFTER_HOURS: '0.0005' });

    it('is disabled with a reason and a webhook.disabled event; enabled again, it receives again', async () => {
      const { owner, organizationId, hook, endpoint } = await endpointAt(() => 500, undefined, disabling());
      const path = webhookPath(organizationId, endpoint.webhook_id);
      await changeOrganization(owner, organizationId, disabling());
      await expect
        .poll(async () => (await send(owner, 'GET', path, undefined, disabling())).body, POLL)
        .toMatchObject({ enabled: false });
      const disabled = (await send(owner, 'GET', path, undefined, disabling())).body as WebhookView;
      expect(disabled.disabled_reason).toMatch(/^Every delivery attempt failed for [\d.]+ hours$/);
      expect(hook.requests.length).toBeGreaterThanOrEqual(2);

      const events = await webhookEvents(owner, organizationId, disabling());
      expect(events.map(summary).at(-1)).toEqual({
        type: 'webhook.disabled',
        actor_user_id: owner.id,
        subject_user_id: null,
        data: { webhook_id: endpoint.webhook_id, url: endpoint.url, reason: disabled.disabled_reason },
      });
      expect(JSON.stringify(events)).not.toContain(endpoint.secret);

      hook.respond([]);
      const enabled = await send(owner, 'PUT', path, { enabled: true }, disabling());
      expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
      expect((await webhookEvents(owner, organizationId, disabling())).map(summary).at(-1)).toEqual({
        type: 'webhook.updated',
        actor_user_id: owner.id,
        subject_user_id: null,
        data: { webhook_id: endpoint.webhook_id, changes: { enabled: { from: false, to: true } } },
      });
      const before = hook.requests.length;
      await changeOrganization(owner, organizationId, disabling());
      await expect.poll(() => hook.requests.slice(before).map((request) => request.answered), POLL).toContain(200);
      expect((await send(owner, 'GET', path, undefined, disabling())).body).toMatchObject({ enabled: true });
    });
  });
});
