/**
 * Memberships that expire (behaviour §11), over HTTP against the real service: a membership counts
 * until its `expires_at` and as none from that moment on, in every read, whether or not the sweep
 * has removed it; adding, changing, inviting and handing ownership over with an expiry, and the
 * input refused; the sweep removing what expired and recording `member.expired` once, with two
 * instances on MariaDB too, and ending the expired member's event subscription.
 *
 * EXPIRY_SWEEP_INTERVAL_MS (for tests only, read by server/background-jobs.ts) sets how often each
 * server sweeps: an hour where a test proves what holds before any sweep, a fraction of a second
 * where it proves the sweep.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../client/src/index.ts';
import type { AuditEvent } from '../shared/events.ts';
import { createApplicationKey } from './support/application-keys.ts';
import { describeOnEachDatabase, type DatabaseTarget } from './support/databases.ts';
import { createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { storedState } from './support/lifecycle.ts';
import { startTestServer, useServer, type TestServer } from './support/server.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * Long enough to read a membership a few times before it expires, even on a loaded machine (where
 * a few requests can take a second or two), and short enough to wait for.
 */
const SHORTLY_MS = 3_000;

/** An expiry `ms` from now, as the service answers it (ISO, milliseconds, Z). */
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

/** Waits until 1 ms past `iso`. */
async function until(iso: string): Promise<void> {
  const wait = Date.parse(iso) + 1 - Date.now();
  if (wait > 0) await sleep(wait);
}

/** Polls `done` every 50 ms for up to `ms`; false if it never held. */
async function eventually(done: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) {
    if (await done()) return true;
  }
  return false;
}

/** A server whose expiry sweep runs every `intervalMs` (set for its start only). */
function useServerSweepingEvery(target: DatabaseTarget, intervalMs: number, env: Record<string, string> = {}) {
  beforeAll(() => {
    process.env.EXPIRY_SWEEP_INTERVAL_MS = String(intervalMs);
  });
  const server = useServer(target, env);
  beforeAll(() => {
    delete process.env.EXPIRY_SWEEP_INTERVAL_MS;
  });
  return server;
}

/** Calls as one user, in one organization (the header), on one server. */
function callsOf(server: () => TestServer) {
  return {
    add: (actor: TestUser, organizationId: string, body: object) =>
      server().call('POST', '/organization-user', { token: actor.token, organizationId, body }),
    change: (actor: TestUser, organizationId: string, body: object) =>
      server().call('PUT', '/organization-user', { token: actor.token, organizationId, body }),
    member: (actor: TestUser, organizationId: string, userId: string) =>
      server().call('GET', `/organization-user/${encodeURIComponent(userId)}`, { token: actor.token, organizationId }),
    members: (actor: TestUser, organizationId: string) =>
      server().call('GET', '/organization-user', { token: actor.token, organizationId }),
    invite: (actor: TestUser, organizationId: string, body: object) =>
      server().call('POST', `/organizations/${organizationId}/invitations`, { token: actor.token, body }),
    accept: (invitee: TestUser, invitationId: string) =>
      server().call('POST', `/invitations/${invitationId}/accept`, { token: invitee.token }),
    /** The organization's events, oldest first, read by its owner. */
    events: async (owner: TestUser, organizationId: string): Promise<AuditEvent[]> => {
      const listed = await server().call('GET', `/organizations/${organizationId}/events?limit=1000`, {
        token: owner.token,
      });
      expect(listed.status).toBe(200);
      return listed.body;
    },
  };
}

const badExpiry = {
  status: 400,
  body: { code: 'BAD_REQUEST', issues: [expect.objectContaining({ field: 'expires_at' })] },
};

describeOnEachDatabase('expiring memberships, before any sweep (behaviour §11)', (target) => {
  // No sweep within these tests: what they prove holds by the reads alone.
  const server = useServerSweepingEvery(target, HOUR_MS);
  const api = callsOf(server);

  async function organization() {
    const owner = await registerUser(server(), 'owner');
    return { owner, organizationId: await createOrganization(server(), owner) };
  }

  it('counts a membership until expires_at and as none from it on, in every read', async () => {
    const { owner, organizationId } = await organization();
    const expiring = await registerUser(server(), 'expiring');
    const expiresAt = inMs(SHORTLY_MS);
    const added = await api.add(owner, organizationId, { email: expiring.email, role: 'admin', expires_at: expiresAt });
    expect(added).toMatchObject({ status: 201, body: { user_id: expiring.id, role: 'admin' } });

    expect((await api.member(owner, organizationId, expiring.id)).body).toMatchObject({ expires_at: expiresAt });
    expect((await api.member(expiring, organizationId, owner.id)).body).toMatchObject({ expires_at: null });
    // The legacy list keeps the interface's fields (behaviour §15); the tRPC page shows the expiry.
    const listed = (await api.members(owner, organizationId)).body as Array<{ user_id: string }>;
    expect(listed.map(({ user_id }) => user_id)).toEqual([owner.id, expiring.id]);
    expect(listed.every((item) => !('expires_at' in item))).toBe(true);
    const page = await createClient({
      url: server().baseUrl,
      token: expiring.token,
      organizationId,
    }).members.page.query({ limit: 10, cursor: null });
    expect(page.items.find((item) => item.user_id === expiring.id)?.expires_at).toBe(expiresAt);
    const details = await server().call('GET', `/organizations/${organizationId}`, { token: expiring.token });
    expect(details.body).toMatchObject({ role: 'admin', member_count: 2 });

    // The owner asks about the member until a request sent 1 ms after expires_at or later.
    const expiry = Date.parse(expiresAt);
    const check = () =>
      server().call('POST', `/organizations/${organizationId}/permissions/check`, {
        token: owner.token,
        body: { permissions: ['organization:read'], user_id: expiring.id },
      });
    let allowedBefore = 0;
    for (;;) {
      const sent = Date.now();
      const answer = await check();
      const answered = Date.now();
      expect(answer.status).toBe(200);
      if (answered < expiry) {
        expect(answer.body.allowed, `answered ${expiry - answered} ms before expires_at`).toBe(true);
        allowedBefore++;
      }
      if (sent >= expiry + 1) {
        expect(answer.body.allowed, `sent ${sent - expiry} ms after expires_at`).toBe(false);
        break;
      }
      // Every 25 ms, and one request as soon as 1 ms past expires_at.
      await sleep(Math.max(0, Math.min(25, expiry + 1 - Date.now())));
    }
    expect(allowedBefore).toBeGreaterThan(0);

    expect((await api.member(owner, organizationId, expiring.id)).status).toBe(404);
    expect((await api.member(expiring, organizationId, owner.id)).status).toBe(403);
    const after = (await api.members(owner, organizationId)).body as Array<{ user_id: string }>;
    expect(after.map((member) => member.user_id)).toEqual([owner.id]);
    expect((await api.members(expiring, organizationId)).status).toBe(403);
    expect((await server().call('GET', `/organizations/${organizationId}`, { token: expiring.token })).status).toBe(
      403,
    );
    const ownersView = await server().call('GET', `/organizations/${organizationId}`, { token: owner.token });
    expect(ownersView.body).toMatchObject({ member_count: 1 });
    const everyOrganization = await server().call(
      'GET',
      `/admin/organizations?search=${encodeURIComponent(details.body.slug)}`,
      { token: await createApplicationKey(server()) },
    );
    expect(everyOrganization.status).toBe(200);
    expect(everyOrganization.body).toContainEqual(expect.objectContaining({ id: organizationId, member_count: 1 }));
    const theirs = await server().call('GET', '/organizations', { token: expiring.token });
    expect(theirs).toMatchObject({ status: 200, body: [] });
    const ownCheck = await server().call('POST', `/organizations/${organizationId}/permissions/check`, {
      token: expiring.token,
      body: { permissions: ['organization:read'] },
    });
    expect(ownCheck.status).toBe(403);
    expect((await api.change(owner, organizationId, { user_id: expiring.id, role: 'member' })).status).toBe(404);
    // Still stored: no sweep ran, the reads alone tell it is none.
    const stored = await storedState(server(), organizationId);
    expect(stored.memberships.map((membership) => membership.user_id).sort()).toEqual([owner.id, expiring.id].sort());
  });

  it('adds again a user whose expired membership no sweep removed yet, recording member.expired first', async () => {
    const { owner, organizationId } = await organization();
    const user = await registerUser(server(), 'again');
    const expiresAt = inMs(SHORTLY_MS);
    expect(
      (await api.add(owner, organizationId, { email: user.email, role: 'admin', expires_at: expiresAt })).status,
    ).toBe(201);
    await until(expiresAt);
    const again = await api.add(owner, organizationId, { email: user.email, role: 'member' });
    expect(again).toMatchObject({ status: 201, body: { user_id: user.id, role: 'member' } });
    expect((await api.member(owner, organizationId, user.id)).body).toMatchObject({ role: 'member', expires_at: null });
    const events = await api.events(owner, organizationId);
    expect(
      events
        .slice(-3)
        .map(({ type, actor_user_id, subject_user_id, data }) => ({ type, actor_user_id, subject_user_id, data })),
    ).toEqual([
      {
        type: 'member.added',
        actor_user_id: owner.id,
        subject_user_id: user.id,
        data: { role: 'admin', expires_at: expiresAt },
      },
      {
        type: 'member.expired',
        actor_user_id: user.id,
        subject_user_id: user.id,
        data: { role: 'admin', expires_at: expiresAt },
      },
      { type: 'member.added', actor_user_id: owner.id, subject_user_id: user.id, data: { role: 'member' } },
    ]);
  });

  it('invites with the expiry of the membership that accepting makes', async () => {
    const { owner, organizationId } = await organization();
    const invitee = await registerUser(server(), 'invitee');
    const membershipExpiresAt = inMs(DAY_MS);
    const invited = await api.invite(owner, organizationId, {
      email: invitee.email,
      role: 'admin',
      expires_at: membershipExpiresAt,
    });
    expect(invited).toMatchObject({ status: 201, body: { membership_expires_at: membershipExpiresAt } });
    // The invitation's own expiry is INVITATION_TTL_HOURS (a week by default) away.
    expect(Date.parse(invited.body.expires_at)).toBeGreaterThan(Date.parse(membershipExpiresAt));
    const pending = await server().call('GET', `/organizations/${organizationId}/invitations`, { token: owner.token });
    expect(pending.body).toMatchObject([
      { invitation_id: invited.body.invitation_id, membership_expires_at: membershipExpiresAt },
    ]);

    expect((await api.accept(invitee, invited.body.invitation_id)).status).toBe(201);
    expect((await api.member(owner, organizationId, invitee.id)).body).toMatchObject({
      role: 'admin',
      expires_at: membershipExpiresAt,
    });
    const events = await api.events(owner, organizationId);
    expect(events.slice(-2).map(({ type, data }) => ({ type, data }))).toEqual([
      {
        type: 'invitation.created',
        data: {
          invitation_id: invited.body.invitation_id,
          email: invitee.email,
          role: 'admin',
          membership_expires_at: membershipExpiresAt,
        },
      },
      {
        type: 'invitation.accepted',
        data: { invitation_id: invited.body.invitation_id, role: 'admin', expires_at: membershipExpiresAt },
      },
    ]);
    const plain = await api.invite(owner, organizationId, { email: `plain-${invitee.email}`, role: 'member' });
    expect(plain.body.membership_expires_at).toBeNull();
  });

  it('lets a user whose expired membership is still stored be invited and accept; refuses a lapsed offer', async () => {
    const { owner, organizationId } = await organization();
    const returning = await registerUser(server(), 'returning');
    const late = await registerUser(server(), 'late');
    const expiresAt = inMs(SHORTLY_MS);
    expect(
      (await api.add(owner, organizationId, { email: returning.email, role: 'member', expires_at: expiresAt })).status,
    ).toBe(201);
    const tooLate = await api.invite(owner, organizationId, {
      email: late.email,
      role: 'member',
      expires_at: expiresAt,
    });
    expect(tooLate.status).toBe(201);
    // A member cannot be invited; once expired, they can.
    expect((await api.invite(owner, organizationId, { email: returning.email, role: 'admin' })).status).toBe(409);
    await until(expiresAt);

    const invited = await api.invite(owner, organizationId, { email: returning.email, role: 'admin' });
    expect(invited.status).toBe(201);
    expect((await api.accept(returning, invited.body.invitation_id)).status).toBe(201);
    expect((await api.member(owner, organizationId, returning.id)).body).toMatchObject({
      role: 'admin',
      expires_at: null,
    });
    const events = await api.events(owner, organizationId);
    expect(events.slice(-2).map(({ type, actor_user_id, data }) => ({ type, actor_user_id, data }))).toEqual([
      { type: 'member.expired', actor_user_id: returning.id, data: { role: 'member', expires_at: expiresAt } },
      {
        type: 'invitation.accepted',
        actor_user_id: returning.id,
        data: { invitation_id: invited.body.invitation_id, role: 'admin' },
      },
    ]);

    const refused = await api.accept(late, tooLate.body.invitation_id);
    expect(refused).toMatchObject({ status: 410, body: { code: 'GONE' } });
    expect((await api.member(owner, organizationId, late.id)).status).toBe(404);
  });

  it('PUT sets, keeps (absent) and clears (null) the expiry, recording each change once', async () => {
    const { owner, organizationId } = await organization();
    const user = await registerUser(server(), 'changing');
    const first = inMs(DAY_MS);
    expect(
      (await api.add(owner, organizationId, { email: user.email, role: 'member', expires_at: first })).status,
    ).toBe(201);
    const expiresAtOf = async () => (await api.member(owner, organizationId, user.id)).body.expires_at;

    const second = inMs(2 * DAY_MS);
    expect(
      (await api.change(owner, organizationId, { user_id: user.id, role: 'member', expires_at: second })).status,
    ).toBe(200);
    expect(await expiresAtOf()).toBe(second);
    expect((await api.change(owner, organizationId, { user_id: user.id, role: 'admin' })).status).toBe(200);
    expect(await expiresAtOf()).toBe(second);
    // The same role and expiry again: no change.
    expect(
      (await api.change(owner, organizationId, { user_id: user.id, role: 'admin', expires_at: second })).status,
    ).toBe(200);
    expect(
      (await api.change(owner, organizationId, { user_id: user.id, role: 'admin', expires_at: null })).status,
    ).toBe(200);
    expect(await expiresAtOf()).toBeNull();

    const changes = (await api.events(owner, organizationId)).filter((event) => event.type === 'member.role_changed');
    expect(changes.map((event) => event.data)).toEqual([
      { from: 'member', to: 'member', expires_at: { from: first, to: second } },
      { from: 'member', to: 'admin' },
      { from: 'admin', to: 'admin', expires_at: { from: second, to: null } },
    ]);
  });

  it('normalises an expiry with an offset to UTC', async () => {
    const { owner, organizationId } = await organization();
    const user = await registerUser(server(), 'offset');
    const added = await api.add(owner, organizationId, {
      email: user.email,
      role: 'member',
      expires_at: '2030-01-31T14:00:00+02:00',
    });
    expect(added.status).toBe(201);
    expect((await api.member(owner, organizationId, user.id)).body.expires_at).toBe('2030-01-31T12:00:00.000Z');
  });

  it('refuses an expiry past, over ten years ahead or malformed: 400 on expires_at, nothing changed', async () => {
    const { owner, organizationId } = await organization();
    const user = await registerUser(server(), 'refused');
    const before = await storedState(server(), organizationId);
    const refused = [
      inMs(-1000),
      inMs(10 * 366 * DAY_MS),
      'tomorrow',
      '2030-01-31',
      '2030-01-31T12:00:00',
      '2030-02-30T12:00:00Z',
      12345,
    ];
    for (const expires_at of refused) {
      const body = { email: user.email, role: 'member', expires_at };
      expect(await api.add(owner, organizationId, body), `POST with ${expires_at}`).toMatchObject(badExpiry);
      expect(await api.invite(owner, organizationId, body), `invitation with ${expires_at}`).toMatchObject(badExpiry);
    }
    expect((await api.add(owner, organizationId, { email: user.email, role: 'member' })).status).toBe(201);
    for (const expires_at of refused) {
      const body = { user_id: user.id, role: 'member', expires_at };
      expect(await api.change(owner, organizationId, body), `PUT with ${expires_at}`).toMatchObject(badExpiry);
    }
    const after = await storedState(server(), organizationId);
    expect(after.invitations).toEqual(before.invitations);
    expect(after.memberships.map((membership) => membership.expires_at)).toEqual([null, null]);
  });

  it("refuses an owner's membership that would expire", async () => {
    const { owner, organizationId } = await organization();
    const user = await registerUser(server(), 'would-own');
    const later = inMs(DAY_MS);
    expect(await api.add(owner, organizationId, { email: user.email, role: 'owner', expires_at: later })).toMatchObject(
      badExpiry,
    );
    expect(
      await api.invite(owner, organizationId, { email: user.email, role: 'owner', expires_at: later }),
    ).toMatchObject(badExpiry);
    expect((await api.add(owner, organizationId, { email: user.email, role: 'admin', expires_at: later })).status).toBe(
      201,
    );
    expect(
      await api.change(owner, organizationId, { user_id: user.id, role: 'owner', expires_at: later }),
    ).toMatchObject(badExpiry);
    // Their membership expires: making them owner needs it cleared.
    const keeps = await api.change(owner, organizationId, { user_id: user.id, role: 'owner' });
    expect(keeps).toMatchObject(badExpiry);
    expect(keeps.body.message).toMatch(/null/);
    expect((await api.member(owner, organizationId, user.id)).body).toMatchObject({ role: 'admin', expires_at: later });
    const cleared = await api.change(owner, organizationId, { user_id: user.id, role: 'owner', expires_at: null });
    expect(cleared.status).toBe(200);
    expect((await api.member(owner, organizationId, user.id)).body).toMatchObject({ role: 'owner', expires_at: null });
  });

  it('clears the expiry of the member ownership is handed to', async () => {
    const { owner, organizationId } = await organization();
    const heir = await registerUser(server(), 'heir');
    expect(
      (await api.add(owner, organizationId, { email: heir.email, role: 'admin', expires_at: inMs(DAY_MS) })).status,
    ).toBe(201);
    const transferred = await server().call('POST', `/organizations/${organizationId}/transfer-ownership`, {
      token: owner.token,
      body: { user_id: heir.id },
    });
    expect(transferred.status).toBe(200);
    expect((await api.member(owner, organizationId, heir.id)).body).toMatchObject({ role: 'owner', expires_at: null });
  });
});

describeOnEachDatabase('the expiry sweep (behaviour §11)', (target) => {
  const server = useServerSweepingEvery(target, 200, { EVENTS_POLL_INTERVAL_MS: '100' });
  const api = callsOf(server);

  it("removes an expired membership, records member.expired once, ends the member's subscription", async () => {
    const owner = await registerUser(server(), 'owner');
    const organizationId = await createOrganization(server(), owner);
    const admin = await registerUser(server(), 'watching');
    const expiresAt = inMs(SHORTLY_MS + 500);
    expect(
      (await api.add(owner, organizationId, { email: admin.email, role: 'admin', expires_at: expiresAt })).status,
    ).toBe(201);

    const delivered: AuditEvent[] = [];
    const ended = new Promise<unknown>((resolve) => {
      createClient({ url: server().baseUrl, token: admin.token }).events.watch.subscribe(
        { organization_id: organizationId },
        { onData: ({ data }) => delivered.push(data), onComplete: () => resolve('completed'), onError: resolve },
      );
    });
    // The subscription is live once it delivers a change made after it started.
    const rename = () =>
      server().call('PUT', `/organizations/${organizationId}`, {
        token: owner.token,
        body: { organization_name: `Renamed ${Date.now()}` },
      });
    expect(await eventually(async () => (await rename()).status === 200 && delivered.length > 0, SHORTLY_MS)).toBe(
      true,
    );

    expect(await ended).toBe('completed');
    expect(Date.now()).toBeGreaterThan(Date.parse(expiresAt));
    expect(delivered.at(-1)).toMatchObject({
      type: 'member.expired',
      actor_user_id: admin.id,
      subject_user_id: admin.id,
      data: { role: 'admin', expires_at: expiresAt },
    });
    const stored = await storedState(server(), organizationId);
    expect(stored.memberships.map((membership) => membership.user_id)).toEqual([owner.id]);
    await sleep(600); // a few more sweeps
    const expired = (await api.events(owner, organizationId)).filter((event) => event.type === 'member.expired');
    expect(expired).toHaveLength(1);
  });

  if (target.name === 'mariadb') {
    describe('with two instances on one database', () => {
      let other: TestServer | undefined;
      beforeAll(async () => {
        process.env.EXPIRY_SWEEP_INTERVAL_MS = '100';
        other = await startTestServer(server().databaseUrl);
        delete process.env.EXPIRY_SWEEP_INTERVAL_MS;
      });
      afterAll(async () => {
        await other?.service.close();
      });

      /** `count` users with records, registered ten at a time. */
      async function manyUsers(count: number): Promise<TestUser[]> {
        const users: TestUser[] = [];
        while (users.length < count) {
          users.push(...(await Promise.all(Array.from({ length: 10 }, () => registerUser(server(), 'expiring')))));
        }
        return users;
      }

      it('removes each expired membership once and records one member.expired for it', async () => {
        const owner = await registerUser(server(), 'owner');
        const organizations = [await createOrganization(server(), owner), await createOrganization(server(), owner)];
        // Enough expiring at one moment that each sweep runs for a while and the two instances'
        // sweeps overlap, both reading rows the other is removing.
        const users = await Promise.all(organizations.map(() => manyUsers(50)));
        // 100 adds, 50 after one another in each organization: a few seconds on a loaded machine.
        const expiresAt = inMs(8_000);
        await Promise.all(
          organizations.map(async (organizationId, index) => {
            for (const user of users[index]!) {
              const added = await api.add(owner, organizationId, {
                email: user.email,
                role: 'member',
                expires_at: expiresAt,
              });
              expect(added.status).toBe(201);
            }
          }),
        );
        expect(Date.now(), 'all added before they expire').toBeLessThan(Date.parse(expiresAt));
        await until(expiresAt);
        const swept = await eventually(async () => {
          for (const organizationId of organizations) {
            if ((await storedState(server(), organizationId)).memberships.length > 1) return false;
          }
          return true;
        });
        expect(swept).toBe(true);
        await sleep(500); // a few more sweeps of both instances
        for (const [index, organizationId] of organizations.entries()) {
          const expired = (await api.events(owner, organizationId)).filter((event) => event.type === 'member.expired');
          expect(expired.map((event) => event.subject_user_id).sort()).toEqual(
            users[index]!.map((user) => user.id).sort(),
          );
        }
      });
    });
  }
});
