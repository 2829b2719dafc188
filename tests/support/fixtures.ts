/**
 * Short ways to set up callers, organizations and members: through the public REST API, and
 * straight into the database where a test needs tens of thousands.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Role } from '../../shared/fields.ts';
import { personWords } from '../../shared/search.ts';
import type { DbTimestamp, Sql } from '../../server/platform/database/schema.ts';
import type { TestServer } from './server.ts';
import { tokenFor } from './tokens.ts';

export interface TestUser {
  id: string;
  email: string;
  /** A token whose role claim allows the creation endpoints. */
  token: string;
}

export const uniqueId = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

export async function registerUser(server: TestServer, prefix = 'user'): Promise<TestUser> {
  const id = uniqueId(prefix);
  const email = `${id}@example.com`;
  const token = await tokenFor(id, { role: 'owner' });
  const created = await server.call('POST', '/api/users', {
    token,
    body: { first_name: `First ${id}`, last_name: `Last ${id}`, email },
  });
  expect(created.status).toBe(201);
  return { id, email, token };
}

export async function createOrganization(server: TestServer, owner: TestUser): Promise<string> {
  const created = await server.call('POST', '/api/organizations', {
    token: owner.token,
    body: { organization_name: 'Test organization', organization_description: 'for tests' },
  });
  expect(created.status).toBe(201);
  return created.body.organization_id;
}

export async function addMember(
  server: TestServer,
  actor: TestUser,
  organizationId: string,
  member: TestUser,
  role: Role,
): Promise<void> {
  const added = await server.call('POST', '/organization-user', {
    token: actor.token,
    organizationId,
    body: { email: member.email, role },
  });
  expect(added.status).toBe(201);
}

/** A user written straight into the database (seeding at a scale the API would take minutes for). */
/** An organization of `size` members, its owner first, each added through the API: the owner and the members' ids in the whole list's order. */
export async function organizationOfMembers(
  server: TestServer,
  size: number,
): Promise<{ owner: TestUser; organizationId: string; memberIds: string[] }> {
  const owner = await registerUser(server, 'owner');
  const organizationId = await createOrganization(server, owner);
  for (let index = 1; index < size; index++) {
    await addMember(server, owner, organizationId, await registerUser(server, `m${index}`), 'member');
  }
  const whole = await server.call('GET', '/organization-user', { token: owner.token, organizationId });
  const memberIds = whole.body.map((member: { user_id: string }) => member.user_id);
  expect(memberIds).toHaveLength(size);
  return { owner, organizationId, memberIds };
}

export interface SeededUser {
  user_id: string;
  first_name: string;
  last_name: string;
  email: string;
}

/** Word rows a multi-row insert of the seeding carries at most. */
const WORD_ROWS_PER_STATEMENT = 2000;

/**
 * Writes the users and their memberships (role member, no expiry) of `organizationId`, with their
 * search words as the service keeps them (server/platform/database/word-index.ts).
 */
export async function insertUsersAsMembers(
  sql: Sql,
  organizationId: string,
  users: readonly SeededUser[],
  now: DbTimestamp,
): Promise<void> {
  await sql
    .insertInto('users')
    .values(
      users.map((user) => ({
        id: user.user_id,
        first_name: user.first_name,
        last_name: user.last_name,
        email: user.email,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  await sql
    .insertInto('organization_users')
    .values(
      users.map((user) => ({
        organization_id: organizationId,
        user_id: user.user_id,
        role: 'member',
        created_at: now,
        updated_at: now,
        expires_at: null,
      })),
    )
    .execute();
  // The count the organization keeps, as the service's own additions keep it.
  await sql
    .updateTable('organizations')
    .set((eb) => ({ member_count: eb('member_count', '+', users.length) }))
    .where('id', '=', organizationId)
    .execute();
  const words = users.flatMap((user) =>
    personWords(user.first_name, user.last_name, user.email).map((word) => ({ user_id: user.user_id, word })),
  );
  for (let start = 0; start < words.length; start += WORD_ROWS_PER_STATEMENT) {
    const batch = words.slice(start, start + WORD_ROWS_PER_STATEMENT);
    await sql.insertInto('user_words').values(batch).execute();
    await sql
      .insertInto('member_words')
      .values(batch.map((row) => ({ ...row, organization_id: organizationId })))
      .execute();
  }
}
