/** Short ways to make and give an organization's own roles (behaviour §11) through the public REST API. */
import { expect } from 'vitest';
import type { RoleView } from '../../shared/roles.ts';
import type { TestUser } from './fixtures.ts';
import type { TestServer } from './server.ts';

export const rolesPath = (organizationId: string, prefix = '') => `${prefix}/organizations/${organizationId}/roles`;
export const rolePath = (organizationId: string, role: string, prefix = '') =>
  `${rolesPath(organizationId, prefix)}/${role}`;

/** Creates a role of the organization's own as `actor`; fails the test unless it is created. */
export async function createRole(
  server: TestServer,
  actor: TestUser,
  organizationId: string,
  role: string,
  permissions: string[],
  description = '',
): Promise<RoleView> {
  const created = await server.call('POST', rolesPath(organizationId), {
    token: actor.token,
    body: { role, description, permissions },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** Every role the organization has, as `viewer` (who holds roles:read) lists them. */
export async function listRoles(server: TestServer, viewer: TestUser, organizationId: string): Promise<RoleView[]> {
  const listed = await server.call('GET', rolesPath(organizationId), { token: viewer.token });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body;
}

/** Changes a member's role as `actor` (PUT /organization-user); fails the test unless it is changed. */
export async function giveRole(
  server: TestServer,
  actor: TestUser,
  organizationId: string,
  member: TestUser,
  role: string,
): Promise<void> {
  const changed = await server.call('PUT', '/organization-user', {
    token: actor.token,
    organizationId,
    body: { user_id: member.id, role },
  });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
}
