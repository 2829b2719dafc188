/**
 * Seat limits (behaviour §16): set with an application key alone, each change recorded as
 * `organization.updated` (behaviour §9); lowering one removes nobody. The key on an organization
 * that does not exist is 403, as anyone is (behaviour §3.2).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { AuditEvent } from '../shared/events.ts';
import { createApplicationKey } from './support/application-keys.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';

describeOnEachDatabase('seat limits', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let application: string;

  beforeAll(async () => {
    owner = await registerUser(server(), 'owner');
    application = await createApplicationKey(server());
  });

  const setLimit = (organizationId: string, body: unknown, token = application) =>
    server().call('PUT', `/api/organizations/${organizationId}/limits`, { token, body });

  const read = async (organizationId: string) =>
    (await server().call('GET', `/organizations/${organizationId}`, { token: owner.token })).body;

  it('is set by an application key alone, within 1 to 1,000,000 or null', async () => {
    const organizationId = await createOrganization(server(), owner);
    const key = await server().call('POST', `/organizations/${organizationId}/api-keys`, {
      token: owner.token,
      body: { name: 'Admin key', role: 'admin' },
    });
    for (const token of [owner.token, key.body.secret as string]) {
      const refused = await setLimit(organizationId, { max_members: 10 }, token);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('organization:limits');
    }
    for (const max_members of [0, 1_000_001, 1.5, '10', undefined]) {
      expect((await setLimit(organizationId, { max_members })).status, String(max_members)).toBe(400);
    }
    expect((await read(organizationId)).max_members).toBeNull();
    const set = await setLimit(organizationId, { max_members: 1_000_000 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ organization_id: organizationId, max_members: 1_000_000, member_count: 1 });
    expect((await read(organizationId)).max_members).toBe(1_000_000);
    expect((await setLimit(organizationId, { max_members: null })).body.max_members).toBeNull();
  });

  it('lowered below the members there are, removes nobody and refuses the next one', async () => {
    const organizationId = await createOrganization(server(), owner);
    const members = [await registerUser(server(), 'a'), await registerUser(server(), 'b')];
    for (const member of members) await addMember(server(), owner, organizationId, member, 'member');
    expect((await setLimit(organizationId, { max_members: 1 })).status).toBe(200);
    expect(await read(organizationId)).toMatchObject({ member_count: 3, max_members: 1 });
    const listed = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
    expect(listed.body).toHaveLength(3);
    const newcomer = await registerUser(server(), 'newcomer');
    const refused = await server().call('POST', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { email: newcomer.email, role: 'member' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('MEMBER_LIMIT');
    expect((await setLimit(organizationId, { max_members: null })).status).toBe(200);
    await addMember(server(), owner, organizationId, newcomer, 'member');
    expect((await read(organizationId)).member_count).toBe(4);
  });

  it('records each change as organization.updated with the key as actor, and no event for the limit there is', async () => {
    const organizationId = await createOrganization(server(), owner);
    const updates = async (): Promise<AuditEvent[]> =>
      (
        await server().call('GET', `/organizations/${organizationId}/events?type=organization.updated`, {
          token: owner.token,
        })
      ).body;
    expect((await setLimit(organizationId, { max_members: 5 })).status).toBe(200);
    expect((await setLimit(organizationId, { max_members: 5 })).status).toBe(200);
    expect((await setLimit(organizationId, { max_members: null })).status).toBe(200);
    expect((await setLimit(organizationId, { max_members: null })).status).toBe(200);
    const events = await updates();
    expect(events.map((event) => event.data)).toEqual([
      { changes: { max_members: { from: null, to: 5 } } },
      { changes: { max_members: { from: 5, to: null } } },
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ actor_user_id: null, subject_user_id: null });
      expect(event.actor_key_id).toEqual(expect.any(String));
    }
  });

  it('is 403 on an organization that does not exist or was deleted, as for anyone (behaviour §3.2)', async () => {
    const deleted = await createOrganization(server(), owner);
    expect((await server().call('DELETE', `/organizations/${deleted}`, { token: owner.token })).status).toBe(200);
    for (const organizationId of [randomUUID(), deleted]) {
      const answers = [
        await setLimit(organizationId, { max_members: 10 }),
        await server().call('GET', `/organizations/${organizationId}`, { token: application }),
        await server().call('GET', '/organization-user', { token: application, organizationId }),
      ];
      for (const answer of answers) expect(answer).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    }
  });
});
