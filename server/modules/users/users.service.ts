/** The caller's own user record (behaviour §4.1, §4): its rules over users.queries.ts. */
import type { z } from 'zod';
import type { createUserInput, updateUserInput, User as UserView } from '../../../shared/users.ts';
import type { PersonCaller } from '../../platform/auth/tokens.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import type { Db, Reader } from '../../platform/database/transaction.ts';
import { indexNewUser, reindexUserRow } from '../../platform/database/word-index.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { activateAwaitingRecord } from '../scim/scim-users.service.ts';
import { insertUser, updateNames, userRow } from './users.queries.ts';

/** The caller has no user record yet: answered wherever one is needed (users, organizations, invitations). */
export const noUserRecord = () => notFound('No user record for this caller: create it with POST /users first');
const emailTaken = () => conflict('Another user already has this e-mail address');
const alreadyRegistered = () => conflict('A user record already exists for this caller');

/**
 * One INSERT: the unique indexes decide both refusals (an existing record for this caller, or the
 * e-mail held by another user), also for two sign-ups racing each other.
 */
export async function createUser(db: Db, caller: PersonCaller, input: z.infer<typeof createUserInput>): Promise<void> {
  try {
    await db.transaction((tx) => {
      insertUser(tx, { id: caller.userId, firstName: input.first_name, lastName: input.last_name, email: input.email });
      indexNewUser(tx, caller.userId, input.first_name, input.last_name, input.email);
      return Promise.resolve();
    });
  } catch (error) {
    if (!db.isUniqueViolation(error)) throw error;
    // The violated index names the column: users_email_unique on MySQL, users.email on SQLite.
    throw /email/i.test((error as Error).message) ? emailTaken() : alreadyRegistered();
  }
  // Behaviour §18: a directory that provisioned this verified e-mail makes them a member now.
  if (caller.verifiedEmail !== undefined && caller.verifiedEmail === input.email.toLowerCase()) {
    await activateAwaitingRecord(db, caller.userId, caller.verifiedEmail);
  }
}

export async function getUser(reader: Reader, userId: string): Promise<UserView> {
  const row = await userRow(reader, userId);
  if (!row) throw noUserRecord();
  return { ...row, created_at: isoTimestamp(row.created_at), updated_at: isoTimestamp(row.updated_at) };
}

/** The e-mail of the caller's record, or 404 without one: for the domains that act on a person's e-mail. */
export async function emailOfUser(reader: Reader, userId: string): Promise<string> {
  const row = await userRow(reader, userId);
  if (!row) throw noUserRecord();
  return row.email;
}

/** A request that changes no name still counts as an update of the record (updated_at moves). */
export async function updateUser(db: Db, caller: PersonCaller, input: z.infer<typeof updateUserInput>): Promise<void> {
  await db.transaction(async (tx) => {
    updateNames(tx, caller.userId, input, (found) => {
      if (!found) throw noUserRecord();
    });
    await reindexUserRow(tx, caller.userId);
  });
}
