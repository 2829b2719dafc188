/**
 * How every change to an organization (its row, members, invitations) is made, so that the rules
 * hold under concurrency on one database server and on a multi-primary cluster alike:
 *
 * 1. `takeOrganization` is the transaction's first statement: it writes the organization's row.
 *    On one server that row lock serialises all changes to the organization; reads that follow see
 *    everything committed before it (on MariaDB's REPEATABLE READ the snapshot is taken at the first
 *    read, which comes after the lock). On Galera, where locks are local to a node and certification
 *    only compares the rows transactions write, it makes any two changes to one organization
 *    conflict, so one of them is retried (transaction.ts) and sees the other's result.
 * 2. `appendEvent` records the change in the audit trail in the same transaction (behaviour §9): the
 *    event exists if and only if the change committed, and its id sorts after every earlier event
 *    of the organization, because it is made under the lock from the newest one.
 */
import type { Compilable } from 'kysely';
import type { EventData, EventType } from '../../shared/events.ts';
import type { DbTimestamp, Sql } from './database/schema.ts';
import { newId } from './database/ids.ts';
import { prepare } from './database/prepared.ts';
import type { Tx } from './database/transaction.ts';

/** An organization taken for a change, within one transaction. */
/** Who makes a change, as its events record it: a person, or a key (behaviour §16). */
export interface EventActor {
  readonly userId: string | null;
  readonly keyId: string | null;
}

/** A person as the actor of a change. */
export const personActor = (userId: string): EventActor => ({ userId, keyId: null });

export interface OrganizationChange {
  readonly organizationId: string;
  /** Who makes the change, as its events record it. */
  readonly actor: EventActor;
  /**
   * The organization's newest event id, kept current as this change appends events; undefined
   * until the statement that reads it has run (with the transaction's next read).
   */
  newestEventId: string | null | undefined;
}

/** How a change learns its organization's newest event id, which must be read under the lock. */
export type NewestEventRead =
  /** takeOrganization queues the read, a statement of its own. */
  | 'own statement'
  /**
   * Another statement queued after the lock carries it as a column (newestEventColumn) and sets
   * `newestEventId` when it has run: the authorization guard of a person's change, which the
   * change cannot go on without (authorization/access.ts). One statement fewer under the lock.
   */
  | 'with the guard';

/**
 * Locks the organization for this transaction (see the module comment): queued, to go out with the
 * transaction's first read, together with the read of its newest event (unless `newestEvent` says
 * another statement reads it). `missing` is thrown when there is no such organization.
 *
 * On MariaDB the statement does not queue for the row lock (a lock wait of 0 s) unless the attempt
 * may wait (`tx.waitsForLock`: behind another change of this process, admission.ts): when another
 * session holds the organization, it fails at once as a lost conflict and the transaction is
 * tried again after a pause, holding no connection meanwhile (transaction.ts). So however many
 * organizations are locked, and for however long, their waiting changes take few connections from
 * reads and other organizations.
 */
export function takeOrganization(
  tx: Tx,
  organizationId: string,
  actor: EventActor | (() => EventActor),
  missing: () => Error,
  newestEvent: NewestEventRead = 'own statement',
): OrganizationChange {
  const change: OrganizationChange = {
    organizationId,
    // A key is known once the change's first statements have run (authorization/access.ts).
    get actor() {
      return typeof actor === 'function' ? actor() : actor;
    },
    newestEventId: undefined,
  };
  tx.takenOrganizations.add(organizationId);
  const update = organizationLock(tx.sql, organizationId);
  tx.later(tx.dialect === 'mariadb' && !tx.waitsForLock ? noLockWait(update) : update, (result) => {
    if (Number(result.numAffectedRows ?? 0) === 0) throw missing();
  });
  if (newestEvent === 'own statement') {
    tx.later(newestEventRow(tx.sql, organizationId), (result) => {
      change.newestEventId = result.rows[0]?.event_id ?? null;
    });
  }
  return change;
}

const organizationLock = prepare((sql, organizationId: string) =>
  sql
    .updateTable('organizations')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', organizationId),
);

const newestEvent = (sql: Sql, organizationId: string) =>
  sql
    .selectFrom('organization_events')
    .select('event_id')
    .where('organization_id', '=', organizationId)
    .orderBy('event_id', 'desc')
    .limit(1);

const newestEventRow = prepare(newestEvent);

/** The organization's newest event id as a column `newest_event_id` of another select ('with the guard'). */
export const newestEventColumn = (sql: Sql, organizationId: string) =>
  newestEvent(sql, organizationId).as('newest_event_id');

/** MariaDB's per-statement setting: this statement gives up on a held row lock at once (1205). */
const noLockWait = <Row>(query: Compilable<Row>): Compilable<Row> => ({
  compile: () => {
    const compiled = query.compile();
    return { ...compiled, sql: `set statement innodb_lock_wait_timeout = 0 for ${compiled.sql}` };
  },
});

/** A brand-new organization, created in this transaction: no lock to take, no events yet. */
export const newOrganization = (organizationId: string, actor: EventActor): OrganizationChange => ({
  organizationId,
  actor,
  newestEventId: null,
});

const UUID_HEX = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;

/** The UUID one above `id` in its low 62 bits (the RFC 9562 variant's random field), or undefined on overflow. */
function successor(id: string): string | undefined {
  const hex = id.replace(UUID_HEX, '$1$2$3$4$5');
  const value = BigInt(`0x${hex}`) + 1n;
  const lowBits = (1n << 62n) - 1n;
  if ((value & lowBits) === 0n) return undefined;
  const next = value.toString(16).padStart(32, '0');
  return `${next.slice(0, 8)}-${next.slice(8, 12)}-${next.slice(12, 16)}-${next.slice(16, 20)}-${next.slice(20)}`;
}

const millisecondsOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

/**
 * A UUID v7 for `now` that sorts after `newest`. Another instance's clock may be ahead of ours, or
 * two instances may make ids in one millisecond: then the id follows `newest` instead of `now`.
 */
export function nextEventId(newest: string | null, now: Date): string {
  const candidate = newId(now.getTime());
  if (newest === null || candidate > newest) return candidate;
  return successor(newest) ?? newId(millisecondsOf(newest) + 1);
}

export interface NewEvent<Type extends EventType> {
  type: Type;
  subjectUserId: string | null;
  /** Who the event names as its actor when it is not the change's: an expiry is the member's own. */
  actorUserId?: string;
  data: EventData[Type];
}

const eventInsert = prepare(
  (
    sql,
    eventId: string,
    organizationId: string,
    type: EventType,
    actorUserId: string | null,
    actorKeyId: string | null,
    subjectUserId: string | null,
    data: string,
    now: DbTimestamp,
  ) =>
    sql.insertInto('organization_events').values({
      event_id: eventId,
      organization_id: organizationId,
      type,
      actor_user_id: actorUserId,
      actor_key_id: actorKeyId,
      subject_user_id: subjectUserId,
      data,
      created_at: now,
    }),
);

/**
 * Appends one event of the change, in its transaction (queued, to go out with the change); returns
 * the event id.
 */
export async function appendEvent<Type extends EventType>(
  tx: Tx,
  change: OrganizationChange,
  event: NewEvent<Type>,
): Promise<string> {
  // The id follows the newest event read under the lock: that read must have run.
  if (change.newestEventId === undefined) await tx.flush();
  const eventId = nextEventId(change.newestEventId ?? null, tx.now);
  tx.later(
    eventInsert(
      tx.sql,
      eventId,
      change.organizationId,
      event.type,
      event.actorUserId ?? change.actor.userId,
      event.actorUserId === undefined ? change.actor.keyId : null,
      event.subjectUserId,
      JSON.stringify(event.data),
      tx.timestamp(),
    ),
  );
  change.newestEventId = eventId;
  return eventId;
}
