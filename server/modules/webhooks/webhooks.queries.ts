/**
 * The statements of webhook endpoints and their delivery log (behaviour §13): each builds, queues
 * or runs SQL and returns rows; none decides anything or throws. The rules are webhooks.service.ts's.
 */
import type { Insertable } from 'kysely';
import type { DeliveryView } from '../../../shared/webhooks.ts';
import type { ClockedReader } from '../../platform/authorization/memberships.ts';
import { pagedList, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Database, DbTimestamp, Sql } from '../../platform/database/schema.ts';
import type { StoredTimestamp } from '../../platform/database/timestamps.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';
import type { DeliveryEventColumns } from './payload.ts';

export interface WebhookRow {
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

const webhookList = pagedList(
  (sql: Sql, organizationId: string) =>
    sql.selectFrom('webhooks as w').select(WEBHOOK_COLUMNS).where('w.organization_id', '=', organizationId),
  { createdAt: 'w.created_at', id: 'w.id' },
);

export const webhookRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  webhookList(reader, reader.dialect, page, organizationId);

const oneWebhook = prepare((sql, organizationId: string, webhookId: string) =>
  sql
    .selectFrom('webhooks as w')
    .select(WEBHOOK_COLUMNS)
    .where('w.organization_id', '=', organizationId)
    .where('w.id', '=', webhookId),
);

export const webhookRow = (
  reader: Reader,
  organizationId: string,
  webhookId: string,
): Promise<WebhookRow | undefined> => reader.first(oneWebhook(reader.sql, organizationId, webhookId));

/** The organization's read position in its event log (null: none yet), and how many endpoints it has. */
export const cursorAndCount = (tx: Tx, organizationId: string) =>
  tx.first(
    tx.sql
      .selectFrom('organizations as o')
      .leftJoin('webhook_cursors as c', 'c.organization_id', 'o.id')
      .select((eb) => [
        'c.last_event_id',
        eb
          .selectFrom('webhooks as n')
          .select((count) => count.fn.countAll<number | string>().as('webhooks'))
          .whereRef('n.organization_id', '=', 'o.id')
          .as('webhook_count'),
      ])
      .where('o.id', '=', organizationId),
  );

export interface NewWebhook {
  id: string;
  organizationId: string;
  url: string;
  eventTypes: string[];
  description: string;
  secret: string;
  createdEventId: string;
}

export function insertWebhook(tx: Tx, webhook: NewWebhook): void {
  const now = tx.timestamp();
  tx.later(
    tx.sql.insertInto('webhooks').values({
      id: webhook.id,
      organization_id: webhook.organizationId,
      url: webhook.url,
      event_types: JSON.stringify(webhook.eventTypes),
      description: webhook.description,
      secret: webhook.secret,
      previous_secret: null,
      previous_secret_expires_at: null,
      enabled: 1,
      disabled_reason: null,
      failing_since: null,
      created_event_id: webhook.createdEventId,
      created_at: now,
      updated_at: now,
    }),
  );
}

/** Queues the organization's first read position in its event log. */
export function insertCursor(tx: Tx, organizationId: string, lastEventId: string): void {
  tx.later(
    tx.sql.insertInto('webhook_cursors').values({ organization_id: organizationId, last_event_id: lastEventId }),
  );
}

export interface WebhookUpdate {
  url?: string;
  eventTypes?: string[];
  description?: string;
  enabled?: boolean;
}

/** Queues an endpoint's change; enabling or disabling it clears why it was disabled and its run of failures. */
export function updateWebhookRow(tx: Tx, webhookId: string, changes: WebhookUpdate): void {
  tx.later(
    tx.sql
      .updateTable('webhooks')
      .set({
        url: changes.url,
        event_types: changes.eventTypes && JSON.stringify(changes.eventTypes),
        description: changes.description,
        enabled: changes.enabled === undefined ? undefined : Number(changes.enabled),
        ...(changes.enabled !== undefined && { disabled_reason: null, failing_since: null }),
        updated_at: tx.timestamp(),
      })
      .where('id', '=', webhookId),
  );
}

export function deleteWebhook(tx: Tx, webhookId: string): void {
  tx.later(tx.sql.deleteFrom('webhooks').where('id', '=', webhookId));
}

/** Queues a new signing secret, the one before signing beside it until `previousUntil`. */
export function rotateWebhookSecret(tx: Tx, webhookId: string, secret: string, previousUntil: Date): void {
  tx.later(
    tx.sql
      .updateTable('webhooks')
      .set((eb) => ({
        previous_secret: eb.ref('secret'),
        previous_secret_expires_at: tx.timestamp(previousUntil),
        secret,
        updated_at: tx.timestamp(),
      }))
      .where('id', '=', webhookId),
  );
}

/** An endpoint with who created it (its `webhook.created` event's actor), for its disabling. */
export const webhookWithCreator = (reader: Reader, webhookId: string) =>
  reader.first(
    reader.sql
      .selectFrom('webhooks as w')
      .innerJoin('organization_events as e', 'e.event_id', 'w.created_event_id')
      .select(['w.organization_id', 'w.url', 'w.enabled', 'w.failing_since', 'e.actor_user_id', 'e.actor_key_id'])
      .where('w.id', '=', webhookId),
  );

export function disableWebhookRow(tx: Tx, webhookId: string, reason: string): void {
  tx.later(
    tx.sql
      .updateTable('webhooks')
      .set({ enabled: 0, disabled_reason: reason, updated_at: tx.timestamp() })
      .where('id', '=', webhookId),
  );
}

/** A delivery with its event's columns (deliveryPayload builds what it sends from them). */
export interface DeliveryRow extends DeliveryEventColumns {
  id: string;
  status: DeliveryView['status'];
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_response_body: string | null;
  next_attempt_at: StoredTimestamp | null;
  updated_at: StoredTimestamp;
}

const DELIVERY_COLUMNS = [
  'd.id',
  'd.event_id',
  'd.event_type',
  'd.organization_id',
  'd.webhook_id',
  'd.status',
  'd.attempts',
  'd.last_status_code',
  'd.last_error',
  'd.last_response_body',
  'd.next_attempt_at',
  'd.created_at',
  'd.updated_at',
  'e.actor_user_id',
  'e.actor_key_id',
  'e.subject_user_id',
  'e.data',
  'e.created_at as event_created_at',
] as const;

/** A delivery and its event of the log: none for a test event (or one no longer in the log). */
const deliveriesWithEvents = (sql: Sql) =>
  sql
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .leftJoin('organization_events as e', 'e.event_id', 'd.event_id');

const deliveryList = pagedList(
  (sql: Sql, organizationId: string, webhookId: string) =>
    deliveriesWithEvents(sql)
      .select(DELIVERY_COLUMNS)
      .where('w.organization_id', '=', organizationId)
      .where('d.webhook_id', '=', webhookId),
  { createdAt: 'd.created_at', id: 'd.id' },
  { newestFirst: true },
);

export const deliveryRows = (reader: ClockedReader, organizationId: string, webhookId: string, page: PageRequest) =>
  deliveryList(reader, reader.dialect, page, organizationId, webhookId);

/** A delivery of an endpoint of the organization, with its claim. */
export const deliveryOf = (tx: Tx, organizationId: string, webhookId: string, deliveryId: string) =>
  tx.first(
    deliveriesWithEvents(tx.sql)
      .select([...DELIVERY_COLUMNS, 'd.claim_token'])
      .where('d.id', '=', deliveryId)
      .where('d.webhook_id', '=', webhookId)
      .where('w.organization_id', '=', organizationId),
  );

/** Queues a delivery's next attempt at `now`, unless claimed meanwhile: `claimed` is told if it was. */
export function scheduleNow(tx: Tx, deliveryId: string, now: DbTimestamp, claimed: () => void): void {
  tx.later(
    tx.sql
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: now, updated_at: now })
      .where('id', '=', deliveryId)
      .where('claim_token', 'is', null),
    (result) => {
      if (Number(result.numAffectedRows ?? 0) === 0) claimed();
    },
  );
}

/** A new delivery's row: due at `now`, no attempt made yet (the fan-out's and the test event's). */
export const pendingDelivery = (
  delivery: { id: string; webhookId: string; organizationId: string; eventId: string; eventType: string },
  now: DbTimestamp,
) =>
  ({
    id: delivery.id,
    webhook_id: delivery.webhookId,
    organization_id: delivery.organizationId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: 'pending',
    attempts: 0,
    last_status_code: null,
    last_error: null,
    last_response_body: null,
    next_attempt_at: now,
    claim_token: null,
    created_at: now,
    updated_at: now,
  }) satisfies Insertable<Database['webhook_deliveries']>;

/** Queues a delivery's row: due now, no attempt made yet. */
export function insertDelivery(
  tx: Tx,
  delivery: { id: string; webhookId: string; organizationId: string; eventId: string; eventType: string },
): void {
  tx.later(tx.sql.insertInto('webhook_deliveries').values(pendingDelivery(delivery, tx.timestamp())));
}
