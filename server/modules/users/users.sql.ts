/** The caller's own user record (behaviour §4.1, behaviour §4). */
import type { z } from 'zod';
import type { createUserInput, updateUserInput, User as UserView } from '../../../shared/users.ts';
import type { Caller } from '../../platform/auth/tokens.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import type { DbTimestamp } from '../../platform/database/schema.ts';
import { prepare } from '../../platform/database/prepared.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import type { Db } from '../../platform/database/transaction.ts';

/** The caller has no user record yet: answered wherever one is needed (users, organizations, invitations). */
export const noUserRecord = () => notFound('No user record for this caller: create it with POST /users first');
const emailTaken = () => conflict('Another user already has this e-mail address');
const alreadyRegistered = () => conflict('A user record already exists for this caller');

const insertUser = prepare((sql, id: string, firstName: string, lastName: string, email: string, now: DbTimestamp) =>
  sql.insertInto('users').values({
    id,
    first_name: firstName,
    last_name: lastName,
    email,
    created_at: now,
    updated_at: now,
  }),
);

const userById = prepare((sql, id: string) =>
  sql
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', 'email', 'created_at', 'updated_at'])
    .where('id', '=', id),
);

/**
 * One INSERT: the unique indexes decide both refusals (an existing record for this caller, or the
 * e-mail held by another user), also for two sign-ups racing each other.
 */
export async function createUser(db: Db, caller: Caller, input: z.infer<typeof createUserInput>): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      tx.later(insertUser(tx.sql, caller.userId, input.first_name, input.last_name, input.email, tx.timestamp()));
    });
  } catch (error) {
    if (!db.isUniqueViolation(error)) throw error;
    // The violated index names the column: users_email_unique on MySQL, users.email on SQLite.
    throw /email/i.test((error as Error).message) ? emailTaken() : alreadyRegistered();
  }
}

export async function getUser(db: Db, caller: Caller): Promise<UserView> {
  const row = await db.first(userById(db.sql, caller.userId));
  if (!row) throw noUserRecord();
  return { ...row, created_at: isoTimestamp(row.created_at), updated_at: isoTimestamp(row.updated_at) };
}

/** A request that changes no name still counts as an update of the record (updated_at moves). */
export async function updateUser(db: Db, caller: Caller, input: z.infer<typeof updateUserInput>): Promise<void> {
  await db.transaction(async (tx) => {
    const update = tx.sql
      .updateTable('users')
      .set({ first_name: input.first_name, last_name: input.last_name, updated_at: tx.timestamp() })
      .where('id', '=', caller.userId);
    tx.later(update, (result) => {
      if (Number(result.numAffectedRows ?? 0) === 0) throw noUserRecord();
    });
  });
}
