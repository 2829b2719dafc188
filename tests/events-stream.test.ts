/**
 * The live audit events over tRPC subscriptions (server-sent events), on MariaDB: delivery as
 * changes commit, resuming after a given event id, the end of a subscription whose caller loses
 * the role, refusals with the contract's codes, a subscriber too slow to read being disconnected,
 * and delivery at the next poll of a change made through another instance of the service.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, type Client } from '../client/src/index.ts';
import { readSettings } from '../server/platform/config.ts';
import type { Database } from '../server/platform/database/schema.ts';
import type { AuditEvent } from '../shared/events.ts';
import { databaseTarget } from './support/databases.ts';
import { failWithout } from './support/needs.ts';
import { writeEvents } from './support/events.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { spawnService, type ServiceProcess } from './support/process.ts';
import { createRole, rolePath } from './support/roles.ts';
import { addToTeam, createTeam, teamPath } from './support/teams.ts';
import { useServer, type TestServer } from './support/server.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';
import { restCall } from './support/rest-call.ts';
import { LOADED_MACHINE_SLACK_MS } from './support/timing.ts';

const mariadb = databaseTarget('mariadb');
const DEFAULT_POLL_INTERVAL_MS = readSettings({}).EVENTS_POLL_INTERVAL_MS;

type Ending = { completed: true } | { error: unknown };

interface Watch {
  events: AuditEvent[];
  /** When each event arrived (Date.now()). */
  arrivals: number[];
  ended: Promise<Ending>;
  /** Resolves once `count` events have arrived. */
  received(count: number): Promise<AuditEvent[]>;
  stop(): void;
}

function watch(api: Client, input: { organization_id: string; lastEventId?: string | null }): Watch {
  const events: AuditEvent[] = [];
  const arrivals: number[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let end: (ending: Ending) => void = () => {};
  const ended = new Promise<Ending>((resolve) => (end = resolve));
  const subscription = api.events.watch.subscribe(input, {
    onData(tracked) {
      expectTypeOf(tracked.data).toEqualTypeOf<AuditEvent>();
      expect(tracked.id).toBe(tracked.data.event_id);
      events.push(tracked.data);
      arrivals.push(Date.now());
      for (const waiter of waiters.filter((waiting) => events.length >= waiting.count)) waiter.resolve();
    },
    onError: (error) => end({ error }),
    onComplete: () => end({ completed: true }),
  });
  return {
    events,
    arrivals,
    ended,
    received: (count) =>
      new Promise((resolve) => {
        if (events.length >= count) return resolve(events.slice(0, count));
        waiters.push({ count, resolve: () => resolve(events.slice(0, count)) });
      }),
    stop: () => subscription.unsubscribe(),
  };
}

/** The error a refused subscription ends with: tRPC's, with the service's code and HTTP status. */
async function refusal(watching: Watch): Promise<{ code: unknown; httpStatus: unknown }> {
  const ending = await watching.ended;
  expect(ending).toHaveProperty('error');
  const data = (ending as { error: { data?: { code?: unknown; httpStatus?: unknown } } }).error.data;
  return { code: data?.code, httpStatus: data?.httpStatus };
}

const newestEventId = async (server: TestServer, user: TestUser, organizationId: string): Promise<string> => {
  const listed = await server.call('GET', `/organizations/${organizationId}/events?limit=1000`, { token: user.token });
  expect(listed.status).toBe(200);
  return (listed.body as AuditEvent[]).at(-1)!.event_id;
};

describe('audit event subscriptions on mariadb', () => {
  failWithout(mariadb.missing);
  // Polled often: the slow-subscriber test pushes thousands of events through.
  const server = useServer(mariadb, { EVENTS_POLL_INTERVAL_MS: '100' });
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let organizationId: string;
  const clientOf = async (user: TestUser | string) =>
    createClient({ url: server().baseUrl, token: await tokenFor(typeof user === 'string' ? user : user.id) });
  const setRole = (actor: TestUser, userId: string, role: string) =>
    server().call('PUT', '/organization-user', { token: actor.token, organizationId, body: { user_id: userId, role } });

  beforeAll(async () => {
    owner = await registerUser(server(), 'owner');
    admin = await registerUser(server(), 'admin');
    member = await registerUser(server(), 'member');
    organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, admin, 'admin');
    await addMember(server(), owner, organizationId, member, 'member');
  });

  it('delivers each new event as its change commits, with its event_id as the tracked id', async () => {
    const watching = watch(await clientOf(admin), {
      organization_id: organizationId,
      lastEventId: await newestEventId(server(), owner, organizationId),
    });
    const subject = await registerUser(server(), 'subject');
    await addMember(server(), owner, organizationId, subject, 'member');
    expect((await setRole(owner, subject.id, 'admin')).status).toBe(200);
    const [added, changed] = await watching.received(2);
    watching.stop();
    expect(added).toMatchObject({ type: 'member.added', actor_user_id: owner.id, subject_user_id: subject.id });
    expect(changed).toMatchObject({ type: 'member.role_changed', data: { from: 'member', to: 'admin' } });
    const stored = await server().call('GET', `/organizations/${organizationId}/events?after=${added!.event_id}`, {
      token: owner.token,
    });
    expect(stored.body[0]).toEqual(changed);
  });

  it('resumes after lastEventId: the events after it from the table, then new ones, each once', async () => {
    const listed = await server().call('GET', `/organizations/${organizationId}/events?limit=1000`, {
      token: owner.token,
    });
    const history = listed.body as AuditEvent[];
    expect(history.length).toBeGreaterThanOrEqual(3);
    const resumeAfter = history[0]!.event_id;
    const watching = watch(await clientOf(owner), { organization_id: organizationId, lastEventId: resumeAfter });
    await watching.received(history.length - 1);
    expect(watching.events).toEqual(history.slice(1));

    const subject = await registerUser(server(), 'resume');
    await addMember(server(), admin, organizationId, subject, 'member');
    await watching.received(history.length);
    watching.stop();
    expect(watching.events.at(-1)).toMatchObject({ type: 'member.added', subject_user_id: subject.id });
    const ids = watching.events.map((event) => event.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  /**
   * A subscription of `subscriber` that is live: it resumes before the last event, the subscriber's
   * own (joining the organization or a team), so that event arriving shows the role was checked and
   * the feed joined.
   */
  async function liveSubscription(subscriber: TestUser): Promise<Watch> {
    const listed = await server().call('GET', `/organizations/${organizationId}/events?limit=1000`, {
      token: owner.token,
    });
    const history = listed.body as AuditEvent[];
    expect(history.at(-1)).toMatchObject({ subject_user_id: subscriber.id });
    const watching = watch(await clientOf(subscriber), {
      organization_id: organizationId,
      lastEventId: history.at(-2)!.event_id,
    });
    await watching.received(1);
    return watching;
  }

  it('ends the subscription of an admin made a member, after the event that says so', async () => {
    const demoted = await registerUser(server(), 'demoted');
    const bystander = await registerUser(server(), 'bystander');
    await addMember(server(), owner, organizationId, bystander, 'member');
    await addMember(server(), owner, organizationId, demoted, 'admin');
    const watching = await liveSubscription(demoted);
    expect((await setRole(owner, demoted.id, 'member')).status).toBe(200);
    // A later change is not delivered to the former admin.
    expect((await setRole(owner, bystander.id, 'admin')).status).toBe(200);
    expect(await watching.ended).toEqual({ completed: true });
    expect(watching.events.map((event) => [event.type, event.subject_user_id, event.data])).toEqual([
      ['member.added', demoted.id, { role: 'admin' }],
      ['member.role_changed', demoted.id, { from: 'admin', to: 'member' }],
    ]);
  });

  it('ends the subscription of an admin removed from the organization', async () => {
    const removed = await registerUser(server(), 'removed');
    await addMember(server(), owner, organizationId, removed, 'admin');
    const watching = await liveSubscription(removed);
    const deleted = await server().call('DELETE', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { user_id: removed.id },
    });
    expect(deleted.status).toBe(200);
    expect(await watching.ended).toEqual({ completed: true });
    expect(watching.events.map((event) => [event.type, event.subject_user_id])).toEqual([
      ['member.added', removed.id],
      ['member.removed', removed.id],
    ]);
  });

  // Whether the two changes fall in one poll's batch or in two, the subscriber gets both, then ends.
  it('ends the subscription of a member whose team is deleted, after the events up to the deletion', async () => {
    const reader = await registerUser(server(), 'team-reader');
    const joining = await registerUser(server(), 'team-joining');
    await addMember(server(), owner, organizationId, reader, 'member');
    const team = await createTeam(server(), owner, organizationId, uniqueId('readers'), { roles: ['admin'] });
    await addToTeam(server(), owner, organizationId, team.team_id, reader);
    const watching = await liveSubscription(reader);
    await addMember(server(), owner, organizationId, joining, 'member');
    const deleted = await server().call('DELETE', teamPath(organizationId, team.team_id), { token: owner.token });
    expect(deleted.status).toBe(200);
    expect(await watching.ended).toEqual({ completed: true });
    expect(watching.events.map((event) => [event.type, event.subject_user_id])).toEqual([
      ['team.member_added', reader.id],
      ['member.added', joining.id],
      ['team.deleted', null],
    ]);
  });

  it("ends the subscription of a member whose role stops giving events:read, after the role's change", async () => {
    const role = uniqueId('reader')
      .toLowerCase()
      .replaceAll(/[^a-z0-9]+/g, '_');
    await createRole(server(), owner, organizationId, role, ['events:read']);
    const reader = await registerUser(server(), 'role-reader');
    const joining = await registerUser(server(), 'role-joining');
    await addMember(server(), owner, organizationId, reader, role);
    const watching = await liveSubscription(reader);
    await addMember(server(), owner, organizationId, joining, 'member');
    const changed = await server().call('PUT', rolePath(organizationId, role), {
      token: owner.token,
      body: { permissions: ['members:read'] },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await watching.ended).toEqual({ completed: true });
    expect(watching.events.map((event) => [event.type, event.subject_user_id])).toEqual([
      ['member.added', reader.id],
      ['member.added', joining.id],
      ['role.updated', null],
    ]);
  });

  it('refuses a bad token (401), a member or non-member (403) and a malformed lastEventId (400)', async () => {
    const badToken = createClient({ url: server().baseUrl, token: 'not-a-token' });
    expect(await refusal(watch(badToken, { organization_id: organizationId }))).toEqual({
      code: 'UNAUTHORIZED',
      httpStatus: 401,
    });
    for (const caller of [member.id, uniqueId('stranger')]) {
      expect(await refusal(watch(await clientOf(caller), { organization_id: organizationId }))).toEqual({
        code: 'FORBIDDEN',
        httpStatus: 403,
      });
    }
    expect(
      await refusal(watch(await clientOf(owner), { organization_id: organizationId, lastEventId: 'not-an-id' })),
    ).toEqual({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(await refusal(watch(await clientOf(owner), { organization_id: crypto.randomUUID() }))).toEqual({
      code: 'FORBIDDEN',
      httpStatus: 403,
    });
  });

  it('disconnects a subscriber that stops reading, while one that reads gets every event', async () => {
    const busy = await createOrganization(server(), owner);
    const start = await newestEventId(server(), owner, busy);
    const reader = watch(await clientOf(owner), { organization_id: busy, lastEventId: start });

    // A client that asks for the stream and then reads nothing.
    const stuck = connect(Number(new URL(server().baseUrl).port), '127.0.0.1');
    const input = encodeURIComponent(JSON.stringify({ organization_id: busy, lastEventId: start }));
    stuck.write(
      `GET /trpc/events.watch?input=${input} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${owner.token}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    stuck.pause();
    const closed = new Promise<void>((resolve) => stuck.once('close', () => resolve()));

    // Far more than the socket buffers and the subscriber's backlog hold: 10,000 events of ~1 KB,
    // written straight to the table as if as many changes had committed.
    const count = 10_000;
    const ids = await writeEvents(server().service.orm.em.getKysely<Database>(), busy, owner.id, count);
    expect(ids[0]! > start).toBe(true);

    await reader.received(count);
    reader.stop();
    expect(reader.events.map((event) => event.event_id)).toEqual(ids);

    // The stuck client reads at last what the socket holds: its stream was cut short.
    let text = '';
    stuck.on('data', (chunk: Buffer) => (text += chunk.toString())).resume();
    await closed;
    const delivered = text.match(/^id: /gm)?.length ?? 0;
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(count);
  }, 120_000);
});

describe('audit event subscriptions across two instances on one MariaDB', () => {
  failWithout(mariadb.missing);
  const instances: ServiceProcess[] = [];
  let drop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const database = await mariadb.create();
    drop = database.drop;
    const env = { DATABASE_URL: database.url, JWT_SECRET: TEST_SECRET, RATE_LIMIT_MAX: '0' };
    instances.push(await spawnService(env));
    instances.push(await spawnService({ ...env, MIGRATE_ON_START: 'false' }));
  }, 60_000);
  afterAll(async () => {
    for (const instance of instances) {
      if (instance.child.exitCode === null) instance.child.kill('SIGTERM');
      await instance.exited;
    }
    await drop();
  });

  const rest = (instance: number, method: string, path: string, token: string, body?: object, org?: string) =>
    restCall(instances[instance]!.baseUrl, method, path, token, body, org);

  async function user(instance: number, prefix: string) {
    const id = uniqueId(prefix);
    const token = await tokenFor(id, { role: 'owner' });
    const created = await rest(instance, 'POST', '/users', token, {
      first_name: 'Two',
      last_name: 'Instances',
      email: `${id}@example.com`,
    });
    expect(created.status).toBe(201);
    return { id, token, email: `${id}@example.com` };
  }

  it('delivers an event committed through the other instance at its next poll, and lets it stop', async () => {
    const owner = await user(0, 'far-owner');
    const organization = await rest(0, 'POST', '/organizations', owner.token, {
      organization_name: 'Far',
      organization_description: '',
    });
    const organizationId: string = organization.body.organization_id;
    const history = await rest(0, 'GET', `/organizations/${organizationId}/events`, owner.token);
    const api = createClient({ url: instances[1]!.baseUrl, token: owner.token });
    const watching = watch(api, { organization_id: organizationId, lastEventId: history.body.at(-1).event_id });

    const subjects = [];
    for (let change = 0; change < 5; change++) subjects.push(await user(0, 'far-member'));
    for (const [index, subject] of subjects.entries()) {
      const added = await rest(
        0,
        'POST',
        '/organization-user',
        owner.token,
        { email: subject.email, role: 'member' },
        organizationId,
      );
      expect(added.status).toBe(201);
      const committed = Date.now();
      await watching.received(index + 1);
      expect(watching.events[index]).toMatchObject({ type: 'member.added', subject_user_id: subject.id });
      // The next poll comes within EVENTS_POLL_INTERVAL_MS, the default here.
      expect(watching.arrivals[index]! - committed).toBeLessThan(DEFAULT_POLL_INTERVAL_MS + LOADED_MACHINE_SLACK_MS);
    }

    // Stopping the instance that holds the stream does not wait for the stream to end.
    instances[1]!.child.kill('SIGTERM');
    expect(await instances[1]!.exited).toBe(0);
    watching.stop();
  }, 60_000);
});
