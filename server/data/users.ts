/** The caller's own user record (interface 4.1, CONTRACT 4). */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { z } from 'zod';
import type { createUserInput, updateUserInput, User as UserView } from '../../shared/schemas.ts';
import type { Caller } from '../auth/tokens.ts';
import { conflict, notFound } from '../errors.ts';
import { User, type IUser } from './entities.ts';
import { selectRow } from './sql.ts';
import { isoTimestamp, type StoredTimestamp } from './timestamps.ts';

interface UserRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  created_at: StoredTimestamp;
  updated_at: StoredTimestamp;
}

const noRecord = () => notFound('No user record for this caller: create it with POST /users');
const emailTaken = () => conflict('Another user already has this e-mail address');
const alreadyRegistered = () => conflict('A user record already exists for this caller');

export async function createUser(
  em: SqlEntityManager,
  caller: Caller,
  input: z.infer<typeof createUserInput>,
): Promise<void> {
  if (await em.findOne(User, { id: caller.userId }, { fields: ['id'] })) throw alreadyRegistered();
  if (await em.findOne(User, { email: input.email }, { fields: ['id'] })) throw emailTaken();
  em.create(User, { id: caller.userId, firstName: input.first_name, lastName: input.last_name, email: input.email });
  try {
    await em.flush();
  } catch (error) {
    // Two requests raced past the checks above; the unique indexes decide.
    if (error instanceof UniqueConstraintViolationException) {
      // The index names the column: users_email_unique on MySQL, users.email on SQLite.
      throw /email/i.test(error.message) ? emailTaken() : alreadyRegistered();
    }
    throw error;
  }
}

async function findOwnRecord(em: SqlEntityManager, caller: Caller): Promise<IUser> {
  const user = await em.findOne(User, { id: caller.userId });
  if (!user) throw noRecord();
  return user;
}

export async function getUser(em: SqlEntityManager, caller: Caller): Promise<UserView> {
  const row = await selectRow<UserRow>(
    em,
    'select id, first_name, last_name, email, created_at, updated_at from users where id = ?',
    [caller.userId],
  );
  if (!row) throw noRecord();
  return { ...row, created_at: isoTimestamp(row.created_at), updated_at: isoTimestamp(row.updated_at) };
}

export async function updateUser(
  em: SqlEntityManager,
  caller: Caller,
  input: z.infer<typeof updateUserInput>,
): Promise<void> {
  const user = await findOwnRecord(em, caller);
  if (input.first_name !== undefined) user.firstName = input.first_name;
  if (input.last_name !== undefined) user.lastName = input.last_name;
  // A request that changes nothing still counts as an update of the record.
  user.updatedAt = new Date();
  await em.flush();
}
