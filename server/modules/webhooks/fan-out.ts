/**
 * From the event log to deliveries (behaviour §13). The log is the outbox: an event is in it if
 * and only if its change committed, so deliveries made from it never carry a change that rolled
 * back, and nothing is lost when an instance dies between a commit and a send.
 *
 * Each organization with endpoints has a read position (webhook_cursors). An instance hands out
 * the events after it in one transaction that first takes the position's row, then reads the
 * events after it and the enabled endpoints, inserts a delivery for each event an endpoint asks
 * for, and moves the position to the newest event it read. So the deliveries of an event commit
 * together with the position passing it, whatever the interleaving of instances:
 * - on one server the row lock makes an organization's hand-outs take turns. An instance that
 *   finds the row held (another is handing out those events right now) leaves the organization
 *   to that one and to its own next pass (SKIP LOCKED) rather than wait, and one that takes the
 *   row reads the position where the last holder left it;
 * - on a multi-primary cluster, where the lock holds only on its own node, two hand-outs through
 *   two nodes both write the row: certification fails one, which is run again (transaction.ts)
 *   and then reads the other's position;
 * - the embedded database has one writer at a time.
 * The position is taken in the transaction's first round trip, before anything is written, and
 * not checked beside the writes: a check of a statement queued with `tx.later` runs once COMMIT
 * has gone with it (unit-of-work.ts), too late to roll anything back.
 *
 * An organization's event ids sort in commit order (organization-changes.ts), so "after the
 * position" never skips an event that commits later, and a hand-out that reads an event reads
 * every earlier one.
 */
import type { Compilable, Insertable } from 'kysely';
import { nextEventId } from '../../platform/organization-changes.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Database, Sql } from '../../platform/database/schema.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';
import { pendingDelivery } from './webhooks.queries.ts';

/** Events handed out per organization and transaction. */
const EVENTS_PER_PASS = 500;
/** Deliveries per INSERT statement (13 values each). */
const INSERT_ROWS = 1000;
/** Organizations looked at per pass. */
const ORGANIZATIONS_PER_PASS = 100;

/** Organizations whose log has events after their read position. */
const behindCursors = prepare((sql) =>
  sql
    .selectFrom('webhook_cursors as c')
    .select('c.organization_id')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('organization_events as e')
          .select('e.event_id')
          .whereRef('e.organization_id', '=', 'c.organization_id')
          .whereRef('e.event_id', '>', 'c.last_event_id'),
      ),
    )
    .limit(ORGANIZATIONS_PER_PASS),
);

const position = (sql: Sql, organizationId: string) =>
  sql.selectFrom('webhook_cursors').select('last_event_id').where('organization_id', '=', organizationId);

/** The read position, locked for the transaction; none while another transaction holds it. */
const takePosition = prepare((sql, organizationId: string) => position(sql, organizationId).forUpdate().skipLocked());

/** The embedded database has no row locks, nor their syntax: its one writer at a time serialises hand-outs. */
const readPosition = prepare(position);

const eventsAfter = prepare((sql, organizationId: string, afterEventId: string) =>
  sql
    .selectFrom('organization_events')
    .select(['event_id', 'type'])
    .where('organization_id', '=', organizationId)
    .where('event_id', '>', afterEventId)
    .orderBy('event_id')
    .limit(EVENTS_PER_PASS),
);

const enabledEndpoints = prepare((sql, organizationId: string) =>
  sql
    .selectFrom('webhooks')
    .select(['id', 'event_types', 'created_event_id'])
    .where('organization_id', '=', organizationId)
    .where('enabled', '=', 1),
);

/** Whether an endpoint asking for `eventTypes` (JSON) wants events of `type`. */
function wants(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.includes('*') || eventTypes.includes(type);
}

type NewDelivery = Insertable<Database['webhook_deliveries']>;

/**
 * Inserts deliveries, leaving alone any the endpoint already has for the event. None should be
 * there: earlier versions of this module committed the deliveries of a race they lost ahead of
 * the position (module comment), and the next hand-out of such an organization must go past them
 * instead of failing on the unique key at every pass.
 */
function insertDeliveries(tx: Tx, deliveries: NewDelivery[]): Compilable<unknown> {
  const insert = tx.sql.insertInto('webhook_deliveries').values(deliveries);
  return tx.dialect === 'sqlite'
    ? insert.onConflict((conflict) => conflict.columns(['webhook_id', 'event_id']).doNothing())
    : insert.onDuplicateKeyUpdate((update) => ({ id: update.ref('webhook_deliveries.id') }));
}

/** Hands out one organization's next events; the number of deliveries made (0 while another transaction holds its position). */
function handOut(db: Db, organizationId: string): Promise<number> {
  // No organization's turn (admission.ts): the hand-out takes no organization's lock, and
  // waiting behind the API's changes of a busy organization only held deliveries up.
  return db.transaction(async (tx: Tx) => {
    const taken = await tx.first((tx.dialect === 'sqlite' ? readPosition : takePosition)(tx.sql, organizationId));
    if (!taken) return 0;
    let endpoints: Array<{ id: string; eventTypes: string[]; createdEventId: string }> = [];
    tx.later(enabledEndpoints(tx.sql, organizationId), (result) => {
      endpoints = result.rows.map((endpoint) => ({
        id: endpoint.id,
        eventTypes: JSON.parse(endpoint.event_types) as string[],
        createdEventId: endpoint.created_event_id,
      }));
    });
    const events = await tx.all(eventsAfter(tx.sql, organizationId, taken.last_event_id));
    if (events.length === 0) return 0;
    tx.later(
      tx.sql
        .updateTable('webhook_cursors')
        .set({ last_event_id: events.at(-1)!.event_id })
        .where('organization_id', '=', organizationId),
    );
    const now = tx.timestamp();
    // Ids that follow one another in the events' order, so that the log lists them as they happened.
    let lastId: string | null = null;
    const nextId = () => (lastId = nextEventId(lastId, tx.now));
    const deliveries = events.flatMap((event) =>
      endpoints
        // An endpoint receives what commits after its own creation.
        .filter((endpoint) => event.event_id > endpoint.createdEventId && wants(endpoint.eventTypes, event.type))
        .map((endpoint) =>
          pendingDelivery(
            { id: nextId(), webhookId: endpoint.id, organizationId, eventId: event.event_id, eventType: event.type },
            now,
          ),
        ),
    );
    // In statements of INSERT_ROWS rows, within the bound parameters a statement may have.
    for (let start = 0; start < deliveries.length; start += INSERT_ROWS) {
      tx.later(insertDeliveries(tx, deliveries.slice(start, start + INSERT_ROWS)));
    }
    return deliveries.length;
  });
}

/** One organization's hand-out failed: reported, and tried again at the next pass. */
export class HandOutFailed extends Error {
  override name = 'HandOutFailed';
  /** Logged with the error (pino logs an error's own fields). */
  readonly organizationId: string;

  constructor(organizationId: string, cause: unknown) {
    super(`Handing out the events of organization ${organizationId} failed; the pass went on without it`, { cause });
    this.organizationId = organizationId;
  }
}

/**
 * One pass over the organizations that are behind: the number of deliveries made. Each
 * organization's hand-out is a transaction of its own, and one that fails is told to `onFailure`
 * and left for the next pass: it holds up neither the other organizations nor the attempts.
 */
export async function fanOut(db: Db, onFailure: (failure: HandOutFailed) => void): Promise<number> {
  let made = 0;
  for (const { organization_id } of await db.all(behindCursors(db.sql))) {
    try {
      made += await handOut(db, organization_id);
    } catch (error) {
      onFailure(new HandOutFailed(organization_id, error));
    }
  }
  return made;
}
