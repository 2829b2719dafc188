/** The statements of a person's own data (behaviour §15): SQL only, no rules, nothing thrown. */
import { sql } from 'kysely';
import { nowFor, unexpired, type ClockedReader } from '../../platform/authorization/memberships.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

/** The caller's current memberships, with their organization's name and slug, by organization id. */
export const membershipRows = (reader: ClockedReader, userId: string) =>
  reader.all(
    reader.sql
      .selectFrom('organization_users as m')
      .innerJoin('organizations as o', 'o.id', 'm.organization_id')
      .select(['o.id as organization_id', 'o.name', 'o.slug', 'm.role', 'm.expires_at', 'm.created_at'])
      .where('m.user_id', '=', userId)
      .where(unexpired('m', nowFor(reader)))
      .orderBy('o.id'),
  );

/** The teams the caller is in, by organization and name. */
export const teamRowsOf = (reader: Reader, userId: string) =>
  reader.all(
    reader.sql
      .selectFrom('team_members as tm')
      .innerJoin('teams as t', 't.id', 'tm.team_id')
      .select(['tm.organization_id', 't.id as team_id', 't.name', 'tm.added_at'])
      .where('tm.user_id', '=', userId)
      .orderBy('tm.organization_id')
      .orderBy('t.name'),
  );

/** Pending, unexpired invitations to the e-mail, oldest first. */
export const pendingInvitationRows = (reader: ClockedReader, email: string) =>
  reader.all(
    reader.sql
      .selectFrom('invitations as i')
      .innerJoin('organizations as o', 'o.id', 'i.organization_id')
      .select(['i.id', 'i.organization_id', 'o.name as organization_name', 'i.role', 'i.created_at', 'i.expires_at'])
      .where('i.email', '=', email)
      .where('i.status', '=', 'pending')
      .where('i.expires_at', '>', nowFor(reader))
      .orderBy('i.created_at')
      .orderBy('i.id'),
  );

/** All the caller's join requests, whatever their status, oldest first. */
export const joinRequestRows = (reader: Reader, userId: string) =>
  reader.all(
    reader.sql
      .selectFrom('join_requests as r')
      .innerJoin('organizations as o', 'o.id', 'r.organization_id')
      .select(['r.id', 'r.organization_id', 'o.name as organization_name', 'r.role', 'r.status', 'r.created_at'])
      .where('r.user_id', '=', userId)
      .orderBy('r.created_at')
      .orderBy('r.id'),
  );

/** The newest `limit` events the user did (`actor_user_id`) or underwent (`subject_user_id`), by its index. */
export const eventRowsWhere = (
  reader: Reader,
  column: 'actor_user_id' | 'subject_user_id',
  userId: string,
  limit: number,
) =>
  reader.all(
    reader.sql
      .selectFrom('organization_events')
      .select([
        'event_id',
        'organization_id',
        'type',
        'actor_user_id',
        'actor_key_id',
        'subject_user_id',
        'data',
        'created_at',
      ])
      .where(column, '=', userId)
      .orderBy('event_id', 'desc')
      .limit(limit),
  );

/**
 * The organizations a deletion of the record changes, in id order (the order their locks are taken
 * in): those with a membership row of the user (expired ones too), a pending invitation to their
 * e-mail, a join request of theirs, or a directory user linked to them.
 */
export async function organizationsOfAccount(reader: Reader, userId: string, email: string): Promise<string[]> {
  const rows = await reader.all(
    reader.sql
      .selectFrom('organization_users')
      .select('organization_id')
      .where('user_id', '=', userId)
      .union(
        reader.sql
          .selectFrom('invitations')
          .select('organization_id')
          .where('email', '=', email)
          .where('status', '=', 'pending'),
      )
      .union(reader.sql.selectFrom('join_requests').select('organization_id').where('user_id', '=', userId))
      .union(reader.sql.selectFrom('directory_users').select('organization_id').where('user_id', '=', userId)),
  );
  return rows.map((row) => row.organization_id).sort();
}

/**
 * Queues, for the deletion of the record (behaviour §15), the lock of the user's row, then locking
 * reads of the organizations of their memberships (expired ones too) and of the pending
 * invitations to their e-mail, which `read` is given once they have run. The lock waits for every
 * membership of theirs being made meanwhile (its insert holds the row shared, by its foreign key,
 * until it commits) and every invitation to their e-mail (its change reads their row shared:
 * users/user-with-email.ts); the reads, current rather than from the transaction's
 * snapshot, see those. Only on MySQL and MariaDB: the embedded database has no row locks, nor
 * their syntax, and its one writer at a time keeps the deletion apart from them.
 */
export function lockUserAndTies(
  tx: Tx,
  userId: string,
  email: string,
  read: (organizationIds: string[]) => void,
): void {
  if (tx.dialect === 'sqlite') return;
  tx.later(tx.sql.selectFrom('users').select('id').where('id', '=', userId).forUpdate());
  const organizationIds: string[] = [];
  tx.later(
    tx.sql.selectFrom('organization_users').select('organization_id').where('user_id', '=', userId).forUpdate(),
    (result) => organizationIds.push(...result.rows.map((row) => row.organization_id)),
  );
  tx.later(
    tx.sql
      .selectFrom('invitations')
      .select('organization_id')
      .where('email', '=', email)
      .where('status', '=', 'pending')
      .forUpdate(),
    (result) => read([...organizationIds, ...result.rows.map((row) => row.organization_id)]),
  );
}

/** Queues the delete of the organization's pending invitations to the e-mail. */
export function deletePendingInvitations(tx: Tx, organizationId: string, email: string): void {
  tx.later(
    tx.sql
      .deleteFrom('invitations')
      .where('organization_id', '=', organizationId)
      .where('email', '=', email)
      .where('status', '=', 'pending'),
  );
}

/** The events that name an invitee's e-mail (shared/event-types.ts). */
const EVENTS_WITH_AN_EMAIL = ['invitation.created', 'invitation.revoked', 'invitation.declined'] as const;

/**
 * Queues the deletes of what else is the user's: their join requests, their directory links (the
 * directory user stays, linked to no one), and their record, whose deletion `deleted` is told of.
 * Their events keep their user id and nothing else of theirs (behaviour §15): the e-mail of those
 * naming one is set to null, found by the events' actor and subject indexes, JSON's `json_set` on
 * both databases.
 */
export function deleteUserRecord(tx: Tx, userId: string, deleted: (found: boolean) => void): void {
  for (const column of ['actor_user_id', 'subject_user_id'] as const) {
    tx.later(
      tx.sql
        .updateTable('organization_events')
        .set({ data: sql<string>`json_set(data, '$.email', null)` })
        .where(column, '=', userId)
        .where('type', 'in', EVENTS_WITH_AN_EMAIL),
    );
  }
  tx.later(tx.sql.deleteFrom('join_requests').where('user_id', '=', userId));
  tx.later(tx.sql.updateTable('directory_users').set({ user_id: null }).where('user_id', '=', userId));
  tx.later(tx.sql.deleteFrom('users').where('id', '=', userId), (result) =>
    deleted(Number(result.numAffectedRows ?? 0) > 0),
  );
}
