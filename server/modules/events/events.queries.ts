/** The statements of the audit trail (behaviour §9): SQL only, no rules, nothing thrown. */
import type { EventType } from '../../../shared/events.ts';
import type { Reader } from '../../platform/database/transaction.ts';

export interface EventQuery {
  /** Only events after this event id (oldest first), or before it with `newestFirst`. */
  after?: string | null;
  limit: number;
  type?: EventType;
  /** Only events this user did. */
  actorUserId?: string | undefined;
  /** The newest first: the events before `after`, or the newest of all without it. */
  newestFirst?: boolean;
  /** Only the changes the identity provider made (behaviour §18). */
  via?: 'scim';
}

/**
 * `data` as appendEvent wrote it (JSON.stringify, no spaces) holds `"via":"scim"` only as that key
 * and value: a quote inside a string is escaped there. A pattern, not the engines' JSON functions,
 * which answer differently (MariaDB's JSON_EXTRACT keeps the quotes, SQLite's drops them).
 */
const VIA_SCIM = '%"via":"scim"%';

/** The organization's events after `query.after`, oldest first (or newest first), at most `query.limit`. */
export function eventRows(reader: Reader, organizationId: string, query: EventQuery) {
  let select = reader.sql.selectFrom('organization_events').selectAll().where('organization_id', '=', organizationId);
  if (query.after) select = select.where('event_id', query.newestFirst ? '<' : '>', query.after);
  if (query.type) select = select.where('type', '=', query.type);
  if (query.actorUserId) select = select.where('actor_user_id', '=', query.actorUserId);
  if (query.via) select = select.where('data', 'like', VIA_SCIM);
  return reader.all(select.orderBy('event_id', query.newestFirst ? 'desc' : 'asc').limit(query.limit));
}

export type EventRow = Awaited<ReturnType<typeof eventRows>>[number];

/** The id of the organization's newest event, if it has any. */
export async function newestEventId(reader: Reader, organizationId: string): Promise<string | null> {
  const row = await reader.first(
    reader.sql
      .selectFrom('organization_events')
      .select('event_id')
      .where('organization_id', '=', organizationId)
      .orderBy('event_id', 'desc')
      .limit(1),
  );
  return row?.event_id ?? null;
}

/** Where a feed has read an organization's events up to (null: it has seen none). */
export interface EventCursor {
  organizationId: string;
  cursor: string | null;
}

/** The events after each organization's cursor, by organization and id, at most `limit` in all. */
export const eventsAfterCursors = (reader: Reader, cursors: readonly EventCursor[], limit: number) =>
  reader.all(
    reader.sql
      .selectFrom('organization_events')
      .selectAll()
      .where((eb) =>
        eb.or(
          cursors.map(({ organizationId, cursor }) =>
            cursor === null
              ? eb('organization_id', '=', organizationId)
              : eb.and([eb('organization_id', '=', organizationId), eb('event_id', '>', cursor)]),
          ),
        ),
      )
      .orderBy('organization_id')
      .orderBy('event_id')
      .limit(limit),
  );
