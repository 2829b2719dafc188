/**
 * The audit trail (behaviour §9): an organization's events, oldest first by `event_id`, as the API
 * shows them, and who loses the right to read them. Events are written by the changes themselves
 * (organization-changes.ts); event-feed.ts delivers new ones to subscribers.
 */
import type { AuditEvent } from '../../../shared/events.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import type { Reader } from '../../platform/database/transaction.ts';
import type { RoleCatalogue } from '../../platform/role-catalogue.ts';
import type { KeyActor } from '../../platform/authorization/access.ts';
import { eventRows, type EventQuery, type EventRow } from './events.queries.ts';

/** Who subscribes to an organization's events: a person, or a key once the guard has found it (behaviour §16). */
export type Watcher = { kind: 'person'; userId: string } | { kind: 'key'; actor: KeyActor; keyId: string };

/**
 * Whether `event` may take the right to read the organization's events away from a watcher: the
 * organization is deleted, or the user is removed, leaves, expires, leaves a team, or is given a
 * role that is not known to hold `events:read`, or the key is revoked. An organization's own role counts as not holding
 * it: its permissions are not in the event, and a subscriber who is cut off by mistake resumes from
 * the last event it saw, with its rights checked again. A change to a team's roles reaches live
 * subscribers through the feed's check of what each holds before every batch (event-feed.ts).
 */
export function revokesAccess(event: AuditEvent, watcher: Watcher, roles: RoleCatalogue): boolean {
  if (event.type === 'organization.deleted') return true;
  if (watcher.kind === 'key') return event.type === 'api_key.revoked' && event.data.key_id === watcher.keyId;
  if (event.subject_user_id !== watcher.userId) return false;
  if (event.type === 'member.removed' || event.type === 'member.left' || event.type === 'member.expired') return true;
  // A team may have given it; whether it did is not in the event.
  if (event.type === 'team.member_removed') return true;
  return event.type === 'member.role_changed' && !roles.fixedRoles.get(event.data.to)?.permissions.has('events:read');
}

/**
 * Whether `event` may have taken `watcher`'s access away where `revokesAccess` cannot tell from the
 * event alone: what a role or a team gives changed, or the watcher's own role or teams did. A
 * subscriber found without access after a batch of events gets them up to the first of these
 * (event-feed.ts): the ones before it committed while it still had access.
 */
export function mayRevokeAccess(event: AuditEvent, watcher: Watcher): boolean {
  switch (event.type) {
    case 'role.updated':
    case 'role.deleted':
    case 'team.deleted':
      return true;
    case 'team.updated':
      return event.data.changes.roles !== undefined;
    case 'member.role_changed':
    case 'team.member_removed':
      return watcher.kind === 'person' && event.subject_user_id === watcher.userId;
    default:
      return false;
  }
}

/** A row of the trail, as the list and the webhook dispatcher read it. */
type StoredEvent = Pick<
  EventRow,
  'event_id' | 'organization_id' | 'type' | 'actor_user_id' | 'actor_key_id' | 'subject_user_id' | 'data' | 'created_at'
>;

/** A stored row as the API shows it; the row was written from the typed EventData of its type. */
export const toAuditEvent = (row: StoredEvent): AuditEvent =>
  ({
    event_id: row.event_id,
    type: row.type,
    organization_id: row.organization_id,
    actor_user_id: row.actor_user_id,
    actor_key_id: row.actor_key_id,
    subject_user_id: row.subject_user_id,
    data: JSON.parse(row.data) as unknown,
    created_at: isoTimestamp(row.created_at),
  }) as AuditEvent;

/** The organization's events after `query.after`, oldest first, at most `query.limit`. */
export async function readEvents(reader: Reader, organizationId: string, query: EventQuery): Promise<AuditEvent[]> {
  return (await eventRows(reader, organizationId, query)).map(toAuditEvent);
}
