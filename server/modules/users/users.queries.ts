/** The statements of user records (behaviour §4.1): SQL only, no rules, nothing thrown. */
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp } from '../../platform/database/schema.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

const userInsert = prepare((sql, id: string, firstName: string, lastName: string, email: string, now: DbTimestamp) =>
  sql.insertInto('users').values({
    id,
    first_name: firstName,
    last_name: lastName,
    email,
    created_at: now,
    updated_at: now,
  }),
);

export interface NewUser {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
}

export function insertUser(tx: Tx, user: NewUser): void {
  tx.later(userInsert(tx.sql, user.id, user.firstName, user.lastName, user.email, tx.timestamp()));
}

const userById = prepare((sql, id: string) =>
  sql
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', 'email', 'created_at', 'updated_at'])
    .where('id', '=', id),
);

export const userRow = (reader: Reader, userId: string) => reader.first(userById(reader.sql, userId));

/** Queues the change of a user's names; `updated` sees whether there was a record to change. */
export function updateNames(
  tx: Tx,
  userId: string,
  names: { first_name?: string; last_name?: string },
  updated: (found: boolean) => void,
): void {
  tx.later(
    tx.sql
      .updateTable('users')
      .set({ first_name: names.first_name, last_name: names.last_name, updated_at: tx.timestamp() })
      .where('id', '=', userId),
    (result) => updated(Number(result.numAffectedRows ?? 0) > 0),
  );
}
