/**
 * Reading the audit trail (behaviour §9): an organization's events, oldest first by `event_id`, for
 * its owners and admins. Events are written by the changes themselves (organization-changes.ts);
 * event-feed.ts delivers new ones to subscribers.
 */
import type { AuditEvent, EventType } from '../../../shared/events.ts';
import type { Sql } from '../../platform/database/schema.ts';
import type { RoleCatalogue } from '../../platform/role-catalogue.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';

/**
 * Whether `event` may take the right to read the organization's events away from `userId`: the
 * organization is deleted, or the user is removed, leaves, expires, leaves a team, or is given a
 * role that is not known to hold `events:read`. An organization's own role counts as not holding
 * it: its permissions are not in the event, and a subscriber who is cut off by mistake resumes from
 * the last event it saw, with its rights checked again. A change to a team's roles reaches live
 * subscribers through the feed's check of what each holds before every batch (event-feed.ts).
 */
export function revokesAccess(event: AuditEvent, userId: string, roles: RoleCatalogue): boolean {
  if (event.type === 'organization.deleted') return true;
  if (event.subject_user_id !== userId) return false;
  if (event.type === 'member.removed' || event.type === 'member.left' || event.type === 'member.expired') return true;
  // A team may have given it; whether it did is not in the event.
  if (event.type === 'team.member_removed') return true;
  return event.type === 'member.role_changed' && !roles.fixedRoles.get(event.data.to)?.permissions.has('events:read');
}

export interface EventQuery {
  /** Only events after this event id (oldest first), or before it with `newestFirst`. */
  after?: string | null;
  limit: number;
  type?: EventType;
  /** The newest first: the events before `after`, or the newest of all without it. */
  newestFirst?: boolean;
}

type EventRow = {
  event_id: string;
  organization_id: string;
  type: string;
  actor_user_id: string;
  subject_user_id: string | null;
  data: string;
  created_at: string | number | Date;
};

/** A stored row as the API shows it; the row was written from the typed EventData of its type. */
export const toAuditEvent = (row: EventRow): AuditEvent =>
  ({
    event_id: row.event_id,
    type: row.type,
    organization_id: row.organization_id,
    actor_user_id: row.actor_user_id,
    subject_user_id: row.subject_user_id,
    data: JSON.parse(row.data) as unknown,
    created_at: isoTimestamp(row.created_at),
  }) as AuditEvent;

/** The organization's events after `query.after`, oldest first, at most `query.limit`. */
export async function readEvents(sql: Sql, organizationId: string, query: EventQuery): Promise<AuditEvent[]> {
  let select = sql.selectFrom('organization_events').selectAll().where('organization_id', '=', organizationId);
  if (query.after) select = select.where('event_id', query.newestFirst ? '<' : '>', query.after);
  if (query.type) select = select.where('type', '=', query.type);
  const rows = await select
    .orderBy('event_id', query.newestFirst ? 'desc' : 'asc')
    .limit(query.limit)
    .execute();
  return rows.map(toAuditEvent);
}

/** The id of the organization's newest event, if it has any. */
export async function newestEventId(sql: Sql, organizationId: string): Promise<string | null> {
  const row = await sql
    .selectFrom('organization_events')
    .select('event_id')
    .where('organization_id', '=', organizationId)
    .orderBy('event_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.event_id ?? null;
}
