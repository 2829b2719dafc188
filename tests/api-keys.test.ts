/**
 * Organization API keys (behaviour §16): their lifecycle over REST and tRPC, acting with their
 * role's permissions as they are at each request, only in their organization and never as a
 * person, refused at once when revoked or expired (on every instance, and while requests race the
 * revocation), at most 100 live ones, never more than the key that makes one, one credential a
 * request, and named as the actor of what they change.
 */
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../client/src/index.ts';
import { MAX_LIVE_API_KEYS } from '../shared/api-keys.ts';
import { rejection } from './support/api-errors.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { answersAroundChange } from './support/answers-around-change.ts';
import { createKey, ORGANIZATION_KEY_SECRET } from './support/keys.ts';
import { pooled } from './support/pooled.ts';
import { startTestServer, useServer, type TestServer } from './support/server.ts';

const MINUTE_MS = 60_000;
/** Making a hundred keys and more on a loaded 2-core machine. */
const MANY_KEYS_MS = 120_000;
/** Requests kept in flight while the key is revoked. */
const IN_FLIGHT = 20;

describeOnEachDatabase('organization API keys', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let organizationId: string;
  let otherOrganizationId: string;

  beforeAll(async () => {
    owner = await registerUser(server(), 'key-owner');
    organizationId = await createOrganization(server(), owner);
    otherOrganizationId = await createOrganization(server(), await registerUser(server(), 'other-owner'));
  });

  const keysPath = () => `/organizations/${organizationId}/api-keys`;
  const asKey = (secret: string, method: string, path: string, body?: unknown) =>
    server().call(method, path, { token: secret, body });

  describe('over REST', () => {
    it('answers the secret once; lists and reads show the prefix, never the secret', async () => {
      const before = Date.now();
      const key = await createKey(server(), owner.token, organizationId, 'member', { name: 'CI' });
      expect(key).toEqual({
        key_id: expect.any(String),
        name: 'CI',
        role: 'member',
        prefix: key.secret.slice(0, 12),
        created_by: owner.id,
        created_at: expect.any(String),
        expires_at: null,
        last_used_at: null,
        secret: expect.stringMatching(ORGANIZATION_KEY_SECRET),
      });
      expect(Date.parse(key.created_at)).toBeGreaterThanOrEqual(before - 1000);

      const list = await server().call('GET', keysPath(), { token: owner.token });
      expect(list.status).toBe(200);
      const listed = (list.body as Array<Record<string, unknown>>).find((row) => row.key_id === key.key_id);
      const { secret, ...withoutSecret } = key;
      expect(listed).toEqual(withoutSecret);
      const read = await server().call('GET', `${keysPath()}/${key.key_id}`, { token: owner.token });
      expect(read).toMatchObject({ status: 200, body: withoutSecret });
      for (const text of [JSON.stringify(list.body), JSON.stringify(read.body)]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain('"secret"');
      }
    });

    it('keeps last_used_at to the minute: written at the first use, not again within the minute', async () => {
      const key = await createKey(server(), owner.token, organizationId, 'member');
      const before = Date.now();
      expect((await asKey(key.secret, 'GET', `/organizations/${organizationId}`)).status).toBe(200);
      // Written after the answer, in a statement of its own: read until it is there.
      let lastUsed: string | null = null;
      for (let tries = 0; tries < 100 && lastUsed === null; tries++) {
        lastUsed = (await server().call('GET', `${keysPath()}/${key.key_id}`, { token: owner.token })).body
          .last_used_at;
        if (lastUsed === null) await sleep(50);
      }
      expect(lastUsed).not.toBeNull();
      expect(Date.parse(lastUsed!)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(lastUsed!)).toBeLessThanOrEqual(Date.now() + 1000);

      expect((await asKey(key.secret, 'GET', `/organizations/${organizationId}`)).status).toBe(200);
      await sleep(200);
      const again = await server().call('GET', `${keysPath()}/${key.key_id}`, { token: owner.token });
      // A second use within the minute leaves the minute's value as it was.
      if (Date.now() - Date.parse(lastUsed!) < MINUTE_MS) expect(again.body.last_used_at).toBe(lastUsed);
    });

    it('revokes a key: 401 from the revocation on, gone from the list and 404 to a read', async () => {
      const key = await createKey(server(), owner.token, organizationId, 'member');
      expect((await asKey(key.secret, 'GET', '/organization-user', undefined)).status).toBe(400); // no organization_id header
      const revoked = await server().call('DELETE', `${keysPath()}/${key.key_id}`, { token: owner.token });
      expect(revoked).toMatchObject({ status: 200, body: { message: 'API key revoked' } });
      const refused = await asKey(key.secret, 'GET', `/organizations/${organizationId}`);
      expect(refused.status).toBe(401);
      expect(refused.body.message).toMatch(/unknown, revoked or expired/);
      const list = await server().call('GET', keysPath(), { token: owner.token });
      expect(list.body.map((row: { key_id: string }) => row.key_id)).not.toContain(key.key_id);
      expect((await server().call('GET', `${keysPath()}/${key.key_id}`, { token: owner.token })).status).toBe(404);
      expect((await server().call('DELETE', `${keysPath()}/${key.key_id}`, { token: owner.token })).status).toBe(404);
    });

    it('refuses an unknown key, a key of the wrong shape and an expired key with 401', async () => {
      const unknown = `oak_${randomBytes(32).toString('base64url')}`;
      for (const secret of [unknown, 'oak_short', `sak_${randomBytes(32).toString('base64url')}`]) {
        expect((await asKey(secret, 'GET', `/organizations/${organizationId}`)).status).toBe(401);
      }
      const expiresAt = new Date(Date.now() + 1500).toISOString();
      const key = await createKey(server(), owner.token, organizationId, 'member', { expires_at: expiresAt });
      expect(key.expires_at).toBe(expiresAt);
      await sleep(Date.parse(expiresAt) - Date.now() + 100);
      expect((await asKey(key.secret, 'GET', `/organizations/${organizationId}`)).status).toBe(401);
    });
  });

  it('works over tRPC: create, list, page, get, use, revoke', async () => {
    const ownerApi = createClient({ url: server().baseUrl, token: owner.token, organizationId });
    const key = await ownerApi.apiKeys.create.mutate({ organization_id: organizationId, name: 'tRPC', role: 'admin' });
    expect(key.secret).toMatch(ORGANIZATION_KEY_SECRET);
    const listed = await ownerApi.apiKeys.list.query({ organization_id: organizationId });
    expect(listed.find((row) => row.key_id === key.key_id)).not.toHaveProperty('secret');
    const page = await ownerApi.apiKeys.page.query({ organization_id: organizationId, limit: 100 });
    expect(page.items.map((row) => row.key_id)).toContain(key.key_id);
    expect(
      await ownerApi.apiKeys.get.query({ organization_id: organizationId, key_id: key.key_id }),
    ).not.toHaveProperty('secret');

    const keyApi = createClient({ url: server().baseUrl, token: key.secret, organizationId });
    expect((await keyApi.organizations.get.query({ organization_id: organizationId })).organization_id).toBe(
      organizationId,
    );
    expect((await keyApi.members.list.query()).map((member) => member.user_id)).toContain(owner.id);
    await ownerApi.apiKeys.revoke.mutate({ organization_id: organizationId, key_id: key.key_id });
    expect((await rejection(keyApi.members.list.query())).code).toBe('UNAUTHORIZED');
  });

  it("acts with its role's permissions as they are at each request", async () => {
    const roles = `/organizations/${organizationId}/roles`;
    const role = `reader-${randomBytes(3).toString('hex')}`;
    expect(
      (
        await server().call('POST', roles, {
          token: owner.token,
          body: { role, description: 'Reads', permissions: ['members:read'] },
        })
      ).status,
    ).toBe(201);
    const key = await createKey(server(), owner.token, organizationId, role);
    const members = () => server().call('GET', '/organization-user', { token: key.secret, organizationId });
    const events = () => asKey(key.secret, 'GET', `/organizations/${organizationId}/events`);
    expect((await members()).status).toBe(200);
    expect((await events()).status).toBe(403);

    const change = (permissions: string[]) =>
      server().call('PUT', `${roles}/${role}`, { token: owner.token, body: { role, permissions } });
    expect((await change(['members:read', 'events:read'])).status).toBe(200);
    expect((await events()).status).toBe(200);
    expect((await change(['events:read'])).status).toBe(200);
    expect((await members()).status).toBe(403);
    expect((await events()).status).toBe(200);
  });

  it("is refused in another organization and on a person's own endpoints (403)", async () => {
    const key = await createKey(server(), owner.token, organizationId, 'admin');
    expect((await asKey(key.secret, 'GET', `/organizations/${otherOrganizationId}`)).status).toBe(403);
    expect(
      (await server().call('GET', '/organization-user', { token: key.secret, organizationId: otherOrganizationId }))
        .status,
    ).toBe(403);
    const invitationId = '00000000-0000-4000-8000-000000000000';
    const personal: Array<[string, string, unknown?]> = [
      ['GET', '/users'],
      ['PUT', '/users', { first_name: 'Key' }],
      ['POST', '/users', { first_name: 'Key', last_name: 'Person', email: 'key-person@example.com' }],
      ['GET', '/organizations'],
      ['POST', '/organizations', { organization_name: 'By a key', organization_description: '' }],
      ['GET', '/invitations'],
      ['POST', `/invitations/${invitationId}/accept`],
      ['POST', `/invitations/${invitationId}/decline`],
      ['GET', '/teams'],
    ];
    for (const [method, path, body] of personal) {
      const answer = await asKey(key.secret, method, path, body);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(403);
    }
    expect((await server().call('GET', '/organizations', { token: owner.token })).body).toHaveLength(1);
    // The permission catalogue is the deployment's, no person's: a key that manages roles reads it.
    const catalogue = await asKey(key.secret, 'GET', '/permissions');
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    expect(catalogue.body).toContainEqual(expect.objectContaining({ permission: 'members:read' }));
  });

  it('never makes a key holding more than the key that makes it', async () => {
    const roles = `/organizations/${organizationId}/roles`;
    const role = `keymaker-${randomBytes(3).toString('hex')}`;
    const made = await server().call('POST', roles, {
      token: owner.token,
      body: { role, description: 'Makes keys', permissions: ['api_keys:manage', 'members:read'] },
    });
    expect(made.status).toBe(201);
    const maker = await createKey(server(), owner.token, organizationId, role);
    for (const higher of ['admin', 'member']) {
      const refused = await asKey(maker.secret, 'POST', keysPath(), { name: 'More', role: higher });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    }
    expect((await asKey(maker.secret, 'POST', keysPath(), { name: 'Owner', role: 'owner' })).status).toBe(400);
    const same = await createKey(server(), maker.secret, organizationId, role);
    expect(same.created_by).toBe(maker.key_id);
  });

  it('names the key as the actor of its changes (actor_key_id), a person with actor_key_id null', async () => {
    const key = await createKey(server(), owner.token, organizationId, 'admin');
    const child = await createKey(server(), key.secret, organizationId, 'member', { name: 'Child' });
    expect((await asKey(key.secret, 'DELETE', `${keysPath()}/${child.key_id}`)).status).toBe(200);
    const events = await server().call('GET', `/organizations/${organizationId}/events?limit=100`, {
      token: owner.token,
    });
    expect(events.status).toBe(200);
    const about = (keyId: string) =>
      (events.body as Array<Record<string, any>>).filter((event) => event.data?.key_id === keyId);
    expect(about(child.key_id).map((event) => [event.type, event.actor_user_id, event.actor_key_id])).toEqual(
      expect.arrayContaining([
        ['api_key.created', null, key.key_id],
        ['api_key.revoked', null, key.key_id],
      ]),
    );
    expect(about(key.key_id).map((event) => [event.type, event.actor_user_id, event.actor_key_id])).toEqual([
      ['api_key.created', owner.id, null],
    ]);
    for (const event of events.body as Array<Record<string, unknown>>) expect(event).toHaveProperty('actor_key_id');
  });

  it('answers 400 to a token and a key in one request, in two headers or one', async () => {
    const key = await createKey(server(), owner.token, organizationId, 'admin');
    const path = `/organizations/${organizationId}`;
    for (const authorization of [
      `Bearer ${owner.token}, Bearer ${key.secret}`,
      `Bearer ${key.secret} ${owner.token}`,
      `Bearer ${owner.token} Bearer ${key.secret}`,
      `Bearer ${key.secret},${owner.token}`,
    ]) {
      const joined = await server().call('GET', path, { headers: { authorization } });
      expect(joined, authorization.slice(0, 60)).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    }
    for (const order of [
      [owner.token, key.secret],
      [key.secret, owner.token],
    ]) {
      const status = await new Promise<number>((resolve, reject) => {
        const call = httpRequest(`${server().baseUrl}${path}`, {
          headers: order.flatMap((credential) => ['authorization', `Bearer ${credential}`]),
        });
        call.once('response', (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        call.once('error', reject);
        call.end();
      });
      expect(status).toBe(400);
    }
    expect((await asKey(key.secret, 'GET', path)).status).toBe(200);
  });

  it(
    `allows at most ${MAX_LIVE_API_KEYS} live keys (409), counting neither revoked nor expired ones`,
    { timeout: MANY_KEYS_MS },
    async () => {
      const organization = await createOrganization(server(), owner);
      const path = `/organizations/${organization}/api-keys`;
      const keys = await pooled(MAX_LIVE_API_KEYS, 4, () => createKey(server(), owner.token, organization, 'member'));
      const over = await server().call('POST', path, {
        token: owner.token,
        body: { name: 'One more', role: 'member' },
      });
      expect(over.status).toBe(409);
      expect(over.body.code).toBe('CONFLICT');
      expect((await server().call('GET', `${path}?limit=200`, { token: owner.token })).body).toHaveLength(
        MAX_LIVE_API_KEYS,
      );
      expect((await server().call('DELETE', `${path}/${keys[0]!.key_id}`, { token: owner.token })).status).toBe(200);
      await createKey(server(), owner.token, organization, 'member');
      const more = () => server().call('POST', path, { token: owner.token, body: { name: 'Again', role: 'member' } });
      expect((await more()).status).toBe(409);
      expect((await server().call('DELETE', `${path}/${keys[1]!.key_id}`, { token: owner.token })).status).toBe(200);
      const expiresAt = new Date(Date.now() + 1500).toISOString();
      await createKey(server(), owner.token, organization, 'member', { expires_at: expiresAt });
      await sleep(Date.parse(expiresAt) - Date.now() + 100);
      expect((await more()).status).toBe(201);
    },
  );

  it(`refuses a key revoked while ${IN_FLIGHT} requests use it: none answered 2xx after the revocation's answer`, async () => {
    const key = await createKey(server(), owner.token, organizationId, 'member');
    const { before, change, after } = await answersAroundChange(server(), {
      inFlight: IN_FLIGHT,
      request: ['GET', `/organizations/${organizationId}`, { token: key.secret }],
      change: ['DELETE', `${keysPath()}/${key.key_id}`, { token: owner.token }],
    });
    expect(change.status).toBe(200);
    expect(after.length).toBeGreaterThanOrEqual(IN_FLIGHT);
    expect(after.filter((entry) => entry.status < 300)).toEqual([]);
    expect(new Set(after.map((entry) => entry.status))).toEqual(new Set([401]));
    expect(before.some((entry) => entry.status === 200)).toBe(true);
  });

  it('revokes itself, answered without waiting for its own request, and is refused from then on', async () => {
    const key = await createKey(server(), owner.token, organizationId, 'admin');
    const own = `${keysPath()}/${key.key_id}`;
    expect((await asKey(key.secret, 'DELETE', own)).status).toBe(200);
    expect((await asKey(key.secret, 'GET', `/organizations/${organizationId}`)).status).toBe(401);
  });

  it('is refused at once on a second instance once revoked on the first (no stale window)', async () => {
    const second: TestServer = await startTestServer(server().databaseUrl);
    try {
      const key = await createKey(server(), owner.token, organizationId, 'member');
      const path = `/organizations/${organizationId}`;
      expect((await second.call('GET', path, { token: key.secret })).status).toBe(200);
      expect((await server().call('GET', path, { token: key.secret })).status).toBe(200);
      expect((await server().call('DELETE', `${keysPath()}/${key.key_id}`, { token: owner.token })).status).toBe(200);
      const [onSecond, onFirst] = await Promise.all([
        second.call('GET', path, { token: key.secret }),
        server().call('GET', path, { token: key.secret }),
      ]);
      expect([onSecond.status, onFirst.status]).toEqual([401, 401]);
    } finally {
      await second.service.close();
    }
  });
});
