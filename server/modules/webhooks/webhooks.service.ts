/**
 * An organization's webhook endpoints and their delivery log (behaviour §13), for callers who hold
 * webhooks:manage. Every change of an endpoint is the organization's (in-organization.ts) and
 * records its event in the same transaction, like every other change of the organization; the
 * deliveries themselves are made by fan-out.ts and dispatcher.ts from the committed event log.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { EventData } from '../../../shared/events.ts';
import {
  MAX_WEBHOOKS,
  TEST_EVENT_TYPE,
  type createWebhookInput,
  type DeliveryView,
  type updateWebhookInput,
  type WebhookView,
} from '../../../shared/webhooks.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { newId } from '../../platform/database/ids.ts';
import { toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { isoTimestamp, isoTimestampOrNull, toDate } from '../../platform/database/timestamps.ts';
import type { Db } from '../../platform/database/transaction.ts';
import { badRequest, conflict, DomainError, notFound } from '../../platform/errors.ts';
import { withSecretShownOnce } from '../../platform/idempotency.ts';
import { appendEvent, takeOrganization } from '../../platform/organization-changes.ts';
import { sameList } from '../../platform/same-list.ts';
import { deliveryPayload } from './payload.ts';
import { urlAddressProblem, urlFormProblem, type UrlGuardOptions } from './url-guard.ts';
import {
  cursorAndCount,
  deleteWebhook,
  deliveryOf,
  deliveryRows,
  disableWebhookRow,
  insertCursor,
  insertDelivery,
  pendingDelivery,
  insertWebhook,
  rotateWebhookSecret,
  scheduleNow,
  updateWebhookRow,
  webhookRow,
  webhookRows,
  webhookWithCreator,
  type DeliveryRow,
  type WebhookRow,
} from './webhooks.queries.ts';

/** How long a rotated-out secret still signs beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;

const noSuchWebhook = () => notFound('The organization has no such webhook');
const attemptUnderWay = () => conflict('An attempt of this delivery is under way');

/** `whsec_` and 32 random bytes in base64: the Standard Webhooks form of a signing secret. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** A URL the service may call (400 on `url` otherwise); checked again at every delivery, as DNS can change. */
async function assertCallable(url: string, guard: UrlGuardOptions): Promise<void> {
  const problem = urlFormProblem(url, guard) ?? (await urlAddressProblem(url, guard));
  if (problem) throw badRequest(`The webhook URL cannot be used: ${problem}`, [{ field: 'url', problem }]);
}

const webhookView = (row: WebhookRow): WebhookView => ({
  webhook_id: row.id,
  organization_id: row.organization_id,
  url: row.url,
  event_types: JSON.parse(row.event_types) as string[],
  description: row.description,
  enabled: Boolean(row.enabled),
  disabled_reason: row.disabled_reason,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

/** The organization's endpoints, oldest first. */
export async function listWebhooks(org: InOrganization, page: PageRequest = {}): Promise<Page<WebhookView>> {
  const rows = await webhookRows(org.reads, org.organizationId, page);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), webhookView);
}

export async function getWebhook(org: InOrganization, webhookId: string): Promise<WebhookView> {
  const row = await webhookRow(org.reads, org.organizationId, webhookId);
  if (!row) throw noSuchWebhook();
  return webhookView(row);
}

/**
 * Creates an endpoint, at most MAX_WEBHOOKS per organization (409). It receives the events that
 * commit after its own `webhook.created`; the organization's read position in its event log starts
 * there if it had none.
 */
export async function createWebhook(
  org: InOrganization,
  input: z.infer<typeof createWebhookInput>,
  guard: UrlGuardOptions,
): Promise<WebhookView & { secret: string }> {
  await assertCallable(input.url, guard);
  const secret = newSecret();
  return org.change(async (tx, change) => {
    const row = await cursorAndCount(tx, org.organizationId);
    if (Number(row?.webhook_count ?? 0) >= MAX_WEBHOOKS) {
      throw conflict(`The organization has ${MAX_WEBHOOKS} webhooks, the most it may have: delete one first`);
    }
    const webhookId = newId(tx.now.getTime());
    const eventTypes = [...input.event_types];
    const createdEventId = await appendEvent(tx, change, {
      type: 'webhook.created',
      subjectUserId: null,
      data: { webhook_id: webhookId, url: input.url, event_types: eventTypes, description: input.description },
    });
    insertWebhook(tx, {
      id: webhookId,
      organizationId: org.organizationId,
      url: input.url,
      eventTypes,
      description: input.description,
      secret,
      createdEventId,
    });
    if ((row?.last_event_id ?? null) === null) insertCursor(tx, org.organizationId, createdEventId);
    const at = tx.now.toISOString();
    const created = {
      webhook_id: webhookId,
      organization_id: org.organizationId,
      url: input.url,
      event_types: eventTypes,
      description: input.description,
      enabled: true,
      disabled_reason: null,
      created_at: at,
      updated_at: at,
      secret,
    };
    return withSecretShownOnce(created, 'secret');
  });
}

type WebhookChanges = EventData['webhook.updated']['changes'];

/**
 * Changes an endpoint. Enabling it again clears why it was disabled and its run of failures. A
 * request that changes nothing records no event and leaves `updated_at` as it was.
 */
export async function updateWebhook(
  org: InOrganization,
  input: z.infer<typeof updateWebhookInput>,
  guard: UrlGuardOptions,
): Promise<WebhookView> {
  if (input.url !== undefined) await assertCallable(input.url, guard);
  return org.change(async (tx, change) => {
    const row = await webhookRow(tx, org.organizationId, input.webhook_id);
    if (!row) throw noSuchWebhook();
    const before = webhookView(row);
    const changes: WebhookChanges = {};
    if (input.url !== undefined && input.url !== before.url) changes.url = { from: before.url, to: input.url };
    if (input.event_types && !sameList(input.event_types, before.event_types)) {
      changes.event_types = { from: before.event_types, to: [...input.event_types] };
    }
    if (input.description !== undefined && input.description !== before.description) {
      changes.description = { from: before.description, to: input.description };
    }
    if (input.enabled !== undefined && input.enabled !== before.enabled) {
      changes.enabled = { from: before.enabled, to: input.enabled };
    }
    if (Object.keys(changes).length === 0) return before;
    updateWebhookRow(tx, before.webhook_id, {
      url: changes.url?.to,
      eventTypes: changes.event_types?.to,
      description: changes.description?.to,
      enabled: changes.enabled?.to,
    });
    await appendEvent(tx, change, {
      type: 'webhook.updated',
      subjectUserId: null,
      data: { webhook_id: before.webhook_id, changes },
    });
    return {
      ...before,
      url: changes.url?.to ?? before.url,
      event_types: changes.event_types?.to ?? before.event_types,
      description: changes.description?.to ?? before.description,
      enabled: changes.enabled?.to ?? before.enabled,
      disabled_reason: changes.enabled ? null : before.disabled_reason,
      updated_at: tx.now.toISOString(),
    };
  });
}

/** Deletes an endpoint and its delivery log; attempts under way finish, and their results are dropped. */
export async function removeWebhook(org: InOrganization, webhookId: string): Promise<{ message: string }> {
  return org.change(async (tx, change) => {
    const row = await webhookRow(tx, org.organizationId, webhookId);
    if (!row) throw noSuchWebhook();
    deleteWebhook(tx, row.id);
    await appendEvent(tx, change, {
      type: 'webhook.deleted',
      subjectUserId: null,
      data: { webhook_id: row.id, url: row.url },
    });
    return { message: 'Webhook deleted' };
  });
}

/**
 * Replaces the endpoint's signing secret. The one it replaces signs beside the new one for
 * PREVIOUS_SECRET_HOURS, so receivers can switch over; a secret rotated out before that is dropped.
 */
export async function rotateSecret(org: InOrganization, webhookId: string): Promise<{ secret: string }> {
  const secret = newSecret();
  return org.change(async (tx, change) => {
    const row = await webhookRow(tx, org.organizationId, webhookId);
    if (!row) throw noSuchWebhook();
    rotateWebhookSecret(tx, row.id, secret, new Date(tx.now.getTime() + PREVIOUS_SECRET_HOURS * 3_600_000));
    await appendEvent(tx, change, {
      type: 'webhook.updated',
      subjectUserId: null,
      data: { webhook_id: row.id, changes: {}, secret_rotated: true },
    });
    return withSecretShownOnce({ secret }, 'secret');
  });
}

const deliveryView = (row: DeliveryRow): DeliveryView => ({
  delivery_id: row.id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: row.status,
  attempts: Number(row.attempts),
  last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
  last_error: row.last_error,
  response_body: row.last_response_body,
  next_attempt_at: row.status === 'pending' ? isoTimestampOrNull(row.next_attempt_at) : null,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
  payload: deliveryPayload(row),
});

/** An endpoint's deliveries, newest first (404: no such endpoint). */
export async function listDeliveries(
  org: InOrganization,
  webhookId: string,
  page: PageRequest = {},
): Promise<Page<DeliveryView>> {
  const rows = await deliveryRows(org.reads, org.organizationId, webhookId, page);
  if (rows.length === 0) await getWebhook(org, webhookId);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), deliveryView);
}

/**
 * Asks for one more attempt of a delivery, now: whatever its status, unless an attempt is under way
 * (409). A delivery that had failed for good gets this one attempt; a pending one is brought
 * forward. A change of the organization's like any other (its lock, its Idempotency-Key), though
 * it records no event.
 */
export async function retryDelivery(org: InOrganization, webhookId: string, deliveryId: string): Promise<DeliveryView> {
  return org.change(async (tx) => {
    const row = await deliveryOf(tx, org.organizationId, webhookId, deliveryId);
    if (!row) throw notFound('The webhook has no such delivery');
    if (row.claim_token !== null) throw attemptUnderWay();
    const now = tx.timestamp();
    // Claimed by an instance since it was read: the attempt is under way.
    scheduleNow(tx, deliveryId, now, () => {
      throw attemptUnderWay();
    });
    return deliveryView({ ...row, status: 'pending', next_attempt_at: now, updated_at: now });
  });
}

/**
 * Queues a test event for one endpoint (behaviour §13): a delivery of a `webhook.test` event made for
 * it alone, whatever its `event_types`, and sent, signed, retried and logged like any other. The
 * event is not appended to the organization's log, so no other endpoint and no event list sees it.
 * A disabled endpoint is sent nothing: 409 WEBHOOK_DISABLED.
 */
export async function sendTestEvent(org: InOrganization, webhookId: string): Promise<DeliveryView> {
  return org.change(async (tx) => {
    const row = await webhookRow(tx, org.organizationId, webhookId);
    if (!row) throw noSuchWebhook();
    if (!row.enabled) {
      throw new DomainError('WEBHOOK_DISABLED', 'The webhook is disabled: enable it before sending it a test event');
    }
    const delivery = {
      id: newId(tx.now.getTime()),
      webhookId: row.id,
      organizationId: org.organizationId,
      eventId: newId(tx.now.getTime()),
      eventType: TEST_EVENT_TYPE,
    };
    insertDelivery(tx, delivery);
    // The row just queued, with no event row behind it to join.
    return deliveryView({
      ...pendingDelivery(delivery, tx.timestamp()),
      actor_user_id: null,
      actor_key_id: null,
      subject_user_id: null,
      data: null,
      event_created_at: null,
    });
  });
}

/**
 * Disables an endpoint that has failed for `disableAfterMs` (behaviour §13), as a change of its
 * organization (its lock, then the endpoint read again) with a `webhook.disabled` event, whose actor
 * is who created the endpoint: the trail names no one else for it.
 */
export async function disableFailingWebhook(db: Db, webhookId: string, disableAfterMs: number): Promise<void> {
  const found = await webhookWithCreator(db, webhookId);
  if (!found) return;
  const creator = { userId: found.actor_user_id, keyId: found.actor_key_id };
  const reason = `Every delivery attempt failed for ${disableAfterMs / 3_600_000} hours`;
  const stillFailing = (row: typeof found, now: Date) =>
    row.enabled && row.failing_since && toDate(row.failing_since).getTime() <= now.getTime() - disableAfterMs;
  await db.transaction(
    async (tx) => {
      const organizationGone = () => new Error('The organization is gone');
      const change = takeOrganization(tx, found.organization_id, creator, organizationGone);
      const row = await webhookWithCreator(tx, webhookId);
      if (!row || !stillFailing(row, tx.now)) return;
      disableWebhookRow(tx, webhookId, reason);
      await appendEvent(tx, change, {
        type: 'webhook.disabled',
        subjectUserId: null,
        data: { webhook_id: webhookId, url: row.url, reason },
      });
    },
    { organizationId: found.organization_id },
  );
}
