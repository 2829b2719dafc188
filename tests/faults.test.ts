/**
 * Real faults under load (behaviour §10), on MariaDB: the database killed and restarted while
 * clients write, the database killed while a whole list of 60,000 members is being sent, the
 * database stalled past the processing limit, and organizations locked by another session for
 * longer than DB_TIMEOUT_MS.
 * In each, every answer is either a success that is stored or a 503 with the error body and
 * Retry-After whose change is not stored, and every answer comes within DB_TIMEOUT_MS and a margin
 * for the processing limit and a loaded machine (./support/timing.ts).
 */
import { request, type IncomingMessage } from 'node:http';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDbTimestamp, type Database } from '../server/platform/database/schema.ts';
import { databaseTarget } from './support/databases.ts';
import { createOrganization, insertUsersAsMembers, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { OwnMariadb } from './support/mariadb-instance.ts';
import { failWithout, ownMariadbMissing } from './support/needs.ts';
import { startTestServer, useServer, type TestServer } from './support/server.ts';
import { ANSWER_MARGIN_MS } from './support/timing.ts';
import { tokenFor } from './support/tokens.ts';

interface Answer {
  status: number;
  body: { code?: string; message?: string } | undefined;
  retryAfter: string | null;
  replayed: string | null;
  ms: number;
}

async function timedCall(server: TestServer, ...args: Parameters<TestServer['call']>): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await server.call(...args);
    return {
      status: response.status,
      body: response.body,
      retryAfter: response.headers.get('retry-after'),
      replayed: response.headers.get('idempotency-replayed'),
      ms: performance.now() - started,
    };
  } catch {
    return { status: 0, body: undefined, retryAfter: null, replayed: null, ms: performance.now() - started };
  }
}

/** A refusal in the contract's form: 503, the error body, and when to try again. */
function expectContract503(answer: Answer): void {
  expect(answer.status).toBe(503);
  expect(answer.body).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
}

const DB_TIMEOUT_MS = 1500;

/** A new organization, a user to add to it, and the add, sent with `key` as its Idempotency-Key. */
async function organizationAndAdd(server: TestServer, key: string) {
  const owner = await registerUser(server);
  const organizationId = await createOrganization(server, owner);
  const newcomer = await registerUser(server);
  const add = () =>
    timedCall(server, 'POST', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { email: newcomer.email, role: 'member' },
      headers: { 'idempotency-key': key },
    });
  return { owner, organizationId, newcomer, add };
}

describe('the database killed under write load', () => {
  failWithout(ownMariadbMissing());
  const database = new OwnMariadb();
  let server: TestServer;

  beforeAll(async () => {
    await database.start();
    server = await startTestServer(database.url, { DB_TIMEOUT_MS: String(DB_TIMEOUT_MS) });
  }, 60_000);
  afterAll(async () => {
    await server?.service.close();
    await database.destroy();
  });

  it('keeps every acknowledged write, refuses the rest with 503, and writes again soon after restart', async () => {
    const acknowledged: Array<{ token: string; email: string }> = [];
    const refusals: Answer[] = [];
    let firstWriteAfterRestart: number | undefined;
    // Set once, after the writers start: they read it, so a const declared there would not exist for them yet.
    // eslint-disable-next-line prefer-const -- see above
    let restartedAt: number | undefined;
    let writing = true;
    const writer = async (index: number) => {
      for (let n = 0; writing; n++) {
        const id = uniqueId(`w${index}-${n}`);
        const token = await tokenFor(id, { role: 'owner' });
        const email = `${id}@example.com`;
        const answer = await timedCall(server, 'POST', '/users', {
          token,
          body: { first_name: 'W', last_name: 'R', email },
        });
        if (answer.status === 201) {
          acknowledged.push({ token, email });
          if (restartedAt !== undefined) firstWriteAfterRestart ??= performance.now();
        } else {
          refusals.push(answer);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const writers = Array.from({ length: 16 }, (_, index) => writer(index));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await database.stop('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await database.start(); // returns once the database accepts connections again
    restartedAt = performance.now();
    for (let waited = 0; firstWriteAfterRestart === undefined && waited < 15_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    writing = false;
    await Promise.all(writers);

    expect(firstWriteAfterRestart, 'a write succeeded after the restart').toBeDefined();
    expect(firstWriteAfterRestart! - restartedAt).toBeLessThan(10_000);
    expect(refusals.length, 'the outage was seen').toBeGreaterThan(0);
    for (const refusal of refusals) {
      expectContract503(refusal);
      expect(refusal.ms).toBeLessThan(DB_TIMEOUT_MS + ANSWER_MARGIN_MS);
    }
    for (const { token, email } of acknowledged) {
      const record = await server.call('GET', '/users', { token });
      expect(record.status).toBe(200);
      expect(record.body.email).toBe(email);
    }
  });

  it('carries out the retry of a change with an Idempotency-Key refused with 503 while the database was down', async () => {
    const { owner, organizationId, newcomer, add } = await organizationAndAdd(server, 'through-the-outage');
    // Another session holds the organization, so the change is still trying when the database dies.
    const blocker = await mysql.createConnection({ uri: database.url.replace(/^mariadb:/, 'mysql:') });
    blocker.on('error', () => undefined); // it dies with the database
    await blocker.query('begin');
    await blocker.query('select id from organizations where id = ? for update', [organizationId]);
    const first = add();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await database.stop('SIGKILL');
    blocker.destroy();
    expectContract503(await first);
    await database.start();
    await expect.poll(async () => (await timedCall(server, 'GET', '/readyz')).status, { timeout: 10_000 }).toBe(200);

    const retried = await add();
    expect(retried.status).toBe(201);
    expect(retried.replayed).toBeNull();
    expect((await add()).replayed).toBe('true');
    const added = await server.call('GET', `/organizations/${organizationId}/events?type=member.added`, {
      token: owner.token,
    });
    expect(added.body.map((event: { subject_user_id: string }) => event.subject_user_id)).toEqual([newcomer.id]);
  });
});

/** A GET of `path` read only as far as its first bytes, until `resume()`: what it received, and how it ended. */
function slowReader(baseUrl: string, path: string, headers: Record<string, string>) {
  let bytes = 0;
  let firstBytes: () => void;
  const started = new Promise<void>((resolve) => (firstBytes = resolve));
  let response: IncomingMessage | undefined;
  const ended = new Promise<{ status: number; complete: boolean; body: string }>((resolve) => {
    const chunks: Buffer[] = [];
    const call = request(`${baseUrl}${path}`, { headers }, (answer) => {
      response = answer;
      answer.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        bytes += chunk.length;
        if (chunks.length === 1) {
          answer.pause();
          firstBytes();
        }
      });
      const finish = () =>
        resolve({ status: answer.statusCode!, complete: answer.complete, body: Buffer.concat(chunks).toString() });
      answer.on('end', finish);
      answer.on('error', finish);
      answer.on('aborted', finish);
    });
    call.on('error', () => resolve({ status: 0, complete: false, body: Buffer.concat(chunks).toString() }));
    call.end();
  });
  return { started, ended, resume: () => response?.resume(), received: () => bytes };
}

describe('the database killed while a whole list is streamed', () => {
  failWithout(ownMariadbMissing());
  const database = new OwnMariadb();
  let server: TestServer;
  /** Enough that the answer (about 190 bytes a member) outgrows what loopback sockets buffer. */
  const MEMBERS = 60_000;

  beforeAll(async () => {
    await database.start();
    server = await startTestServer(database.url, { DB_TIMEOUT_MS: String(DB_TIMEOUT_MS) });
  }, 60_000);
  afterAll(async () => {
    await server?.service.close();
    await database.destroy();
  });

  it('cuts the answer short, never a well-formed shorter list, and serves the whole list again after the restart (behaviour §6)', async () => {
    const owner = await registerUser(server);
    const organizationId = await createOrganization(server, owner);
    const sql = server.service.orm.em.getKysely<Database>();
    const now = toDbTimestamp('mariadb', new Date());
    const run = uniqueId('streamed');
    for (let from = 0; from < MEMBERS; from += 2000) {
      const ids = Array.from({ length: Math.min(2000, MEMBERS - from) }, (_, offset) => `${run}-${from + offset}`);
      const users = ids.map((id) => ({
        user_id: id,
        first_name: 'Streamed',
        last_name: id,
        email: `${id}@example.com`,
      }));
      await insertUsersAsMembers(sql, organizationId, users, now);
    }
    const headers = { authorization: `Bearer ${owner.token}`, organization_id: organizationId };

    const reader = slowReader(server.baseUrl, '/organization-user', headers);
    await reader.started;
    // The service writes pages until the socket stops taking them, then waits: it is mid-list.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await database.stop('SIGKILL');
    reader.resume();
    const cut = await reader.ended;
    expect(cut.status).toBe(200);
    expect(cut.complete).toBe(false);
    expect(cut.body.startsWith('[{')).toBe(true);
    expect(() => JSON.parse(cut.body)).toThrow();
    // The service itself is still there, and answers the list once the database is back.
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    await database.start();
    let whole: Awaited<ReturnType<TestServer['call']>> | undefined;
    for (let attempt = 0; attempt < 50 && whole?.status !== 200; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      whole = await server.call('GET', '/organization-user', { token: owner.token, organizationId });
    }
    expect(whole!.status).toBe(200);
    expect(whole!.body).toHaveLength(MEMBERS + 1);
  }, 120_000);
});

describe('the database stalled past the processing limit', () => {
  failWithout(ownMariadbMissing());
  const database = new OwnMariadb();
  let server: TestServer;
  const processingLimitMs = DB_TIMEOUT_MS + 200;

  beforeAll(async () => {
    await database.start();
    server = await startTestServer(database.url, { DB_TIMEOUT_MS: String(DB_TIMEOUT_MS) });
  }, 60_000);
  afterAll(async () => {
    database.thaw();
    await server?.service.close();
    await database.destroy();
  });

  it('answers 503 at the limit, and what the given-up requests sent never commits when the database wakes', async () => {
    const owner = await registerUser(server);
    const organizationId = await createOrganization(server, owner);
    const newcomers = await Promise.all(Array.from({ length: 4 }, () => registerUser(server)));
    const latecomerId = uniqueId('latecomer');
    const latecomer = { token: await tokenFor(latecomerId, { role: 'owner' }), email: `${latecomerId}@example.com` };
    // A frozen server keeps its connections open and answers nothing: no error, no timeout of its
    // own. Only the service's processing limit ends these requests.
    database.freeze();
    const overTrpc = timedCall(server, 'POST', '/trpc/users.update', {
      token: owner.token,
      body: { last_name: 'Stalled' },
    });
    const stalled = await Promise.all([
      ...newcomers.map((newcomer) =>
        timedCall(server, 'POST', '/organization-user', {
          token: owner.token,
          organizationId,
          body: { email: newcomer.email, role: 'member' },
        }),
      ),
      timedCall(server, 'PUT', '/users', { token: owner.token, body: { first_name: 'Stalled' } }),
      timedCall(server, 'POST', '/users', {
        token: latecomer.token,
        body: { first_name: 'Late', last_name: 'Comer', email: latecomer.email },
      }),
    ]);
    database.thaw();
    // Those that got the database's attention waited until the limit; the adds queued behind the
    // first one for the organization's turn gave up after DB_TIMEOUT_MS.
    for (const answer of stalled) {
      expectContract503(answer);
      expect(answer.ms).toBeLessThan(DB_TIMEOUT_MS + ANSWER_MARGIN_MS);
    }
    expect(Math.max(...stalled.map((answer) => answer.ms))).toBeGreaterThanOrEqual(processingLimitMs - 100);
    const trpcAnswer = await overTrpc;
    expect(trpcAnswer.status).toBe(503);
    expect(trpcAnswer.body).toMatchObject({ error: { data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } } });
    expect(Number(trpcAnswer.retryAfter)).toBeGreaterThan(0);
    // The database now runs what it was sent while frozen; each transaction must roll back.
    await expect
      .poll(async () => (await timedCall(server, 'GET', '/users', { token: owner.token })).status, { timeout: 10_000 })
      .toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2 * DB_TIMEOUT_MS));
    const members = await server.call('GET', '/organization-user', { token: owner.token, organizationId });
    expect(members.body.map((member: { user_id: string }) => member.user_id)).toEqual([owner.id]);
    const record = (await server.call('GET', '/users', { token: owner.token })).body;
    expect([record.first_name, record.last_name]).not.toContain('Stalled');
    expect((await server.call('GET', '/users', { token: latecomer.token })).status).toBe(404);
    // And the service carries on.
    const added = await server.call('POST', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { email: newcomers[0]!.email, role: 'member' },
    });
    expect(added.status).toBe(201);
  });

  // Behaviour §10: given up before its COMMIT went out, a change rolls back and its 503 says nothing
  // changed; given up after, a database that stalled commits it when it wakes, and the 503 says so.
  // 24 rounds, up to a processing limit each, and a wait for the database after each 503.
  it(
    'says nothing changed only when nothing did, and that a change given up mid-COMMIT may have been made',
    { timeout: 180_000 },
    async () => {
      let givenUp = 0;
      for (let round = 0; round < 24; round++) {
        const { owner, organizationId, newcomer, add } = await organizationAndAdd(server, uniqueId('stalled-add'));
        const sent = add();
        // A stall at some moment of the change: before it, between its round trips, or with its COMMIT out.
        await new Promise((resolve) => setTimeout(resolve, round % 8));
        database.freeze();
        const answer = await sent;
        database.thaw();
        if (answer.status !== 503) continue;
        givenUp++;
        await expect
          .poll(async () => (await timedCall(server, 'GET', '/users', { token: owner.token })).status, {
            timeout: 10_000,
          })
          .toBe(200);
        const member = await server.call('GET', `/organizations/${organizationId}/members/${newcomer.id}`, {
          token: owner.token,
        });
        if (answer.body?.message?.includes('nothing it asked for was changed')) {
          expect(member.status, `round ${round}`).toBe(404);
        } else {
          expect(answer.body?.message, `round ${round}`).toMatch(/may have been made/);
          // The retry tells which: the change replayed, or made now.
          expect((await add()).status, `round ${round}`).toBe(201);
        }
      }
      expect(givenUp).toBeGreaterThan(0);
    },
  );

  it('carries out the retry of a change with an Idempotency-Key given up while the database was frozen', async () => {
    const { owner, organizationId, newcomer, add } = await organizationAndAdd(server, 'through-the-stall');
    // Another session holds the organization: woken, the given-up change would go on trying.
    const blocker = await mysql.createConnection({ uri: database.url.replace(/^mariadb:/, 'mysql:') });
    try {
      await blocker.query('begin');
      await blocker.query('select id from organizations where id = ? for update', [organizationId]);
      database.freeze();
      expectContract503(await add());
      database.thaw();
      const retried = add();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await blocker.query('rollback');
      expect((await retried).status).toBe(201);
      expect((await retried).replayed).toBeNull();
    } finally {
      database.thaw();
      await blocker.end();
    }
    const added = await server.call('GET', `/organizations/${organizationId}/events?type=member.added`, {
      token: owner.token,
    });
    expect(added.body.map((event: { subject_user_id: string }) => event.subject_user_id)).toEqual([newcomer.id]);
  });
});

/** The value of an unlabelled gauge on the service's metrics listener. */
async function gauge(server: TestServer, name: string): Promise<number> {
  const text = await (await fetch(server.service.metrics!.url)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no ${name} in the metrics`);
  return Number(line.slice(name.length + 1));
}

describe('the database frozen under steady load', () => {
  failWithout(ownMariadbMissing());
  const database = new OwnMariadb();
  let server: TestServer;
  /** Each sends its next request as soon as the last is answered. */
  const CLIENTS = 12;

  beforeAll(async () => {
    await database.start();
    server = await startTestServer(database.url, {
      DB_TIMEOUT_MS: String(DB_TIMEOUT_MS),
      DB_POOL_SIZE: '4',
      METRICS_PORT: '0',
    });
  }, 60_000);
  afterAll(async () => {
    database.thaw();
    await server?.service.close();
    await database.destroy();
  });

  it('keeps no wait for a connection past its 503, and commits none of the changes refused when it wakes', async () => {
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => registerUser(server)));
    // Four budgets long: each client is refused several times over, each refusal a wait given up.
    database.freeze();
    const frozenUntil = performance.now() + 4 * DB_TIMEOUT_MS;
    const renames: Array<{ client: TestUser; name: string; answer: Answer }> = [];
    const client = async (user: TestUser, index: number) => {
      for (let n = 0; performance.now() < frozenUntil; n++) {
        if (n % 2 === 0) {
          expectContract503(await timedCall(server, 'GET', '/users', { token: user.token }));
          continue;
        }
        const name = `Frozen ${index}-${n}`;
        const answer = await timedCall(server, 'PUT', '/users', { token: user.token, body: { first_name: name } });
        renames.push({ client: user, name, answer });
      }
    };
    let waitingAtMost = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        waitingAtMost = Math.max(waitingAtMost, await gauge(server, 'db_pool_waiting_acquisitions'));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    // The clients run to their end whatever one of them meets, then the sampler stops, and only then
    // does the test go on: nothing of it runs past it, and a failure of any, the sampler's
    // included, is this test's, not an unhandled rejection after it.
    const clientsEnded = Promise.allSettled(clients.map(client)).finally(() => (sampling = false));
    const [clientOutcomes, samplerOutcomes] = await Promise.all([clientsEnded, Promise.allSettled([sampler])]);
    const failed = [...clientOutcomes, ...samplerOutcomes].find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    // Every request is answered: their waits are over, though the database is still frozen.
    await expect
      .poll(() => gauge(server, 'db_pool_waiting_acquisitions'), { timeout: DB_TIMEOUT_MS + ANSWER_MARGIN_MS })
      .toBe(0);
    database.thaw();

    // A client has one request under way at a time, so at most one wait, and the service's own
    // work one each (the webhook dispatcher's pass, the expiry sweep, the purge of idempotency
    // keys): a wait given up at its request's 503 has left mysql2's queue (behaviour §10), instead
    // of piling up for as long as the freeze lasts.
    expect(waitingAtMost).toBeLessThanOrEqual(CLIENTS + 3);
    // Woken, the service serves again, and no refused change is made but one whose 503 said it may
    // have been (its COMMIT had gone out).
    await expect
      .poll(async () => (await timedCall(server, 'GET', '/users', { token: clients[0]!.token })).status, {
        timeout: 10_000,
      })
      .toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2 * DB_TIMEOUT_MS));
    expect(renames.length).toBeGreaterThanOrEqual(CLIENTS);
    for (const { client: user, name, answer } of renames) {
      expectContract503(answer);
      if (answer.body?.message?.includes('may have been made')) continue;
      const record = await server.call('GET', '/users', { token: user.token });
      expect(record.body.first_name, name).not.toBe(name);
    }
  });
});

const mariadb = databaseTarget('mariadb');

describe('organizations locked past DB_TIMEOUT_MS under load', () => {
  failWithout(mariadb.missing);
  const server = useServer(mariadb, { DB_TIMEOUT_MS: String(DB_TIMEOUT_MS), DB_POOL_SIZE: '10' });

  it('refuses their changes with 503 in time, stores none of them, and keeps serving everything else', async () => {
    const owner = await registerUser(server());
    const lockedOrganizations = await Promise.all(Array.from({ length: 8 }, () => createOrganization(server(), owner)));
    const freeOrganization = await createOrganization(server(), owner);
    const newcomers: TestUser[] = await Promise.all(Array.from({ length: 48 }, () => registerUser(server())));

    const blocker = await mysql.createConnection({ uri: server().databaseUrl.replace(/^mariadb:/, 'mysql:') });
    await blocker.query('begin');
    // One primary-key lookup each: an IN list may be read by a scan that locks every row it passes.
    for (const organizationId of lockedOrganizations) {
      await blocker.query('select id from organizations where id = ? for update', [organizationId]);
    }
    const lockedUntil = performance.now() + 3 * DB_TIMEOUT_MS;

    const adds: Array<{ organizationId: string; newcomer: TestUser; answer: Answer }> = [];
    const others: Answer[] = [];
    const addTo = async (organizationId: string, newcomer: TestUser) => {
      const answer = await timedCall(server(), 'POST', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { email: newcomer.email, role: 'member' },
      });
      adds.push({ organizationId, newcomer, answer });
    };
    // 16 writers to the locked organizations, and meanwhile reads and writes of other data.
    const lockedWrites = newcomers
      .slice(0, 16)
      .map((newcomer, index) => addTo(lockedOrganizations[index % 8]!, newcomer));
    const otherTraffic = (async () => {
      for (let index = 16; performance.now() < lockedUntil - 500 && index < newcomers.length; index++) {
        others.push(
          await timedCall(server(), 'GET', '/organization-user', {
            token: owner.token,
            organizationId: freeOrganization,
          }),
        );
        others.push(await timedCall(server(), 'GET', '/users', { token: owner.token }));
        const newcomer = newcomers[index]!;
        await addTo(freeOrganization, newcomer);
        others.push(adds.at(-1)!.answer);
      }
    })();
    await Promise.all([...lockedWrites, otherTraffic]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lockedUntil - performance.now())));
    await blocker.query('rollback');
    await blocker.end();

    expect(others.length).toBeGreaterThan(6);
    // Served at once, not after waiting out the locked changes' budgets (which end in a 503).
    for (const answer of others) {
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(answer.status).toBeLessThan(300);
      expect(answer.ms).toBeLessThan(DB_TIMEOUT_MS);
    }
    const toLocked = adds.filter(({ organizationId }) => organizationId !== freeOrganization);
    expect(toLocked).toHaveLength(16);
    for (const { answer } of toLocked) {
      expectContract503(answer);
      expect(answer.ms).toBeLessThan(DB_TIMEOUT_MS + ANSWER_MARGIN_MS);
    }
    // After the lock is gone: exactly the acknowledged adds are stored, in every organization.
    for (const organizationId of [...lockedOrganizations, freeOrganization]) {
      const members = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
      const stored = new Set(members.body.map((member: { user_id: string }) => member.user_id));
      for (const { newcomer, answer } of adds.filter((add) => add.organizationId === organizationId)) {
        expect(stored.has(newcomer.id), `${newcomer.id}: ${answer.status}`).toBe(answer.status === 201);
      }
    }
  });
});

describe('one organization locked for five times DB_TIMEOUT_MS', () => {
  failWithout(mariadb.missing);
  const timeoutMs = 2000;
  const server = useServer(mariadb, { DB_TIMEOUT_MS: String(timeoutMs), DB_POOL_SIZE: '10' });

  it('answers every change to it with 503 within DB_TIMEOUT_MS and the margin, serving the rest, committing none later', async () => {
    const owner = await registerUser(server());
    const [lockedOrganization, freeOrganization] = await Promise.all([
      createOrganization(server(), owner),
      createOrganization(server(), owner),
    ]);
    const newcomers = await Promise.all(Array.from({ length: 16 }, () => registerUser(server())));

    const blocker = await mysql.createConnection({ uri: server().databaseUrl.replace(/^mariadb:/, 'mysql:') });
    await blocker.query('begin');
    await blocker.query('select id from organizations where id = ? for update', [lockedOrganization]);
    const lockedUntil = performance.now() + 5 * timeoutMs;
    // Each writer sends its change again as soon as it is refused, so that changes start at every
    // moment of the others' budgets, until the lock would outlast none of them.
    const sendingUntil = lockedUntil - timeoutMs - ANSWER_MARGIN_MS - 500;
    const refused: Answer[] = [];
    let reading = true;
    const writer = async (newcomer: TestUser) => {
      while (performance.now() < sendingUntil) {
        refused.push(
          await timedCall(server(), 'POST', '/organization-user', {
            token: owner.token,
            organizationId: lockedOrganization,
            body: { email: newcomer.email, role: 'member' },
          }),
        );
      }
    };
    const reads: Answer[] = [];
    const reader = (async () => {
      while (reading) {
        reads.push(
          await timedCall(server(), 'GET', '/organization-user', {
            token: owner.token,
            organizationId: freeOrganization,
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await Promise.all(newcomers.map(writer));
    reading = false;
    await reader;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lockedUntil - performance.now())));
    await blocker.query('rollback');
    await blocker.end();

    for (const answer of refused) {
      expectContract503(answer);
      expect(answer.ms).toBeLessThan(timeoutMs + ANSWER_MARGIN_MS);
    }
    // Every writer was refused more than once: refused changes went on being sent all along.
    expect(refused.length).toBeGreaterThanOrEqual(2 * newcomers.length);
    expect(reads.length).toBeGreaterThan(10);
    for (const answer of reads) {
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(timeoutMs);
    }
    // The lock is gone: had any refused change gone on waiting in the database, it would commit now.
    await new Promise((resolve) => setTimeout(resolve, timeoutMs));
    const members = await server().call('GET', '/organization-user', {
      token: owner.token,
      organizationId: lockedOrganization,
    });
    expect(members.body.map((member: { user_id: string }) => member.user_id)).toEqual([owner.id]);
  });
});
