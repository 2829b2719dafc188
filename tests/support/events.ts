/**
 * Audit events written straight to the table, as if as many changes had committed: for tests of
 * the live event stream under more events than a socket or a subscriber's backlog holds.
 */
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { toDbTimestamp, type Database } from '../../server/platform/database/schema.ts';

/** Writes `count` `organization.created` events of about 1 KB each, 500 a statement; returns their ids, sorted. */
export async function writeEvents(
  db: Kysely<Database>,
  organizationId: string,
  userId: string,
  count: number,
): Promise<string[]> {
  const ids = Array.from({ length: count }, () => uuidv7()).sort();
  const data = JSON.stringify({ organization_name: 'Busy', organization_description: 'x'.repeat(1000) });
  for (let first = 0; first < count; first += 500) {
    await db
      .insertInto('organization_events')
      .values(
        ids.slice(first, first + 500).map((event_id) => ({
          event_id,
          organization_id: organizationId,
          type: 'organization.created',
          actor_user_id: userId,
          subject_user_id: userId,
          data,
          created_at: toDbTimestamp('mysql', new Date()),
        })),
      )
      .execute();
  }
  return ids;
}
