/**
 * Public and private metadata (behaviour §15, §16): JSON Merge Patch under the organization's lock,
 * its limits, its events, and the private metadata that only an application key sees.
 */
import { beforeAll, expect, it } from 'vitest';
import type { AuditEvent } from '../shared/events.ts';
import { createApplicationKey } from './support/application-keys.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { addToTeam, createTeam } from './support/teams.ts';

describeOnEachDatabase('metadata', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let member: TestUser;
  let application: string;

  beforeAll(async () => {
    owner = await registerUser(server(), 'owner');
    member = await registerUser(server(), 'member');
    application = await createApplicationKey(server());
  });

  async function organization(): Promise<string> {
    const organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, member, 'member');
    return organizationId;
  }

  const patch = (organizationId: string, body: unknown, token = owner.token) =>
    server().call('PATCH', `/api/organizations/${organizationId}/metadata`, { token, body });

  const read = async (organizationId: string, token = owner.token) =>
    (await server().call('GET', `/organizations/${organizationId}`, { token })).body;

  const eventsOf = async (organizationId: string): Promise<AuditEvent[]> =>
    (await server().call('GET', `/organizations/${organizationId}/events?limit=1000`, { token: owner.token })).body;

  it('merges a patch: nested objects merged, null deletes, arrays replaced; the event names the keys changed', async () => {
    const organizationId = await organization();
    const first = await patch(organizationId, {
      public_metadata: { plan: { tier: 'pro', seats: 5 }, tags: ['a', 'b'], gone: 1, same: 'x' },
    });
    expect(first.status).toBe(200);
    const second = await patch(organizationId, {
      public_metadata: { plan: { seats: 9, extra: null }, tags: ['c'], gone: null, same: 'x' },
    });
    expect(second.status).toBe(200);
    const expected = { plan: { tier: 'pro', seats: 9 }, tags: ['c'], same: 'x' };
    expect(second.body).toEqual({ public_metadata: expected });
    expect((await read(organizationId)).public_metadata).toEqual(expected);
    const updates = (await eventsOf(organizationId)).filter((event) => event.type === 'organization.updated');
    expect(updates.map((event) => event.data)).toEqual([
      { changes: {}, public_metadata_keys: ['gone', 'plan', 'same', 'tags'] },
      { changes: {}, public_metadata_keys: ['gone', 'plan', 'tags'] },
    ]);
    // A patch that changes nothing records nothing.
    expect((await patch(organizationId, { public_metadata: { same: 'x' } })).status).toBe(200);
    expect((await eventsOf(organizationId)).filter((event) => event.type === 'organization.updated')).toHaveLength(2);
  });

  it('refuses, 400, a result over 8 KiB or 10 levels deep, a patch that is not an object or holds lone surrogates or numbers past a double, changing nothing', async () => {
    const organizationId = await organization();
    expect((await patch(organizationId, { public_metadata: { kept: true } })).status).toBe(200);
    const before = await read(organizationId);
    const eventsBefore = await eventsOf(organizationId);
    let deep: unknown = 'leaf';
    for (let level = 0; level < 11; level++) deep = { nested: deep };
    for (const body of [
      { public_metadata: { big: 'x'.repeat(8 * 1024) } },
      { public_metadata: deep },
      { public_metadata: ['not', 'an', 'object'] },
      { public_metadata: 'text' },
      {},
    ]) {
      const refused = await patch(organizationId, body);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    // Thousands of levels (objects and arrays, well under the body's 64 KiB): 400 for the body
    // (behaviour §5), before it is parsed; keys or strings that are not well-formed Unicode, and
    // numbers past a double: 400 naming the field. Over REST and tRPC.
    const levels = 3000;
    for (const rawBody of [
      `{"public_metadata":{"k":${'{"k":'.repeat(levels)}1${'}'.repeat(levels)}}}`,
      `{"public_metadata":{"k":${'['.repeat(levels)}${']'.repeat(levels)}}}`,
    ]) {
      const refused = await server().call('PATCH', `/organizations/${organizationId}/metadata`, {
        token: owner.token,
        rawBody,
      });
      expect([refused.status, refused.body.message]).toEqual([400, 'The JSON body is nested deeper than 64 levels']);
    }
    for (const rawBody of [
      '{"public_metadata":{"k\\ud800":"v"}}',
      '{"public_metadata":{"list":["v\\udc00"]}}',
      // Past a double's range: parsed as Infinity, which JSON cannot hold and would have stored as null.
      '{"public_metadata":{"limit":1e400}}',
      '{"public_metadata":{"nested":{"list":[-1e999]}}}',
    ]) {
      const refused = await server().call('PATCH', `/organizations/${organizationId}/metadata`, {
        token: owner.token,
        rawBody,
      });
      expect(refused.status, rawBody.slice(0, 40)).toBe(400);
      expect(refused.body.issues[0].field, rawBody.slice(0, 40)).toMatch(/^public_metadata/);
      const overRpc = await server().call('POST', '/trpc/organizations.updateMetadata', {
        token: owner.token,
        rawBody: `{"organization_id":"${organizationId}",${rawBody.slice(1)}`,
      });
      expect(overRpc.status, rawBody.slice(0, 40)).toBe(400);
    }
    expect(await read(organizationId)).toEqual(before);
    expect(await eventsOf(organizationId)).toEqual(eventsBefore);
    // The object and nine levels below it are ten levels: allowed.
    let allowed: unknown = 'leaf';
    for (let level = 0; level < 9; level++) allowed = { nested: allowed };
    expect((await patch(organizationId, { public_metadata: { deep: allowed } })).status).toBe(200);
  });

  it('loses no key when twenty patches race each other', async () => {
    const organizationId = await organization();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        patch(organizationId, { public_metadata: { [`key${index}`]: index, shared: { [`part${index}`]: true } } }),
      ),
    );
    expect(answers.map(({ status }) => status)).toEqual(Array(20).fill(200));
    const { public_metadata: metadata } = await read(organizationId);
    for (let index = 0; index < 20; index++) {
      expect(metadata[`key${index}`]).toBe(index);
      expect(metadata.shared[`part${index}`]).toBe(true);
    }
  });

  it('refuses private_metadata to whoever may not give it (403) before looking at it, whatever it holds (behaviour §3.2)', async () => {
    const organizationId = await organization();
    const key = await server().call('POST', `/organizations/${organizationId}/api-keys`, {
      token: owner.token,
      body: { name: 'Admin key', role: 'admin' },
    });
    for (const body of [
      { private_metadata: null },
      { private_metadata: 'not an object' },
      { private_metadata: { fine: true }, public_metadata: 5 },
    ]) {
      for (const token of [owner.token, key.body.secret as string]) {
        expect(await patch(organizationId, body, token), JSON.stringify(body)).toMatchObject({
          status: 403,
          body: { code: 'FORBIDDEN', message: expect.stringContaining('(metadata:private)') },
        });
      }
      // The application key may give it: its body is then looked at.
      expect((await patch(organizationId, body, application)).status, JSON.stringify(body)).toBe(400);
    }
    // Without private_metadata, the owner's body is looked at as ever.
    expect((await patch(organizationId, { public_metadata: 5 })).status).toBe(400);
  });

  it('keeps the private metadata to the application key: refused to members and organization keys, in no event', async () => {
    const organizationId = await organization();
    const secretValue = 'cus_private_billing_4242';
    expect((await patch(organizationId, { private_metadata: { billing: secretValue } })).status).toBe(403);
    const key = await server().call('POST', `/organizations/${organizationId}/api-keys`, {
      token: owner.token,
      body: { name: 'Admin key', role: 'admin' },
    });
    expect(key.status).toBe(201);
    expect((await patch(organizationId, { private_metadata: { billing: secretValue } }, key.body.secret)).status).toBe(
      403,
    );
    const set = await patch(
      organizationId,
      { public_metadata: { plan: 'pro' }, private_metadata: { billing: secretValue } },
      application,
    );
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ public_metadata: { plan: 'pro' }, private_metadata: { billing: secretValue } });
    expect((await read(organizationId, application)).private_metadata).toEqual({ billing: secretValue });
    for (const token of [owner.token, member.token, key.body.secret as string]) {
      const seen = await read(organizationId, token);
      expect(seen.public_metadata).toEqual({ plan: 'pro' });
      expect(JSON.stringify(seen)).not.toContain(secretValue);
    }
    const events = await eventsOf(organizationId);
    expect(JSON.stringify(events)).not.toContain(secretValue);
    expect(JSON.stringify(events)).not.toContain('billing');
    expect(events.at(-1)).toMatchObject({
      type: 'organization.updated',
      actor_user_id: null,
      data: { changes: {}, public_metadata_keys: ['plan'], private_metadata_changed: true },
    });
    // The public patch alone needs organization:update only; a member lacks it.
    expect((await patch(organizationId, { public_metadata: { a: 1 } }, member.token)).status).toBe(403);
  });

  it("patches a member's public metadata, shown by the member read with expiry and teams, and over tRPC", async () => {
    const organizationId = await organization();
    const team = await createTeam(server(), owner, organizationId, 'Readers');
    await addToTeam(server(), owner, organizationId, team.team_id, member);
    const path = `/organizations/${organizationId}/members/${member.id}`;
    const patched = await server().call('PATCH', `/api${path}/metadata`, {
      token: owner.token,
      body: { public_metadata: { desk: { floor: 3 }, badge: 'b-17' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ public_metadata: { desk: { floor: 3 }, badge: 'b-17' } });
    const again = await server().call('PATCH', `${path}/metadata`, {
      token: owner.token,
      body: { public_metadata: { badge: null } },
    });
    expect(again.body).toEqual({ public_metadata: { desk: { floor: 3 } } });

    const read = await server().call('GET', path, { token: member.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      organization_id: organizationId,
      user_id: member.id,
      role: 'member',
      expires_at: null,
      public_metadata: { desk: { floor: 3 } },
      teams: [{ team_id: team.team_id, name: 'Readers' }],
    });
    const page = await server().call('GET', `/trpc/members.page?input=${encodeURIComponent('{"limit":10}')}`, {
      token: member.token,
      organizationId,
    });
    const mine = page.body.result.data.items.find((item: { user_id: string }) => item.user_id === member.id);
    expect(mine.public_metadata).toEqual({ desk: { floor: 3 } });
    // The legacy read and list keep their shapes.
    const legacy = await server().call('GET', `/organization-user/${member.id}`, {
      token: owner.token,
      organizationId,
    });
    expect(legacy.body).not.toHaveProperty('public_metadata');

    const updates = (await eventsOf(organizationId)).filter((event) => event.type === 'member.updated');
    expect(updates.map((event) => [event.subject_user_id, event.data])).toEqual([
      [member.id, { public_metadata_keys: ['badge', 'desk'] }],
      [member.id, { public_metadata_keys: ['badge'] }],
    ]);
    expect(
      (await server().call('PATCH', `${path}/metadata`, { token: member.token, body: { public_metadata: {} } })).status,
    ).toBe(403);
    const outsider = await registerUser(server(), 'outsider');
    expect(
      (
        await server().call('PATCH', `/organizations/${organizationId}/members/${outsider.id}/metadata`, {
          token: owner.token,
          body: { public_metadata: { a: 1 } },
        })
      ).status,
    ).toBe(404);
  });
});
