/** People with a verified work e-mail (behaviour §17), for the tests of domains and joining. */
import { expect } from 'vitest';
import { createOrganization, uniqueId, type TestUser } from './fixtures.ts';
import type { TestServer } from './server.ts';
import { tokenFor } from './tokens.ts';

/** A reserved name of its own for each test: `<id>.example`. */
export const uniqueDomain = (prefix = 'acme') => `${uniqueId(prefix)}.example`;

/**
 * A user whose record's e-mail is at `domain` and whose token says it is verified, unless `claims`
 * says otherwise.
 */
export async function registerUserAt(
  server: TestServer,
  domain: string,
  claims: Record<string, unknown> = {},
): Promise<TestUser> {
  const id = uniqueId('person');
  const email = `${id}@${domain}`;
  const token = await tokenFor(id, { role: 'owner', claims: { email, email_verified: true, ...claims } });
  const created = await server.call('POST', '/users', {
    token,
    body: { first_name: `First ${id}`, last_name: `Last ${id}`, email },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id, email, token };
}

/** A domain of the organization added by `admin`, whose verified e-mail is at it: verified at once. */
export async function addVerifiedDomain(server: TestServer, admin: TestUser, organizationId: string): Promise<string> {
  const domain = admin.email.slice(admin.email.indexOf('@') + 1);
  const added = await server.call('POST', `/organizations/${organizationId}/domains`, {
    token: admin.token,
    body: { domain },
  });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  expect(added.body.status).toBe('verified');
  return added.body.domain_id;
}

/** An organization whose owner's verified e-mail is at a fresh domain, verified, with `enrollment`. */
export async function organizationWithDomain(server: TestServer, enrollment: 'manual' | 'suggestion' | 'automatic') {
  const domain = uniqueDomain();
  const owner = await registerUserAt(server, domain);
  const organizationId = await createOrganization(server, owner);
  const domainId = await addVerifiedDomain(server, owner, organizationId);
  const answer = await server.call('PUT', `/organizations/${organizationId}/domains/${domainId}`, {
    token: owner.token,
    body: { enrollment },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return { domain, owner, organizationId, domainId };
}
