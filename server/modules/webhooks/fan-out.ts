/**
 * From the event log to deliveries (behaviour §13). The log is the outbox: an event is in it if
 * and only if its change committed, so deliveries made from it never carry a change that rolled
 * back, and nothing is lost when an instance dies between a commit and a send.
 *
 * Each organization with endpoints has a read position (webhook_cursors). An instance hands out
 * the events after it in one transaction: it reads them and the organization's enabled endpoints,
 * inserts a delivery for each event an endpoint asks for, and moves the position with a
 * conditional update (`where last_event_id = <what it read>`). Of two instances doing so at once,
 * one finds the position moved and rolls back, on one server (the row lock) and on a multi-primary
 * cluster alike (both write the row: certification fails one); and a delivery is unique per
 * endpoint and event besides.
 *
 * An organization's event ids sort in commit order (organization-changes.ts), so "after the
 * position" never skips an event that commits later.
 */
import { nextEventId } from '../../platform/organization-changes.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';

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
    .select(['c.organization_id', 'c.last_event_id'])
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('organization_events as e')
          .select('e.event_id')
          .whereRef('e.organization_id', '=', 'c.organization_id')
          .whereRef('e.event_id', '>', 'c.last_event_id'),
      ),
    )
    .limit(ORGANIZATIONS_PER_PASS),
);

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

/** Someone else moved the read position first: their deliveries stand, ours roll back. */
class PositionMoved extends Error {}

/** Whether an endpoint asking for `eventTypes` (JSON) wants events of `type`. */
function wants(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.includes('*') || eventTypes.includes(type);
}

/** Hands out one organization's next events; the number of deliveries made (0 when another instance did it). */
async function handOut(db: Db, organizationId: string, lastEventId: string): Promise<number> {
  try {
    return await db.transaction(
      async (tx: Tx) => {
        const events = await tx.all(eventsAfter(tx.sql, organizationId, lastEventId));
        if (events.length === 0) return 0;
        const endpoints = (await tx.all(enabledEndpoints(tx.sql, organizationId))).map((endpoint) => ({
          ...endpoint,
          eventTypes: JSON.parse(endpoint.event_types) as string[],
        }));
        const newest = events.at(-1)!.event_id;
        tx.later(
          tx.sql
            .updateTable('webhook_cursors')
            .set({ last_event_id: newest })
            .where('organization_id', '=', organizationId)
            .where('last_event_id', '=', lastEventId),
          (result) => {
            if (Number(result.numAffectedRows ?? 0) === 0) throw new PositionMoved();
          },
        );
        const now = tx.timestamp();
        // Ids that follow one another in the events' order, so that the log lists them as they happened.
        let lastId: string | null = null;
        const nextId = () => (lastId = nextEventId(lastId, tx.now));
        const deliveries = events.flatMap((event) =>
          endpoints
            // An endpoint receives what commits after its own creation.
            .filter((endpoint) => event.event_id > endpoint.created_event_id && wants(endpoint.eventTypes, event.type))
            .map((endpoint) => ({
              id: nextId(),
              webhook_id: endpoint.id,
              organization_id: organizationId,
              event_id: event.event_id,
              event_type: event.type,
              status: 'pending' as const,
              attempts: 0,
              last_status_code: null,
              last_error: null,
              next_attempt_at: now,
              claim_token: null,
              created_at: now,
              updated_at: now,
            })),
        );
        // In statements of INSERT_ROWS rows, within the bound parameters a statement may have.
        for (let start = 0; start < deliveries.length; start += INSERT_ROWS) {
          tx.later(tx.sql.insertInto('webhook_deliveries').values(deliveries.slice(start, start + INSERT_ROWS)));
        }
        return deliveries.length;
      },
      // No organization's turn (admission.ts): the hand-out takes no organization's lock, and
      // waiting behind the API's changes of a busy organization only held deliveries up.
    );
  } catch (error) {
    if (error instanceof PositionMoved) return 0;
    throw error;
  }
}

/** One pass over the organizations that are behind: the number of deliveries made. */
export async function fanOut(db: Db): Promise<number> {
  let made = 0;
  for (const cursor of await db.all(behindCursors(db.sql))) {
    made += await handOut(db, cursor.organization_id, cursor.last_event_id);
  }
  return made;
}
