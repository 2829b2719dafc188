/** Short ways to set up callers, organizations and members through the public REST API. */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Role } from '../../shared/fields.ts';
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
