/**
 * An organization's webhook endpoints and their delivery log (behaviour §13), all for callers who
 * hold webhooks:manage (reads are checked before they run, rpc/procedures.ts). Every change of an
 * endpoint takes the organization first (organization-changes.ts) and records its event in the
 * same transaction, like every other change of the organization; the deliveries themselves are
 * made by fan-out.ts and dispatcher.ts from the committed event log.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { EventData } from '../../../shared/events.ts';
import {
  MAX_WEBHOOKS,
  type createWebhookInput,
  type DeliveryView,
  type updateWebhookInput,
  type WebhookView,
} from '../../../shared/webhooks.ts';
import { assertMay, notInOrganization, type ClockedReader, type OrganizationActor } from '../../platform/access.ts';
import { badRequest, conflict, notFound } from '../../platform/errors.ts';
import { sameList } from '../../platform/same-list.ts';
import { appendEvent, changeOrganization, organizationWithActor } from '../../platform/organization-changes.ts';
import { newId } from '../../platform/database/ids.ts';
import { pagedList, toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Sql } from '../../platform/database/schema.ts';
import { isoTimestamp, isoTimestampOrNull, type StoredTimestamp } from '../../platform/database/timestamps.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';
import { urlAddressProblem, urlFormProblem, type UrlGuardOptions } from './url-guard.ts';

/** How long a rotated-out secret still signs beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;

const noSuchWebhook = () => notFound('The organization has no such webhook');

/** `whsec_` and 32 random bytes in base64: the Standard Webhooks form of a signing secret. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** A URL the service may call (400 on `url` otherwise); checked again at every delivery, as DNS can change. */
async function assertCallable(url: string, guard: UrlGuardOptions): Promise<void> {
  const problem = urlFormProblem(url, guard) ?? (await urlAddressProblem(url, guard));
  if (problem) throw badRequest(`The webhook URL cannot be used: ${problem}`, [{ field: 'url', problem }]);
}

interface WebhookRow {
  id: string;
  organization_id: string;
  url: string;
  event_types: string;
  description: string;
  enabled: boolean | number;
  disabled_reason: string | null;
  created_at: StoredTimestamp;
  updated_at: StoredTimestamp;
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

const WEBHOOK_COLUMNS = [
  'w.id',
  'w.organization_id',
  'w.url',
  'w.event_types',
  'w.description',
  'w.enabled',
  'w.disabled_reason',
  'w.created_at',
  'w.updated_at',
] as const;

const webhookListRows = pagedList(
  (sql: Sql, organizationId: string) =>
    sql.selectFrom('webhooks as w').select(WEBHOOK_COLUMNS).where('w.organization_id', '=', organizationId),
  { createdAt: 'w.created_at', id: 'w.id' },
);

/** The organization's endpoints, oldest first. */
export async function listWebhooks(
  db: Db,
  actor: OrganizationActor,
  page: PageRequest = {},
): Promise<Page<WebhookView>> {
  const rows = await webhookListRows(db, db.dialect, page, actor.organizationId);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), webhookView);
}

const oneWebhook = prepare((sql, organizationId: string, webhookId: string) =>
  sql
    .selectFrom('webhooks as w')
    .select(WEBHOOK_COLUMNS)
    .where('w.organization_id', '=', organizationId)
    .where('w.id', '=', webhookId),
);

export async function getWebhook(reader: ClockedReader, actor: OrganizationActor, webhookId: string) {
  const row = await reader.first(oneWebhook(reader.sql, actor.organizationId, webhookId));
  if (!row) throw noSuchWebhook();
  return webhookView(row);
}

/**
 * Creates an endpoint, at most MAX_WEBHOOKS per organization (409). It receives the events that
 * commit after its own `webhook.created`; the organization's read position in its event log starts
 * there if it had none.
 */
export async function createWebhook(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof createWebhookInput>,
  guard: UrlGuardOptions,
): Promise<WebhookView & { secret: string }> {
  await assertCallable(input.url, guard);
  const secret = newSecret();
  return changeOrganization(db, actor, async (tx, change) => {
    const row = await tx.first(
      organizationWithActor(tx, actor)
        .leftJoin('webhook_cursors as c', 'c.organization_id', 'o.id')
        .select((eb) => [
          'a.role as actor_role',
          'c.last_event_id',
          eb
            .selectFrom('webhooks as n')
            .select((count) => count.fn.countAll<number | string>().as('webhooks'))
            .whereRef('n.organization_id', '=', 'o.id')
            .as('webhook_count'),
        ]),
    );
    if (!row) throw notInOrganization();
    await assertMay(tx, actor, row.actor_role);
    if (Number(row.webhook_count) >= MAX_WEBHOOKS) {
      throw conflict(`The organization has ${MAX_WEBHOOKS} webhooks, the most it may have: delete one first`);
    }
    const webhookId = newId(tx.now.getTime());
    const eventTypes = [...input.event_types];
    const createdEventId = await appendEvent(tx, change, {
      type: 'webhook.created',
      actorUserId: actor.userId,
      subjectUserId: null,
      data: { webhook_id: webhookId, url: input.url, event_types: eventTypes, description: input.description },
    });
    const now = tx.timestamp();
    tx.later(
      tx.sql.insertInto('webhooks').values({
        id: webhookId,
        organization_id: actor.organizationId,
        url: input.url,
        event_types: JSON.stringify(eventTypes),
        description: input.description,
        secret,
        previous_secret: null,
        previous_secret_expires_at: null,
        enabled: 1,
        disabled_reason: null,
        failing_since: null,
        created_event_id: createdEventId,
        created_at: now,
        updated_at: now,
      }),
    );
    if (row.last_event_id === null) {
      tx.later(
        tx.sql
          .insertInto('webhook_cursors')
          .values({ organization_id: actor.organizationId, last_event_id: createdEventId }),
      );
    }
    const at = tx.now.toISOString();
    return {
      webhook_id: webhookId,
      organization_id: actor.organizationId,
      url: input.url,
      event_types: eventTypes,
      description: input.description,
      enabled: true,
      disabled_reason: null,
      created_at: at,
      updated_at: at,
      secret,
    };
  });
}

/** The actor's role and the endpoint, under the organization's lock, the actor's permission checked (404: none). */
async function webhookForChange(tx: Tx, actor: OrganizationActor, webhookId: string): Promise<WebhookView> {
  const row = await tx.first(
    organizationWithActor(tx, actor)
      .leftJoin('webhooks as w', (join) => join.onRef('w.organization_id', '=', 'o.id').on('w.id', '=', webhookId))
      .select(['a.role as actor_role', ...WEBHOOK_COLUMNS]),
  );
  if (!row) throw notInOrganization();
  await assertMay(tx, actor, row.actor_role);
  if (row.id === null) throw noSuchWebhook();
  return webhookView(row as typeof row & WebhookRow);
}

type WebhookChanges = EventData['webhook.updated']['changes'];

/**
 * Changes an endpoint. Enabling it again clears why it was disabled and its run of failures. A
 * request that changes nothing records no event and leaves `updated_at` as it was.
 */
export async function updateWebhook(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof updateWebhookInput>,
  guard: UrlGuardOptions,
): Promise<WebhookView> {
  if (input.url !== undefined) await assertCallable(input.url, guard);
  return changeOrganization(db, actor, async (tx, change) => {
    const before = await webhookForChange(tx, actor, input.webhook_id);
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
    tx.later(
      tx.sql
        .updateTable('webhooks')
        .set({
          url: changes.url?.to,
          event_types: changes.event_types && JSON.stringify(changes.event_types.to),
          description: changes.description?.to,
          enabled: changes.enabled && Number(changes.enabled.to),
          // Disabled by a caller: no reason of the service's; enabled: its failures start afresh.
          ...(changes.enabled && { disabled_reason: null, failing_since: null }),
          updated_at: tx.timestamp(),
        })
        .where('id', '=', before.webhook_id),
    );
    await appendEvent(tx, change, {
      type: 'webhook.updated',
      actorUserId: actor.userId,
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
export async function removeWebhook(db: Db, actor: OrganizationActor, webhookId: string): Promise<{ message: string }> {
  return changeOrganization(db, actor, async (tx, change) => {
    const before = await webhookForChange(tx, actor, webhookId);
    tx.later(tx.sql.deleteFrom('webhooks').where('id', '=', before.webhook_id));
    await appendEvent(tx, change, {
      type: 'webhook.deleted',
      actorUserId: actor.userId,
      subjectUserId: null,
      data: { webhook_id: before.webhook_id, url: before.url },
    });
    return { message: 'Webhook deleted' };
  });
}

/**
 * Replaces the endpoint's signing secret. The one it replaces signs beside the new one for
 * PREVIOUS_SECRET_HOURS, so receivers can switch over; a secret rotated out before that is dropped.
 */
export async function rotateSecret(db: Db, actor: OrganizationActor, webhookId: string): Promise<{ secret: string }> {
  const secret = newSecret();
  return changeOrganization(db, actor, async (tx, change) => {
    const before = await webhookForChange(tx, actor, webhookId);
    const previousUntil = new Date(tx.now.getTime() + PREVIOUS_SECRET_HOURS * 3_600_000);
    tx.later(
      tx.sql
        .updateTable('webhooks')
        .set((eb) => ({
          previous_secret: eb.ref('secret'),
          previous_secret_expires_at: tx.timestamp(previousUntil),
          secret,
          updated_at: tx.timestamp(),
        }))
        .where('id', '=', before.webhook_id),
    );
    await appendEvent(tx, change, {
      type: 'webhook.updated',
      actorUserId: actor.userId,
      subjectUserId: null,
      data: { webhook_id: before.webhook_id, changes: {}, secret_rotated: true },
    });
    return { secret };
  });
}

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: DeliveryView['status'];
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: StoredTimestamp | null;
  created_at: StoredTimestamp;
  updated_at: StoredTimestamp;
}

const deliveryView = (row: DeliveryRow): DeliveryView => ({
  delivery_id: row.id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: row.status,
  attempts: Number(row.attempts),
  last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
  last_error: row.last_error,
  next_attempt_at: row.status === 'pending' ? isoTimestampOrNull(row.next_attempt_at) : null,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

const DELIVERY_COLUMNS = [
  'd.id',
  'd.event_id',
  'd.event_type',
  'd.status',
  'd.attempts',
  'd.last_status_code',
  'd.last_error',
  'd.next_attempt_at',
  'd.created_at',
  'd.updated_at',
] as const;

const deliveryListRows = pagedList(
  (sql: Sql, organizationId: string, webhookId: string) =>
    sql
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select(DELIVERY_COLUMNS)
      .where('w.organization_id', '=', organizationId)
      .where('d.webhook_id', '=', webhookId),
  { createdAt: 'd.created_at', id: 'd.id' },
  { newestFirst: true },
);

/** An endpoint's deliveries, newest first (404: no such endpoint). */
export async function listDeliveries(
  db: Db,
  actor: OrganizationActor,
  webhookId: string,
  page: PageRequest = {},
): Promise<Page<DeliveryView>> {
  const rows = await deliveryListRows(db, db.dialect, page, actor.organizationId, webhookId);
  if (rows.length === 0) await getWebhook(db, actor, webhookId);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), deliveryView);
}

/**
 * Asks for one more attempt of a delivery, now: whatever its status, unless an attempt is under way
 * (409). A delivery that had failed for good gets this one attempt; a pending one is brought
 * forward. A change of the organization's like any other (its lock, its Idempotency-Key), though
 * it records no event.
 */
export async function retryDelivery(
  db: Db,
  actor: OrganizationActor,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryView> {
  return changeOrganization(db, actor, async (tx) => {
    const row = await tx.first(
      organizationWithActor(tx, actor)
        .leftJoin('webhook_deliveries as d', (join) =>
          join.on('d.id', '=', deliveryId).on('d.webhook_id', '=', webhookId),
        )
        .leftJoin('webhooks as w', (join) =>
          join.onRef('w.id', '=', 'd.webhook_id').onRef('w.organization_id', '=', 'o.id'),
        )
        .select(['a.role as actor_role', 'w.id as webhook_id', ...DELIVERY_COLUMNS, 'd.claim_token']),
    );
    if (!row) throw notInOrganization();
    await assertMay(tx, actor, row.actor_role);
    if (row.webhook_id === null || row.id === null) throw notFound('The webhook has no such delivery');
    if (row.claim_token !== null) throw conflict('An attempt of this delivery is under way');
    const now = tx.timestamp();
    tx.later(
      tx.sql
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now, updated_at: now })
        .where('id', '=', deliveryId)
        .where('claim_token', 'is', null),
      (result) => {
        // Claimed by an instance since it was read: the attempt is under way.
        if (Number(result.numAffectedRows ?? 0) === 0) throw conflict('An attempt of this delivery is under way');
      },
    );
    return deliveryView({
      ...(row as typeof row & DeliveryRow),
      status: 'pending',
      next_attempt_at: now,
      updated_at: now,
    });
  });
}
