/**
 * Test events (behaviour §13), on both databases, with real receivers on 127.0.0.1: a
 * `webhook.test` event reaches the one endpoint it was sent to, signed as Standard Webhooks says
 * (verified with the `standardwebhooks` package), whatever the endpoint's `event_types`; no other
 * endpoint receives it and no event list shows it; the delivery log shows what was sent; and the
 * refusals: 403 without webhooks:manage, 404 for an unknown endpoint, 409 WEBHOOK_DISABLED for a
 * disabled one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../shared/events.ts';
import type { DeliveryView } from '../shared/webhooks.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { organizationWithRoles } from './support/lifecycle.ts';
import { useServer } from './support/server.ts';
import type { TestUser } from './support/fixtures.ts';
import {
  createWebhook,
  deliveriesOf,
  startReceiver,
  webhookPath,
  type ReceivedRequest,
  type Receiver,
} from './support/webhooks.ts';

/** Receivers on loopback over plain http, a short schedule: the settings the webhook tests deliver with. */
const DELIVERING = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1s,1s',
  WEBHOOK_TIMEOUT_MS: '1500',
};
/** Several of the dispatcher's 200 ms polls: what was going to be sent has been sent by then. */
const QUIET_MS = 1_500;
const POLL = { timeout: 15_000, interval: 50 };
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

const testPath = (organizationId: string, webhookId: string, prefix = '') =>
  `${webhookPath(organizationId, webhookId, prefix)}/test`;

const verify = (secret: string, request: ReceivedRequest) =>
  new Webhook(secret).verify(request.body, {
    'webhook-id': request.headers['webhook-id']!,
    'webhook-timestamp': request.headers['webhook-timestamp']!,
    'webhook-signature': request.headers['webhook-signature']!,
  });

describeOnEachDatabase('webhook test events (behaviour §13)', (target) => {
  const server = useServer(target, DELIVERING);
  const started: Receiver[] = [];
  const receiver = async () => {
    const one = await startReceiver();
    started.push(one);
    return one;
  };
  afterAll(async () => {
    await Promise.all(started.map((each) => each.close()));
  });

  const send = (actor: TestUser, method: string, path: string, body?: unknown) =>
    server().call(method, path, { token: actor.token, body });

  const eventsOf = async (viewer: TestUser, organizationId: string) => {
    const listed = await send(viewer, 'GET', `/organizations/${organizationId}/events?limit=1000`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    return listed.body as AuditEvent[];
  };

  it.each(['', '/api'])(
    'delivers webhook.test, signed, to that endpoint alone, whatever its event types; no other endpoint and no event list sees it (prefix "%s")',
    async (prefix) => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const hook = await receiver();
      // Filtered to another type: a test event is sent all the same.
      const tested = await createWebhook(server(), owner, organizationId, {
        url: hook.url('/tested'),
        event_types: ['member.removed'],
      });
      const other = await createWebhook(server(), owner, organizationId, {
        url: hook.url('/other'),
        event_types: ['*'],
      });
      const eventsBefore = await eventsOf(owner, organizationId);

      const queued = await send(owner, 'POST', testPath(organizationId, tested.webhook_id, prefix));
      expect(queued.status, JSON.stringify(queued.body)).toBe(202);
      const delivery = queued.body as DeliveryView;
      expect(delivery).toEqual({
        delivery_id: expect.stringMatching(UUID_V7),
        event_id: expect.stringMatching(UUID_V7),
        event_type: 'webhook.test',
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        response_body: null,
        next_attempt_at: expect.stringMatching(ISO_MS),
        created_at: expect.stringMatching(ISO_MS),
        updated_at: delivery.created_at,
        payload: {
          type: 'webhook.test',
          timestamp: delivery.created_at,
          data: {
            event_id: delivery.event_id,
            type: 'webhook.test',
            organization_id: organizationId,
            actor_user_id: null,
            actor_key_id: null,
            subject_user_id: null,
            data: { webhook_id: tested.webhook_id },
            created_at: delivery.created_at,
          },
        },
      });

      await expect.poll(() => hook.at('/tested').length, POLL).toBe(1);
      const [request] = hook.at('/tested');
      expect(request!.headers['webhook-id']).toBe(delivery.event_id);
      expect(verify(tested.secret, request!)).toEqual(delivery.payload);
      expect(() => verify(other.secret, request!)).toThrow();

      await expect
        .poll(async () => (await deliveriesOf(server(), owner, organizationId, tested.webhook_id))[0], POLL)
        .toEqual({
          ...delivery,
          status: 'succeeded',
          attempts: 1,
          last_status_code: 200,
          // The receiver answers with an empty body.
          response_body: '',
          next_attempt_at: null,
          updated_at: expect.stringMatching(ISO_MS),
        });
      await sleep(QUIET_MS);
      expect(hook.at('/other')).toEqual([]);
      expect(await deliveriesOf(server(), owner, organizationId, other.webhook_id)).toEqual([]);
      expect(await eventsOf(owner, organizationId)).toEqual(eventsBefore);
    },
  );

  describe('refusals', () => {
    it('refuses a member without webhooks:manage (403) and sends nothing', async () => {
      const { owner, member, outsider, organizationId } = await organizationWithRoles(server());
      const hook = await receiver();
      const endpoint = await createWebhook(server(), owner, organizationId, { url: hook.url(), event_types: ['*'] });
      for (const caller of [member, outsider]) {
        const refused = await send(caller, 'POST', testPath(organizationId, endpoint.webhook_id));
        expect(refused.status, JSON.stringify(refused.body)).toBe(403);
        expect(refused.body.code).toBe('FORBIDDEN');
      }
      await sleep(QUIET_MS);
      expect(hook.requests).toEqual([]);
      expect(await deliveriesOf(server(), owner, organizationId, endpoint.webhook_id)).toEqual([]);
    });

    it("answers 404 for an endpoint the organization does not have, another organization's included", async () => {
      const first = await organizationWithRoles(server());
      const second = await organizationWithRoles(server());
      const hook = await receiver();
      const theirs = await createWebhook(server(), second.owner, second.organizationId, {
        url: hook.url(),
        event_types: ['*'],
      });
      for (const webhookId of [UNKNOWN_ID, theirs.webhook_id]) {
        const missing = await send(first.owner, 'POST', testPath(first.organizationId, webhookId));
        expect(missing.status, JSON.stringify(missing.body)).toBe(404);
        expect(missing.body.code).toBe('NOT_FOUND');
      }
      expect((await send(first.owner, 'POST', testPath(first.organizationId, 'not-a-uuid'))).status).toBe(400);
      await sleep(QUIET_MS);
      expect(hook.requests).toEqual([]);
    });

    it('answers 409 WEBHOOK_DISABLED for a disabled endpoint, and sends it nothing', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const hook = await receiver();
      const endpoint = await createWebhook(server(), owner, organizationId, { url: hook.url(), event_types: ['*'] });
      const disabled = await send(owner, 'PUT', webhookPath(organizationId, endpoint.webhook_id), { enabled: false });
      expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);

      const refused = await send(owner, 'POST', testPath(organizationId, endpoint.webhook_id));
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body).toEqual({ code: 'WEBHOOK_DISABLED', message: expect.stringMatching(/disabled/) });
      await sleep(QUIET_MS);
      expect(hook.requests).toEqual([]);
      expect(await deliveriesOf(server(), owner, organizationId, endpoint.webhook_id)).toEqual([]);
    });
  });
});
