/** POST and GET /users: the caller's own user record. */
import type { RowDataPacket } from 'mysql2/promise';
import { conflict, notFound } from './errors.ts';
import { iso, storedNow } from './events.ts';
import { email, text } from './input.ts';
import { assertMayCreate, type Caller } from './tokens.ts';
import { batch, DUPLICATE_KEY, errnoOf, lastBatch, read, transaction, type Scope } from './transactions.ts';
import { personWords, wordRows } from './words.ts';

export async function createUser(
  caller: Caller,
  body: Record<string, unknown>,
  scope: Scope,
): Promise<[number, unknown]> {
  assertMayCreate(caller);
  const values = [
    caller.userId,
    text(body.first_name, 'first_name', 1, 100, true),
    text(body.last_name, 'last_name', 1, 100, true),
    email(body.email),
  ];
  const words = wordRows('user_words (user_id, word)', caller.userId, personWords(values[1]!, values[2]!, values[3]!));
  const now = storedNow();
  try {
    await transaction(undefined, scope, async (connection) => {
      await batch(
        connection,
        scope,
        [
          'start transaction',
          'insert into users (id, first_name, last_name, email, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
          words.sql,
        ],
        [...values, now, now, ...words.values],
      );
      await lastBatch(connection, scope, ['commit'], []);
    });
  } catch (error) {
    if (errnoOf(error) !== DUPLICATE_KEY) throw error;
    throw /email/i.test((error as Error).message)
      ? conflict('Another user already has this e-mail address')
      : conflict('A user record already exists for this caller');
  }
  return [201, { success: true, message: 'User created' }];
}

export async function getUser(caller: Caller, scope: Scope): Promise<[number, unknown]> {
  const rows = await read<RowDataPacket[]>(scope, {
    sql: 'select id, first_name, last_name, email, created_at, updated_at from users where id = ?',
    values: [caller.userId],
  });
  const user = rows[0];
  if (!user) throw notFound('No user record for this caller: create it with POST /users');
  user.created_at = iso(user.created_at);
  user.updated_at = iso(user.updated_at);
  return [200, user];
}
