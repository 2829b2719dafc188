/**
 * What a delivery sends (behaviour §13), built from the delivery row and, when it has one, its event
 * of the log: the dispatcher sends it, and the delivery log shows it.
 */
import { TEST_EVENT_TYPE, type DeliveryPayload } from '../../../shared/webhooks.ts';
import type { DbTimestamp } from '../../platform/database/schema.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import { toAuditEvent } from '../events/events.service.ts';

/** A delivery's own columns and those of its event, null when the log has no such event. */
export interface DeliveryEventColumns {
  event_id: string;
  event_type: string;
  organization_id: string;
  webhook_id: string;
  created_at: DbTimestamp;
  actor_user_id: string | null;
  actor_key_id: string | null;
  subject_user_id: string | null;
  data: string | null;
  event_created_at: DbTimestamp | null;
}

/** An event as a delivery carries it: as the event list shows it (behaviour §9), or a test event. */
export type SentEvent = {
  event_id: string;
  type: string;
  organization_id: string;
  actor_user_id: string | null;
  actor_key_id: string | null;
  subject_user_id: string | null;
  data: unknown;
  created_at: string;
};

/**
 * The event a delivery carries: its event of the log, or, for a test event (never in the log), one
 * made from the delivery itself, whose actor is the service's (null) and time the delivery's.
 * Undefined when the event is no longer in the log.
 */
export function eventOfDelivery(row: DeliveryEventColumns): SentEvent | undefined {
  if (row.data !== null && row.event_created_at !== null) {
    return toAuditEvent({ ...row, type: row.event_type, data: row.data, created_at: row.event_created_at });
  }
  if (row.event_type !== TEST_EVENT_TYPE) return undefined;
  return {
    event_id: row.event_id,
    type: TEST_EVENT_TYPE,
    organization_id: row.organization_id,
    actor_user_id: null,
    actor_key_id: null,
    subject_user_id: null,
    data: { webhook_id: row.webhook_id },
    created_at: isoTimestamp(row.created_at),
  };
}

/** The body POSTed: `{type, timestamp, data}`, the same at every attempt. */
export const payloadOf = (event: SentEvent): DeliveryPayload => ({
  type: event.type,
  timestamp: event.created_at,
  data: event,
});

/** What the delivery sends, for its log; null once its event is no longer in the log. */
export function deliveryPayload(row: DeliveryEventColumns): DeliveryPayload | null {
  const event = eventOfDelivery(row);
  return event ? payloadOf(event) : null;
}
