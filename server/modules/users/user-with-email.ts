/**
 * The one statement of user records that other modules' changes queue (invitations, the directory):
 * a file of its own, so that they take it without importing the users' service, which the
 * directory's awaiting records are activated from.
 */
import { sql } from 'kysely';
import type { Tx } from '../../platform/database/transaction.ts';

/**
 * Queues a read of the user record with the e-mail, which `read` is given (its id, or null). On
 * MySQL and MariaDB the read is current, not the transaction's snapshot, and holds until the change
 * commits the record's row shared or, with no record, the place in the e-mail's unique index one
 * would take: a record made meanwhile is either seen, or waits for the change to commit and then
 * finds what it made (behaviour §18); a deletion of the record, which takes its row, waits for the
 * change too and then finds what it made (§15). The embedded database makes one change at a time.
 */
export function lockUserWithEmail(tx: Tx, email: string, read: (userId: string | null) => void): void {
  const user = tx.sql.selectFrom('users').select('id').where('email', '=', email);
  tx.later(tx.dialect === 'sqlite' ? user : user.modifyEnd(sql`lock in share mode`), (result) =>
    read(result.rows[0]?.id ?? null),
  );
}
