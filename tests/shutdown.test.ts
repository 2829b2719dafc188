/**
 * Stopping (behaviour §10), through `npm start` as the README runs it: SIGTERM lands while clients
 * read and write on kept-alive connections. `/readyz` fails at once, requests are served through
 * the drain with `Connection: close`, every request the service received is answered (2xx, or the
 * contract's 503 with Retry-After), exactly the acknowledged writes are stored, npm and the service
 * exit 0 and nothing is left running, also when the reader of its standard output has gone.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Organization } from '../server/platform/database/entities.ts';
import { openDatabase } from '../server/platform/database/orm.ts';
import { MAX_PARAM_LENGTH } from '../server/http/error-body.ts';
import { describeOnEachDatabase, type TestDatabase } from './support/databases.ts';
import { OwnMariadb } from './support/mariadb-instance.ts';
import { failWithout, ownMariadbMissing } from './support/needs.ts';
import { isRunning, spawnService, type ServiceProcess } from './support/process.ts';
import { LOADED_MACHINE_SLACK_MS } from './support/timing.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

const WORKERS = 8;
/** Long enough that every worker, however slow the shared machine, is answered during the drain. */
const DRAIN_MS = 3000;

interface Outcome {
  requestId: string;
  method: string;
  /** Sent after the client had seen /readyz answer 503. */
  afterNotReady: boolean;
  /** Sent on a kept-alive socket that had carried an earlier answer. */
  reusedSocket: boolean;
  status?: number;
  headers?: IncomingHttpHeaders;
  body?: any;
  errorCode?: string;
}

/** A request through node:http, whose Agent shows whether a socket was reused and how it ended. */
function open(baseUrl: string, agent: Agent | false, method: string, path: string, headers: Record<string, string>) {
  const requestId = randomUUID();
  const request = httpRequest(`${baseUrl}${path}`, {
    method,
    agent,
    headers: { ...headers, 'x-request-id': requestId, 'content-type': 'application/json' },
  });
  const answer = new Promise<Omit<Outcome, 'afterNotReady'>>((resolve) => {
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({
          requestId,
          method,
          reusedSocket: request.reusedSocket,
          status: response.statusCode,
          headers: response.headers,
          body: text ? JSON.parse(text) : undefined,
        }),
      );
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ requestId, method, reusedSocket: request.reusedSocket, errorCode: error.code ?? error.message }),
    );
  });
  return { request, answer };
}

/** The request sent whole, for its answer. */
function send(
  baseUrl: string,
  agent: Agent | false,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: object,
): Promise<Omit<Outcome, 'afterNotReady'>> {
  const { request, answer } = open(baseUrl, agent, method, path, headers);
  request.end(body === undefined ? undefined : JSON.stringify(body));
  return answer;
}

/**
 * A PUT whose head the service has received (it answered `100 Continue`) and whose body is held
 * back: a request under way for as long as the caller likes. Returns what sends the body.
 */
async function holdBody(baseUrl: string, agent: Agent, path: string, headers: Record<string, string>, body: object) {
  const text = JSON.stringify(body);
  const { request, answer } = open(baseUrl, agent, 'PUT', path, {
    ...headers,
    expect: '100-continue',
    'content-length': String(Buffer.byteLength(text)),
  });
  request.flushHeaders();
  await once(request, 'continue');
  return () => {
    request.end(text);
    return answer;
  };
}

async function startOwner(baseUrl: string, email: string, subject = 'shutdown-owner') {
  const token = await tokenFor(subject, { role: 'owner' });
  const headers = { authorization: `Bearer ${token}` };
  const created = await send(baseUrl, false, 'POST', '/users', headers, {
    first_name: 'Shut',
    last_name: 'Down',
    email,
  });
  expect(created.status).toBe(201);
  return headers;
}

async function storedOrganizationIds(database: TestDatabase): Promise<string[]> {
  const orm = await openDatabase(database.url);
  try {
    const stored = await orm.em.fork().find(Organization, {}, { fields: ['id'] });
    return stored.map((organization) => organization.id).sort();
  } finally {
    await orm.close();
  }
}

const isContractRefusal = (outcome: Outcome) =>
  outcome.status === 503 &&
  outcome.headers?.['retry-after'] !== undefined &&
  outcome.body?.code === 'SERVICE_UNAVAILABLE' &&
  typeof outcome.body?.message === 'string';

/** One request of each way to an answer: routes, their errors, Fastify's own answers, health. */
const EVERY_KIND_OF_ANSWER: {
  name: string;
  method: string;
  path: string;
  body?: object;
  anonymous?: true;
  status: number;
}[] = [
  { name: 'REST read', method: 'GET', path: '/users', status: 200 },
  {
    name: 'REST write',
    method: 'POST',
    path: '/organizations',
    body: { organization_name: 'after the signal', organization_description: '' },
    status: 201,
  },
  { name: 'REST invalid body', method: 'POST', path: '/organizations', body: {}, status: 400 },
  { name: 'no token', method: 'GET', path: '/users', anonymous: true, status: 401 },
  { name: 'tRPC query', method: 'GET', path: '/trpc/users.me', status: 200 },
  { name: 'tRPC unknown procedure', method: 'GET', path: '/trpc/users.nothing', status: 404 },
  { name: 'unknown path', method: 'GET', path: '/nowhere', status: 404 },
  { name: 'method not served', method: 'DELETE', path: '/healthz', status: 405 },
  { name: 'readiness', method: 'GET', path: '/readyz', status: 503 },
  { name: 'liveness', method: 'GET', path: '/healthz', status: 200 },
  { name: 'OpenAPI document', method: 'GET', path: '/openapi.json', status: 200 },
  // Answered by Fastify while routing, before any hook runs.
  { name: 'malformed escape', method: 'GET', path: '/organization-user/%zz', status: 400 },
  {
    name: 'path parameter too long',
    method: 'GET',
    path: `/organization-user/${'a'.repeat(MAX_PARAM_LENGTH + 1)}`,
    status: 414,
  },
];

/**
 * The service as `npm start` runs it, draining for DRAIN_MS on SIGTERM. No rate limit: the clients
 * send more in the drain than one caller's default share.
 */
const startDraining = (databaseUrl: string) =>
  spawnService(
    { DATABASE_URL: databaseUrl, JWT_SECRET: TEST_SECRET, SHUTDOWN_DRAIN_MS: String(DRAIN_MS), RATE_LIMIT_MAX: '0' },
    { npmStart: true },
  );

describeOnEachDatabase('stopping through npm start', (target) => {
  it('says Connection: close on every answer after the signal: under way at it or sent after, of every kind', async () => {
    const database = await target.create();
    let service: ServiceProcess | undefined;
    try {
      service = await startDraining(database.url);
      const { baseUrl } = service;
      const headers = await startOwner(baseUrl, 'close@example.com');
      const agent = new Agent({ keepAlive: true, maxSockets: 16 });
      // Kept-alive connections, opened before the signal: then answers let them stay open.
      const before = await Promise.all(Array.from({ length: 16 }, () => send(baseUrl, agent, 'GET', '/healthz', {})));
      expect(before.map((outcome) => [outcome.status, outcome.headers?.connection])).toEqual(
        before.map(() => [200, 'keep-alive']),
      );
      // Under way at the signal, answered after it.
      const held = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          holdBody(baseUrl, agent, '/users', headers, { first_name: `Held ${index}` }),
        ),
      );

      service.child.kill('SIGTERM');
      // The service has taken the signal once readiness fails; the drain leaves time for the rest.
      while ((await send(baseUrl, false, 'GET', '/readyz', {})).status !== 503) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Each kind twice: more requests at once than there are kept-alive connections.
      const [heldAnswers, answers] = await Promise.all([
        Promise.all(held.map((sendBody) => sendBody())),
        Promise.all(
          [...EVERY_KIND_OF_ANSWER, ...EVERY_KIND_OF_ANSWER].map(async (kind) => {
            const outcome = await send(
              baseUrl,
              agent,
              kind.method,
              kind.path,
              kind.anonymous ? {} : headers,
              kind.body,
            );
            return {
              kind: kind.name,
              expected: kind.status,
              status: outcome.status,
              connection: outcome.headers?.connection,
            };
          }),
        ),
      ]);
      agent.destroy();
      expect(await service.exited).toBe(0);

      expect(heldAnswers.map((outcome) => [outcome.status, outcome.headers?.connection])).toEqual(
        held.map(() => [200, 'close']),
      );
      expect(answers.filter((answer) => answer.status !== answer.expected)).toEqual([]);
      expect(answers.filter((answer) => answer.connection !== 'close')).toEqual([]);
    } finally {
      service?.kill();
      await database.drop();
    }
  });

  it('drains under keep-alive load: not ready at once, every received request answered, exit 0', async () => {
    const database = await target.create();
    let service: ServiceProcess | undefined;
    try {
      service = await startDraining(database.url);
      const { baseUrl } = service;
      const headers = await startOwner(baseUrl, 'drain@example.com');
      const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });

      const outcomes: Outcome[] = [];
      let notReady = false;
      const worker = async (index: number) => {
        for (let round = 0; ; round++) {
          const afterNotReady = notReady;
          const write = (index + round) % 2 === 0;
          const outcome = write
            ? await send(baseUrl, agent, 'POST', '/organizations', headers, {
                organization_name: `org ${index}.${round}`,
                organization_description: '',
              })
            : await send(baseUrl, agent, 'GET', '/users', headers);
          outcomes.push({ ...outcome, afterNotReady });
          // The listener is gone, or the service refused: this client would go to another instance.
          if (outcome.errorCode || outcome.status === 503) return;
        }
      };
      const readiness: { status?: number; body?: any; errorCode?: string }[] = [];
      let polling = true;
      const pollReadiness = async () => {
        while (polling) {
          const answer = await send(baseUrl, false, 'GET', '/readyz', {});
          readiness.push(answer);
          if (answer.status === 503) notReady = true;
          if (answer.errorCode) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };

      const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));
      const poller = pollReadiness();
      while (outcomes.filter((outcome) => outcome.status === 201).length < 20) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      service.child.kill('SIGTERM'); // to npm, as a supervisor or container runtime does
      expect(await service.exited).toBe(0);
      await Promise.all(workers);
      polling = false;
      await poller;
      agent.destroy();
      expect(isRunning(service.pid)).toBe(false);

      // Readiness: 200 until the signal, then the contract's 503, then the listener is gone.
      const statuses = readiness.map((answer) => answer.status ?? answer.errorCode);
      const firstNotReady = statuses.indexOf(503);
      expect(firstNotReady).toBeGreaterThan(0);
      expect(statuses.slice(0, firstNotReady).every((status) => status === 200)).toBe(true);
      expect(statuses.slice(firstNotReady).includes(200)).toBe(false);
      expect(readiness[firstNotReady]!.body).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });

      // Every answer is a success or the contract's refusal; never Fastify's own 503, never a 500.
      const answered = outcomes.filter((outcome) => outcome.status !== undefined);
      const neither = answered.filter((outcome) => outcome.status! >= 300 && !isContractRefusal(outcome));
      expect(neither).toEqual([]);
      // The drain serves: requests sent once /readyz had failed were still carried out...
      const servedWhileDraining = answered.filter((outcome) => outcome.afterNotReady && outcome.status! < 300);
      expect(servedWhileDraining.length).toBeGreaterThan(0);
      // ...and told their clients to go: every answer to them says Connection: close.
      const keptOpen = answered.filter((outcome) => outcome.afterNotReady && outcome.headers!.connection !== 'close');
      expect(keptOpen).toEqual([]);

      // No request that reached the service went unanswered. A kept-alive socket never fails; a
      // fresh one may find the listener closed (refused, or reset by the kernel while it was still
      // waiting to be accepted): the service never saw that request, and has no log line for it.
      const failed = outcomes.filter((outcome) => outcome.errorCode !== undefined);
      expect(failed.filter((outcome) => outcome.reusedSocket)).toEqual([]);
      for (const outcome of failed) {
        expect(['ECONNREFUSED', 'ECONNRESET']).toContain(outcome.errorCode);
        expect(service.lines.some((line) => line.includes(outcome.requestId))).toBe(false);
      }

      // Exactly the acknowledged writes are stored.
      const acknowledged = answered
        .filter((outcome) => outcome.status === 201)
        .map((outcome) => outcome.body.organization_id as string);
      expect(await storedOrganizationIds(database)).toEqual(acknowledged.sort());
    } finally {
      service?.kill();
      await database.drop();
    }
  });

  it('without a drain, finishes the writes under way and keeps exactly the acknowledged ones', async () => {
    const database = await target.create();
    let service: ServiceProcess | undefined;
    try {
      service = await spawnService(
        { DATABASE_URL: database.url, JWT_SECRET: TEST_SECRET, RATE_LIMIT_MAX: '0' },
        { npmStart: true },
      );
      const { baseUrl } = service;
      const headers = await startOwner(baseUrl, 'nodrain@example.com');
      const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
      const outcomes: Omit<Outcome, 'afterNotReady'>[] = [];
      const worker = async (index: number) => {
        for (let round = 0; ; round++) {
          const outcome = await send(baseUrl, agent, 'POST', '/organizations', headers, {
            organization_name: `org ${index}.${round}`,
            organization_description: '',
          });
          outcomes.push(outcome);
          if (outcome.status !== 201) return;
        }
      };
      const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));
      while (outcomes.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      await Promise.all(workers);
      agent.destroy();

      const refusals = outcomes.filter((outcome) => outcome.status !== undefined && outcome.status !== 201);
      expect(refusals.filter((outcome) => !isContractRefusal({ ...outcome, afterNotReady: true }))).toEqual([]);
      const acknowledged = outcomes
        .filter((outcome) => outcome.status === 201)
        .map((outcome) => outcome.body.organization_id as string);
      expect(acknowledged.length).toBeGreaterThanOrEqual(20);
      expect(await storedOrganizationIds(database)).toEqual(acknowledged.sort());
    } finally {
      service?.kill();
      await database.drop();
    }
  });
});

/** Reads from a raw socket until `done` says the collected text is complete. */
function readUntil(socket: Socket, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (done(text)) {
        socket.off('data', onData);
        resolve(text);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => resolve(text));
  });
}

const completeResponse = (text: string) => {
  const [head, body = ''] = text.split('\r\n\r\n');
  const length = /content-length: (\d+)/i.exec(head ?? '');
  return length !== null && Buffer.byteLength(body) >= Number(length[1]);
};

it('refuses a request that arrives on an open socket after the listener closed: 503, Retry-After, contract body', async () => {
  const service = await spawnService({ DATABASE_URL: ':memory:', JWT_SECRET: TEST_SECRET });
  onTestFinished(() => service.kill());
  const { baseUrl } = service;
  const { port } = new URL(baseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  expect(await readUntil(socket, completeResponse)).toMatch(/^HTTP\/1\.1 200/);
  // The next request has begun on the kept-alive socket (so it is not idle) but is not complete.
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');

  service.child.kill('SIGTERM');
  for (;;) {
    const refused = await send(baseUrl, false, 'GET', '/healthz', {});
    if (refused.errorCode === 'ECONNREFUSED') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  socket.write('\r\n');
  const response = await readUntil(socket, completeResponse);
  const [head, body] = response.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 503/);
  expect(head).toMatch(/\r\nretry-after: \d+/i);
  expect(head).toMatch(/\r\nconnection: close/i);
  expect(JSON.parse(body!)).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
  expect(await service.exited).toBe(0);
});

it('stops on SIGTERM after the reader of its standard output has gone: exit 0, no broken-pipe error', async () => {
  const service = await spawnService({ DATABASE_URL: ':memory:', JWT_SECRET: TEST_SECRET });
  onTestFinished(() => service.kill());
  // The service's next log line, the stop's, meets a pipe with no reader (EPIPE). It used to hang
  // in the log stream's synchronous flush at exit, retrying the write every 100 ms for ever.
  service.child.stdout!.destroy();
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  expect(service.stderr()).toBe('');
});

it("stops within its bound when the trace collector takes the spans' connection and never answers: exit 0, a warn line", async () => {
  // A collector that accepts connections and reads nothing back: the OTLP exporter's own time-out
  // (10 s) would outlast SHUTDOWN_TIMEOUT_MS below (docs/operations.md, "Stopping").
  const collector = createServer((socket) => socket.on('error', () => {}));
  collector.listen(0, '127.0.0.1');
  await once(collector, 'listening');
  onTestFinished(() => void collector.close());
  const { port } = collector.address() as AddressInfo;
  const service = await spawnService({
    DATABASE_URL: ':memory:',
    JWT_SECRET: TEST_SECRET,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    DB_TIMEOUT_MS: '1000',
    SHUTDOWN_TIMEOUT_MS: '6000',
  });
  onTestFinished(() => service.kill());
  // A span waits in its batch until the stop sends it.
  expect((await send(service.baseUrl, false, 'GET', '/healthz', {})).status).toBe(200);
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  expect(service.entries()).toContainEqual(
    expect.objectContaining({ level: 40, job: 'tracing', msg: expect.stringMatching(/^stopping: left/) }),
  );
});

it('ends at its close a connection that has sent nothing yet (a preconnect): exit 0, well before the socket time-out', async () => {
  // Node's close ends idle kept-alive connections, not one that never sent a byte: it held the
  // stop until the socket's time-out (REQUEST_TIMEOUT_MS doubled, 30 s), past SHUTDOWN_TIMEOUT_MS.
  const SHUTDOWN_TIMEOUT_MS = 10_000;
  const service = await spawnService({
    DATABASE_URL: ':memory:',
    JWT_SECRET: TEST_SECRET,
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
  onTestFinished(() => service.kill());
  const silent = connect(Number(new URL(service.baseUrl).port), '127.0.0.1');
  silent.on('error', () => {});
  onTestFinished(() => void silent.destroy());
  await once(silent, 'connect');
  const closed = once(silent, 'close');

  const signalled = performance.now();
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  expect(performance.now() - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_MS / 2);
  await closed;
});

it('stops at once with scrapers connected to the metrics listener, between two scrapes, halfway through a request or silent: exit 0', async () => {
  // The metrics listener has no time-outs of its own: a socket its close did not end would hold the
  // stop until SHUTDOWN_TIMEOUT_MS exits 1 (behaviour §10). Node's close ends the idle one between
  // scrapes by itself, not the other two.
  const SHUTDOWN_TIMEOUT_MS = 10_000;
  const service = await spawnService({
    DATABASE_URL: ':memory:',
    JWT_SECRET: TEST_SECRET,
    METRICS_PORT: '0',
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
  onTestFinished(() => service.kill());
  const metricsUrl = new URL(service.entries().find((entry) => entry.metrics)!.metrics);
  const [betweenScrapes, halfway, silent] = await Promise.all(
    [1, 2, 3].map(async () => {
      const socket = connect(Number(metricsUrl.port), '127.0.0.1');
      socket.on('error', () => {});
      onTestFinished(() => void socket.destroy());
      await once(socket, 'connect');
      return socket;
    }),
  );
  betweenScrapes!.write(`GET /metrics HTTP/1.1\r\nHost: ${metricsUrl.host}\r\n\r\n`);
  expect(await readUntil(betweenScrapes!, completeResponse)).toMatch(/^HTTP\/1\.1 200/);
  halfway!.write(`GET /metrics HTTP/1.1\r\nHost: ${metricsUrl.host}\r\n`);
  const closed = [betweenScrapes, halfway, silent].map((socket) => once(socket!, 'close'));

  const signalled = performance.now();
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  expect(performance.now() - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_MS / 2);
  await Promise.all(closed);
});

describe('stopping while the database is frozen', () => {
  failWithout(ownMariadbMissing());
  const database = new OwnMariadb();
  const DB_TIMEOUT_MS = 1500;
  /**
   * The longest a stop may take (docs/operations.md, "Stopping"): the requests under way end at
   * their processing limit while the background jobs stop, the webhook attempts given 2 s, then the
   * pool ends without waiting for the database more than DB_TIMEOUT_MS.
   */
  const STOPPED_WITHIN_MS = Math.max(DB_TIMEOUT_MS + 200, 2000) + DB_TIMEOUT_MS + LOADED_MACHINE_SLACK_MS;
  beforeAll(() => database.start(), 60_000);
  afterAll(() => database.destroy());

  /** The service as `npm start` runs it on the database, with `env` added; killed after the test. */
  const startThroughNpm = async (env: Record<string, string> = {}) => {
    const service = await spawnService(
      {
        DATABASE_URL: database.url,
        JWT_SECRET: TEST_SECRET,
        RATE_LIMIT_MAX: '0',
        DB_TIMEOUT_MS: String(DB_TIMEOUT_MS),
        ...env,
      },
      { npmStart: true },
    );
    onTestFinished(() => service.kill());
    return service;
  };

  // npm start builds the bundle first; a stop that waits for the database ends at SHUTDOWN_TIMEOUT_MS (15 s).
  it(
    'answers the requests under way with 503, closes without the database and exits 0, within its bound',
    {
      timeout: 90_000,
    },
    async () => {
      const service = await startThroughNpm();
      const headers = await startOwner(service.baseUrl, 'frozen@example.com');
      // A frozen server keeps its connections open and answers nothing: the pool's connections are
      // left with statements the database will never answer while the service stops.
      database.freeze();
      onTestFinished(() => database.thaw());
      const underWay = Array.from({ length: 8 }, (_, index) =>
        index % 2 === 0
          ? send(service.baseUrl, false, 'GET', '/users', headers)
          : send(service.baseUrl, false, 'POST', '/organizations', headers, {
              organization_name: `frozen ${index}`,
              organization_description: '',
            }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const signalled = performance.now();
      service.child.kill('SIGTERM'); // to npm, as a supervisor does
      const code = await service.exited;
      const stoppedAfterMs = performance.now() - signalled;

      for (const answer of await Promise.all(underWay)) {
        expect(isContractRefusal({ ...answer, afterNotReady: false }), JSON.stringify(answer)).toBe(true);
      }
      // Not the forced exit of SHUTDOWN_TIMEOUT_MS (1).
      expect(code).toBe(0);
      expect(stoppedAfterMs).toBeLessThan(STOPPED_WITHIN_MS);
    },
  );

  it(
    'leaves the expiry sweep and the webhook delivery pass stuck on it, says so, and exits 0 within its bound',
    { timeout: 90_000 },
    async () => {
      const service = await startThroughNpm({ EXPIRY_SWEEP_INTERVAL_MS: '100', WEBHOOK_POLL_INTERVAL_MS: '50' });
      // Its own person: the database is the one the test above used.
      const headers = await startOwner(service.baseUrl, 'frozen-jobs@example.com', 'frozen-jobs-owner');
      // Requests at once open more of the pool's connections: kept idle, each background job then
      // finds one and sends its statement on it, where a new connection would wait for its handshake.
      await Promise.all(Array.from({ length: 6 }, () => send(service.baseUrl, false, 'GET', '/users', headers)));
      database.freeze();
      onTestFinished(() => database.thaw());
      // Several sweeps' and polls' time: by then a sweep and a delivery pass wait on the frozen database.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const signalled = performance.now();
      service.child.kill('SIGTERM');
      const code = await service.exited;
      const stoppedAfterMs = performance.now() - signalled;

      // Not the forced exit of SHUTDOWN_TIMEOUT_MS (1), which a stop waiting for the jobs came to.
      expect(code).toBe(0);
      expect(stoppedAfterMs).toBeLessThan(STOPPED_WITHIN_MS);
      const abandoned = service
        .entries()
        .filter((entry) => entry.level === 40 && String(entry.msg).startsWith('stopping: '))
        .map((entry) => entry.job as string);
      expect(abandoned.sort()).toEqual(['expiry sweep', 'webhook delivery']);
    },
  );
});
