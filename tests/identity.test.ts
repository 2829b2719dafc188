/**
 * Identity is exact on every database: a token whose `sub` differs from a user's id only by letter
 * case, an accent or a trailing space is another caller, with no access to that user's record or
 * organizations, and an Idempotency-Key that differs only by letter case is another key. (A
 * trailing space cannot travel in a header: HTTP trims it. tests/migrations.test.ts checks that
 * the key column tells such keys apart.)
 */
import { beforeAll, expect, it } from 'vitest';
import type { AuditEvent } from '../shared/events.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { useServer, type TestServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const ORGANIZATION_NAME = 'Test organization';

/** Ids that a case-, accent- or trailing-space-insensitive comparison takes for an id `alice-…`. */
const LOOKALIKES: Array<[string, (id: string) => string]> = [
  ['capitalised', (id) => id.replace(/^a/, 'A')],
  ['with a trailing space', (id) => `${id} `],
  ['with an accent', (id) => id.replace(/^alice/, 'alicé')],
  ['in upper case', (id) => id.toUpperCase()],
];

async function eventsOf(server: TestServer, token: string, organizationId: string): Promise<AuditEvent[]> {
  const listed = await server.call('GET', `/organizations/${organizationId}/events`, { token });
  expect(listed.status).toBe(200);
  return listed.body;
}

/** Registers the caller `id` (whatever its letters) with an e-mail of its own. */
async function register(server: TestServer, id: string): Promise<TestUser> {
  const email = `${uniqueId('lookalike')}@example.com`;
  const token = await tokenFor(id, { role: 'owner' });
  const created = await server.call('POST', '/users', {
    token,
    body: { first_name: 'Look', last_name: 'Alike', email },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id, email, token };
}

describeOnEachDatabase('exact identity', (target) => {
  const server = useServer(target);
  let alice: TestUser;
  let aliceOrganization: string;

  beforeAll(async () => {
    alice = await registerUser(server(), 'alice');
    aliceOrganization = await createOrganization(server(), alice);
  });

  it.each(LOOKALIKES)('a sub %s is another caller, with records of its own', async (_, lookalikeOf) => {
    const sub = lookalikeOf(alice.id);
    expect(sub).not.toBe(alice.id);
    const token = await tokenFor(sub, { role: 'owner' });
    const organizationPath = `/organizations/${aliceOrganization}`;

    const rename = await server().call('PUT', organizationPath, { token, body: { organization_name: 'Taken over' } });
    expect(rename.status).toBe(403);
    expect((await server().call('GET', organizationPath, { token })).status).toBe(403);
    expect((await server().call('GET', '/organizations', { token })).body).toEqual([]);
    expect((await server().call('GET', '/users', { token })).status).toBe(404);
    // Nor is the lookalike a member in Alice's eyes.
    const asMember = await server().call('GET', `/organization-user/${encodeURIComponent(sub)}`, {
      token: alice.token,
      organizationId: aliceOrganization,
    });
    expect(asMember.status).toBe(404);

    const lookalike = await register(server(), sub);
    expect((await server().call('GET', '/users', { token })).body).toMatchObject({ id: sub, email: lookalike.email });
    expect((await server().call('GET', '/users', { token: alice.token })).body).toMatchObject({
      id: alice.id,
      email: alice.email,
    });
    const organizationId = await createOrganization(server(), lookalike);
    expect(organizationId).not.toBe(aliceOrganization);
    const [created] = await eventsOf(server(), token, organizationId);
    expect(created).toMatchObject({ type: 'organization.created', actor_user_id: sub, subject_user_id: sub });
  });

  it("leaves Alice's organization, its members and its events as Alice made them", async () => {
    const read = await server().call('GET', `/organizations/${aliceOrganization}`, { token: alice.token });
    expect(read.body).toMatchObject({ organization_name: ORGANIZATION_NAME, role: 'owner', member_count: 1 });
    const events = await eventsOf(server(), alice.token, aliceOrganization);
    expect(events.map((event) => [event.type, event.actor_user_id])).toEqual([['organization.created', alice.id]]);
  });

  it('treats an Idempotency-Key that differs only by letter case as another key', async () => {
    const owner = await registerUser(server(), 'keys');
    const key = uniqueId('nc-Key-ABC');
    const create = (caller: TestUser, idempotencyKey: string) =>
      server().call('POST', '/organizations', {
        token: caller.token,
        body: { organization_name: 'Once', organization_description: 'per key' },
        headers: { 'idempotency-key': idempotencyKey },
      });

    const first = await create(owner, key);
    expect(first.status).toBe(201);
    const replay = await create(owner, key);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    for (const otherKey of [key.toLowerCase(), key.toUpperCase()]) {
      const other = await create(owner, otherKey);
      expect(other.status).toBe(201);
      expect(other.headers.get('idempotency-replayed')).toBeNull();
      expect(other.body.organization_id).not.toBe(first.body.organization_id);
    }
    expect((await server().call('GET', '/organizations', { token: owner.token })).body).toHaveLength(3);

    // Keys are per caller, and a lookalike of the caller is another caller: never given the answer.
    const lookalike = await register(server(), owner.id.toUpperCase());
    const theirs = await create(lookalike, key);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotency-replayed')).toBeNull();
    expect(theirs.body.user_id).toBe(lookalike.id);
  });
});
