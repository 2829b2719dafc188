/**
 * Every setting of the table in docs/configuration.md works under `npm start`, the bundle of
 * server/build.ts, as it does from the sources: for each one a test starts the bundle with it and
 * shows its effect. The table PROOFS names those tests, and its check at the end fails when
 * docs/configuration.md has a setting no bundle test covers, so that a new setting cannot go
 * untested.
 *
 * Four processes show most of them, several settings each, every one on a database of its own and
 * on loopback only; a few are shown by the tests of other files that start the bundle.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, type RunnerTask } from 'vitest';
import { createClient } from '../client/src/index.ts';
import type { Database } from '../server/platform/database/schema.ts';
import { migrate, openDatabase, type Orm } from '../server/platform/database/orm.ts';
import { spawnQuietService, statusOf, type QuietService } from './support/bundle-processes.ts';
import { databaseTargets, type DatabaseTarget, type TestDatabase } from './support/databases.ts';
import { failWithout } from './support/needs.ts';
import { writeEvents } from './support/events.ts';
import { uniqueId } from './support/fixtures.ts';
import { settingRows } from './support/markdown.ts';
import { freePorts } from './support/ports.ts';
import { projectRoot, spawnService, type ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { oktaUser, scimClient } from './support/scim.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

/**
 * For each setting of the table in docs/configuration.md, the tests that start the bundle with it and show its
 * effect: tests of this file by their title, tests of other files as `file › title`.
 */
const PROOFS: Record<string, string[]> = {
  NODE_ENV: ['tests/startup.test.ts › refuses to start in production without a token key, and says what to set'],
  PORT: ['listens on PORT at HOST, and nowhere else'],
  HOST: ['listens on PORT at HOST, and nowhere else'],
  PUBLIC_URL: [
    "forms SCIM's URLs from PUBLIC_URL, whatever Host header a request carries",
    'tests/startup.test.ts › refuses PUBLIC_URL=%s in one line',
    'tests/console-public-url.test.ts › loads its files and calls the service under the path of PUBLIC_URL, and shows the SCIM base URL under PUBLIC_URL',
  ],
  TRUST_PROXY: [
    'counts a caller without a token by the address X-Forwarded-For gives, from a proxy TRUST_PROXY names',
    'tests/startup.test.ts › refuses TRUST_PROXY=%s in one line',
    'tests/protection.test.ts › counts a caller without a token by the connection, whatever X-Forwarded-For says',
  ],
  DATABASE_URL: [
    'keeps its data in the DATABASE_URL file, and verifies tokens with the development secret it made in DATA_DIR',
    'keeps its data in memory with DATABASE_URL=:memory:',
    'applies no migration at start with MIGRATE_ON_START=false, and serves from the DATABASE_URL database once it is migrated',
    'tests/startup.test.ts › a database that does not exist (MIGRATE_ON_START=%s), which stays so',
  ],
  MIGRATE_ON_START: [
    'applies no migration at start with MIGRATE_ON_START=false, and serves from the DATABASE_URL database once it is migrated',
  ],
  DB_POOL_SIZE: ['serves metrics at METRICS_HOST:METRICS_PORT, showing a pool of DB_POOL_SIZE connections'],
  DB_TIMEOUT_MS: ['answers 503 when a row lock is not released within DB_TIMEOUT_MS'],
  JWT_SECRET: [
    'verifies HS256 tokens with JWT_SECRET and ES256 ones from JWT_JWKS_URL, with JWT_ISSUER and JWT_AUDIENCE',
  ],
  JWT_JWKS_URL: [
    'verifies HS256 tokens with JWT_SECRET and ES256 ones from JWT_JWKS_URL, with JWT_ISSUER and JWT_AUDIENCE',
  ],
  JWT_JWKS_COOLDOWN_MS: ['fetches the JWKS again for an unknown kid only JWT_JWKS_COOLDOWN_MS after the last fetch'],
  JWT_PUBLIC_KEY: ['verifies EdDSA tokens with JWT_PUBLIC_KEY, given on one line with \\n escapes'],
  JWT_ISSUER: [
    'verifies HS256 tokens with JWT_SECRET and ES256 ones from JWT_JWKS_URL, with JWT_ISSUER and JWT_AUDIENCE',
  ],
  JWT_AUDIENCE: [
    'verifies HS256 tokens with JWT_SECRET and ES256 ones from JWT_JWKS_URL, with JWT_ISSUER and JWT_AUDIENCE',
  ],
  REQUIRE_CREATOR_ROLE: ['lets a caller without a token role create a user and an organization'],
  CORS_ORIGINS: ['answers CORS preflights from the CORS_ORIGINS only'],
  CONSOLE: [
    'serves no console with CONSOLE=false: /console is a 404 like any unknown path',
    'tests/console.test.ts › serves the console from the bundle by default, under its Content-Security-Policy',
  ],
  RATE_LIMIT_MAX: ['answers 429 past RATE_LIMIT_MAX requests of a caller, until RATE_LIMIT_WINDOW_MS have passed'],
  RATE_LIMIT_WINDOW_MS: [
    'answers 429 past RATE_LIMIT_MAX requests of a caller, until RATE_LIMIT_WINDOW_MS have passed',
  ],
  REDIS_URL: [
    'tests/protection.test.ts › gives a caller one limit across instances, with 429 and Retry-After from either, counted under REDIS_KEY_PREFIX',
    'tests/protection.test.ts › counts per instance until Redis answers, then across instances, per instance again while it is down, across instances once it is back',
  ],
  REDIS_KEY_PREFIX: [
    'tests/protection.test.ts › gives a caller one limit across instances, with 429 and Retry-After from either, counted under REDIS_KEY_PREFIX',
  ],
  REQUEST_TIMEOUT_MS: ['cuts off a client that has not sent its whole request within REQUEST_TIMEOUT_MS'],
  MAX_CONNECTIONS: ['holds at most MAX_CONNECTIONS connections open'],
  SHUTDOWN_DRAIN_MS: [
    'on SIGTERM, serves for SHUTDOWN_DRAIN_MS while /readyz fails, and exits 1 at SHUTDOWN_TIMEOUT_MS while a request holds the stop',
    'tests/shutdown.test.ts › drains under keep-alive load: not ready at once, every received request answered, exit 0',
  ],
  SHUTDOWN_TIMEOUT_MS: [
    'on SIGTERM, serves for SHUTDOWN_DRAIN_MS while /readyz fails, and exits 1 at SHUTDOWN_TIMEOUT_MS while a request holds the stop',
  ],
  EVENTS_POLL_INTERVAL_MS: ['looks for new audit events every EVENTS_POLL_INTERVAL_MS'],
  EVENTS_SUBSCRIBER_BACKLOG: [
    'keeps the stream of a subscriber that reads nothing while fewer than EVENTS_SUBSCRIBER_BACKLOG events wait for it',
  ],
  INVITATION_TTL_HOURS: ['makes invitations that expire INVITATION_TTL_HOURS after they are made'],
  METRICS_PORT: [
    'serves metrics at METRICS_HOST:METRICS_PORT, showing a pool of DB_POOL_SIZE connections',
    'tests/startup.test.ts › a metrics port in use',
  ],
  METRICS_HOST: ['serves metrics at METRICS_HOST:METRICS_PORT, showing a pool of DB_POOL_SIZE connections'],
  LOG_LEVEL: ['logged only what is at LOG_LEVEL or above'],
  ROLES_FILE: [
    "answers the check of ROLES_FILE's application permissions as its grants and instance roles say",
    'tests/startup.test.ts › a file that does not exist: one line naming ROLES_FILE and the path',
  ],
  DATA_DIR: [
    'keeps its data in the DATABASE_URL file, and verifies tokens with the development secret it made in DATA_DIR',
    'tests/startup.test.ts › for the development secret (DATA_DIR)',
  ],
  WEBHOOK_TIMEOUT_MS: [
    'tests/webhooks-instances.test.ts › gives up an attempt the receiver does not answer within WEBHOOK_TIMEOUT_MS',
  ],
  WEBHOOK_RETRY_SCHEDULE: [
    'tests/webhooks-instances.test.ts › spaces the attempts of a failing delivery by WEBHOOK_RETRY_SCHEDULE, and fails it after the last',
  ],
  WEBHOOK_DISABLE_AFTER_HOURS: [
    'tests/webhooks-instances.test.ts › disables an endpoint whose every attempt has failed for WEBHOOK_DISABLE_AFTER_HOURS',
  ],
  WEBHOOK_LEASE_MS: [
    'tests/webhooks-instances.test.ts › takes over the attempts of an instance killed with SIGKILL once their WEBHOOK_LEASE_MS claims lapse',
  ],
  WEBHOOK_CONCURRENCY: [
    'tests/webhooks-instances.test.ts › makes at most WEBHOOK_CONCURRENCY attempts at once over all endpoints, at most half of them for one organization: one with 1, several with 4',
  ],
  WEBHOOK_POLL_INTERVAL_MS: [
    'tests/webhooks-instances.test.ts › looks for committed events to deliver every WEBHOOK_POLL_INTERVAL_MS',
  ],
  DNS_SERVERS: [
    'tests/domains.test.ts › verifies a domain by the TXT record the DNS_SERVERS resolver answers, and answers 503 when it is silent past DNS_TIMEOUT_MS',
  ],
  DNS_TIMEOUT_MS: [
    'tests/domains.test.ts › verifies a domain by the TXT record the DNS_SERVERS resolver answers, and answers 503 when it is silent past DNS_TIMEOUT_MS',
  ],
  WEBHOOK_ALLOW_HTTP: [
    'tests/webhooks-instances.test.ts › refuses http:// endpoint URLs unless WEBHOOK_ALLOW_HTTP=true, and loopback ones unless WEBHOOK_ALLOW_PRIVATE=true',
  ],
  WEBHOOK_ALLOW_PRIVATE: [
    'tests/webhooks-instances.test.ts › refuses http:// endpoint URLs unless WEBHOOK_ALLOW_HTTP=true, and loopback ones unless WEBHOOK_ALLOW_PRIVATE=true',
  ],
  OTEL_EXPORTER_OTLP_ENDPOINT: [
    'tests/tracing.test.ts › continues an incoming traceparent: request → procedure → statements, with the route, status and organization',
    'tests/tracing.test.ts › sends protobuf by default (OTEL_EXPORTER_OTLP_PROTOCOL unset), named by OTEL_SERVICE_NAME',
  ],
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: [
    'tests/tracing.test.ts › sends to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is given, before OTEL_EXPORTER_OTLP_ENDPOINT',
  ],
  OTEL_SDK_DISABLED: ['tests/tracing.test.ts › traces nothing with OTEL_SDK_DISABLED=true, whatever the endpoint'],
  OTEL_EXPORTER_OTLP_PROTOCOL: [
    'tests/tracing.test.ts › continues an incoming traceparent: request → procedure → statements, with the route, status and organization',
    'tests/tracing.test.ts › sends protobuf by default (OTEL_EXPORTER_OTLP_PROTOCOL unset), named by OTEL_SERVICE_NAME',
  ],
  OTEL_SERVICE_NAME: [
    'tests/tracing.test.ts › sends protobuf by default (OTEL_EXPORTER_OTLP_PROTOCOL unset), named by OTEL_SERVICE_NAME',
  ],
  OTEL_RESOURCE_ATTRIBUTES: [
    'tests/tracing.test.ts › describes the service by OTEL_SERVICE_NAME, its version and OTEL_RESOURCE_ATTRIBUTES',
  ],
  OTEL_TRACES_SAMPLER: [
    'tests/tracing.test.ts › keeps no trace with OTEL_TRACES_SAMPLER=always_off, and still logs the trace id of each request',
  ],
  OTEL_TRACES_SAMPLER_ARG: [
    'tests/tracing.test.ts › keeps about the OTEL_TRACES_SAMPLER_ARG share of traces with traceidratio, the logged ones',
  ],
  OTEL_BSP_SCHEDULE_DELAY: [
    'tests/tracing.test.ts › sends ended spans within OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_EXPORT_BATCH_SIZE at most a batch',
  ],
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: [
    'tests/tracing.test.ts › sends ended spans within OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_EXPORT_BATCH_SIZE at most a batch',
    'tests/startup.test.ts › refuses trace batches larger than the queue they are taken from',
  ],
  OTEL_BSP_MAX_QUEUE_SIZE: [
    'tests/tracing.test.ts › keeps at most OTEL_BSP_MAX_QUEUE_SIZE spans waiting while a batch is under way, and drops the rest',
  ],
  OTEL_BSP_EXPORT_TIMEOUT: [
    'tests/tracing.test.ts › gives a batch up after OTEL_BSP_EXPORT_TIMEOUT and sends the next',
  ],
};

const [embedded, mariadb] = databaseTargets() as [DatabaseTarget, DatabaseTarget];

/** A loopback address other than 127.0.0.1 (all of 127.0.0.0/8 is loopback on Linux): where HOST and METRICS_HOST bind. */
const OTHER_LOOPBACK = '127.0.0.2';

/** The settings this file has started the bundle with: a test can prove only a setting it was given. */
const given = new Set<string>();

function startBundle(env: Record<string, string>): Promise<ServiceProcess> {
  for (const name of Object.keys(env)) given.add(name);
  return spawnService(env);
}

function startQuietBundle(env: Record<string, string> & { HOST: string; PORT: string }): Promise<QuietService> {
  for (const name of Object.keys(env)) given.add(name);
  return spawnQuietService(env);
}

const startLineOf = (service: ServiceProcess) => service.entries().find((entry) => Array.isArray(entry.address))!;

/** Waits for `done` to hold, checking every 50 ms for at most `ms`; whether it held. */
async function eventually(done: () => boolean, ms: number): Promise<boolean> {
  for (const deadline = performance.now() + ms; !done() && performance.now() < deadline;) await sleep(50);
  return done();
}

/** GET /organizations answers 200 to any caller whose token verifies. */
const organizationsStatus = async (baseUrl: string, token: string) =>
  (await restCall(baseUrl, 'GET', '/organizations', token)).status;

async function createUserAndOrganization(baseUrl: string, id: string, token: string): Promise<string> {
  const user = await restCall(baseUrl, 'POST', '/users', token, {
    first_name: 'Set',
    last_name: 'Tings',
    email: `${id}@example.com`,
  });
  expect(user.status).toBe(201);
  const organization = await restCall(baseUrl, 'POST', '/organizations', token, {
    organization_name: `Organization of ${id}`,
    organization_description: '',
  });
  expect(organization.status).toBe(201);
  return organization.body.organization_id;
}

/**
 * A request whose headers never end, which Node keeps until REQUEST_TIMEOUT_MS, on a connection the
 * service took: one over MAX_CONNECTIONS is closed at once, and one just closed may still count.
 */
async function unfinishedRequest(baseUrl: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  for (let attempt = 0; attempt < 20; attempt++) {
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nX-Slow: `);
    // A reset (the connection refused under MAX_CONNECTIONS) rejects `once`: dropped too.
    const closed = once(socket, 'close').then(
      () => true,
      () => true,
    );
    const dropped = await Promise.race([closed, sleep(200).then(() => false)]);
    if (!dropped) return socket;
  }
  throw new Error(`${baseUrl} closed every connection at once`);
}

describe('the bundle on an embedded database file, with the development secret', () => {
  const allowedOrigin = 'https://app.example.test';
  const publicUrl = 'https://orgs.example.test/directory';
  let database: TestDatabase;
  let dataDir: string;
  let service: ServiceProcess;
  beforeAll(async () => {
    database = await embedded.create();
    // Beside the database file, in a folder the start makes.
    dataDir = join(dirname(database.url.slice('file:'.length)), 'data');
    service = await startBundle({
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      REQUIRE_CREATOR_ROLE: 'false',
      CORS_ORIGINS: `${allowedOrigin}, https://admin.example.test`,
      PUBLIC_URL: `${publicUrl}/`,
      TRUST_PROXY: 'loopback',
      INVITATION_TTL_HOURS: '0.5',
      RATE_LIMIT_MAX: '4',
      RATE_LIMIT_WINDOW_MS: '2000',
      REQUEST_TIMEOUT_MS: '1000',
      CONSOLE: 'false',
    });
  });
  afterAll(async () => {
    service?.kill();
    await database?.drop();
  });

  /** A token without a role, signed with the development secret the service keeps in DATA_DIR. */
  const developmentToken = (sub: string) =>
    tokenFor(sub, { key: new TextEncoder().encode(readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim()) });

  it('keeps its data in the DATABASE_URL file, and verifies tokens with the development secret it made in DATA_DIR', async () => {
    expect(startLineOf(service).database).toBe(database.url);
    expect(existsSync(database.url.slice('file:'.length))).toBe(true);
    expect(await organizationsStatus(service.baseUrl, await developmentToken('developer'))).toBe(200);
    expect(await organizationsStatus(service.baseUrl, await tokenFor('developer'))).toBe(401);
  });

  it('lets a caller without a token role create a user and an organization', async () => {
    // Both would be 403 with the default REQUIRE_CREATOR_ROLE=true.
    await createUserAndOrganization(service.baseUrl, 'no-role', await developmentToken('no-role'));
  });

  it('makes invitations that expire INVITATION_TTL_HOURS after they are made', async () => {
    const token = await developmentToken('inviter');
    const organizationId = await createUserAndOrganization(service.baseUrl, 'inviter', token);
    const invitation = await restCall(service.baseUrl, 'POST', `/organizations/${organizationId}/invitations`, token, {
      email: 'invitee@example.com',
      role: 'member',
    });
    expect(invitation.status).toBe(201);
    const lifetimeMs = Date.parse(invitation.body.expires_at) - Date.parse(invitation.body.created_at);
    expect(lifetimeMs).toBe(0.5 * 60 * 60 * 1000);
  });

  it('serves no console with CONSOLE=false: /console is a 404 like any unknown path', async () => {
    const page = await fetch(`${service.baseUrl}/console`);
    expect(page.status).toBe(404);
    expect(await page.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await fetch(`${service.baseUrl}/console/members`)).status).toBe(404);
  });

  it('answers CORS preflights from the CORS_ORIGINS only', async () => {
    const preflight = (origin: string) =>
      fetch(`${service.baseUrl}/organization-user`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'authorization',
        },
      });
    const allowed = await preflight(allowedOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
    const refused = await preflight('https://elsewhere.example.test');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("forms SCIM's URLs from PUBLIC_URL, whatever Host header a request carries", async () => {
    const token = await developmentToken('provisioner');
    const organizationId = await createUserAndOrganization(service.baseUrl, 'provisioner', token);
    const key = await restCall(service.baseUrl, 'POST', `/organizations/${organizationId}/api-keys`, token, {
      name: 'SCIM',
      role: 'admin',
    });
    expect(key.status).toBe(201);
    const scim = scimClient(service, key.body.secret, { host: 'attacker.invalid' });
    const created = await scim.send('POST', '/Users', oktaUser('provisioned@example.com'));
    expect(created.status).toBe(201);
    expect(created.location).toBe(`${publicUrl}/scim/v2/Users/${created.body.id}`);
    const config = await scim.send('GET', '/ServiceProviderConfig');
    expect(config.body.meta.location).toBe(`${publicUrl}/scim/v2/ServiceProviderConfig`);
  });

  it('answers 429 past RATE_LIMIT_MAX requests of a caller, until RATE_LIMIT_WINDOW_MS have passed', async () => {
    const token = await developmentToken('busy');
    const statuses = [];
    for (let index = 0; index < 4; index++) statuses.push(await organizationsStatus(service.baseUrl, token));
    expect(statuses).toEqual([200, 200, 200, 200]);
    const limited = await fetch(`${service.baseUrl}/organizations`, { headers: { authorization: `Bearer ${token}` } });
    expect(limited.status).toBe(429);
    // The rest of the 2 s window, in seconds; the default window would ask for up to a minute.
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(2);
    await sleep(retryAfter * 1000 + 100);
    expect(await organizationsStatus(service.baseUrl, token)).toBe(200);
  });

  it('counts a caller without a token by the address X-Forwarded-For gives, from a proxy TRUST_PROXY names', async () => {
    // The test is the proxy, on loopback; the clients' addresses are documentation ones (RFC 5737).
    const statusFrom = async (client: string) =>
      (await fetch(`${service.baseUrl}/organizations`, { headers: { 'x-forwarded-for': client } })).status;
    const statuses = [];
    for (let index = 0; index < 5; index++) statuses.push(await statusFrom('203.0.113.7'));
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect(await statusFrom('203.0.113.8')).toBe(401);
  });

  it('cuts off a client that has not sent its whole request within REQUEST_TIMEOUT_MS', async () => {
    const sentAt = performance.now();
    const socket = await unfinishedRequest(service.baseUrl);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    // Under the default, 15 s, it would still be open at the end of this wait.
    const closed = await Promise.race([once(socket, 'close').then(() => true), sleep(8_000).then(() => false)]);
    const waitedMs = performance.now() - sentAt;
    socket.destroy();
    expect(closed).toBe(true);
    expect(waitedMs).toBeGreaterThanOrEqual(900);
    // Cut off with a 408 or, past the connection check, silently.
    expect(answer).toMatch(/^(HTTP\/1\.1 408 |$)/);
  });
});

describe('the bundle logging warnings only, on an address of its own', () => {
  const DRAIN_MS = 1000;
  const STOP_TIMEOUT_MS = 3500;
  let database: TestDatabase;
  let service: QuietService;
  let signingKey: CryptoKey;
  beforeAll(async () => {
    database = await embedded.create();
    const keys = await generateKeyPair('EdDSA', { extractable: true });
    signingKey = keys.privateKey;
    const [port, closedPort] = await freePorts(2);
    service = await startQuietBundle({
      HOST: OTHER_LOOPBACK,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      JWT_PUBLIC_KEY: (await exportSPKI(keys.publicKey)).trim().replaceAll('\n', '\\n'),
      MAX_CONNECTIONS: '2',
      // Nothing listens there: the start warns that the rate limit counts per instance.
      REDIS_URL: `redis://127.0.0.1:${closedPort}`,
      // A stop timeout must outlast the drain plus the longest a request may run (DB_TIMEOUT_MS + 200 ms).
      DB_TIMEOUT_MS: '500',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      SHUTDOWN_TIMEOUT_MS: String(STOP_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    service?.kill();
    await database?.drop();
  });

  it('listens on PORT at HOST, and nowhere else', async () => {
    expect(await statusOf(`${service.baseUrl}/healthz`)).toBe(200);
    expect(await statusOf(`http://127.0.0.1:${new URL(service.baseUrl).port}/healthz`)).toBe('ECONNREFUSED');
  });

  it('verifies EdDSA tokens with JWT_PUBLIC_KEY, given on one line with \\n escapes', async () => {
    const signed = await new SignJWT({})
      .setSubject('key-holder')
      .setProtectedHeader({ alg: 'EdDSA' })
      .setExpirationTime('5m')
      .sign(signingKey);
    const statusWith = (token: string) =>
      statusOf(`${service.baseUrl}/organizations`, { authorization: `Bearer ${token}` });
    expect(await statusWith(signed)).toBe(200);
    expect(await statusWith(await tokenFor('key-holder'))).toBe(401);
  });

  /** A connection the service took: it answered a request on it, and keeps it open (keep-alive). */
  async function answeredConnection(): Promise<Socket | undefined> {
    const { hostname, port } = new URL(service.baseUrl);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    const answered = await new Promise<boolean>((resolve) => {
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString().startsWith('HTTP/1.1 200 ')));
      socket.once('close', () => resolve(false));
      setTimeout(resolve, 5_000, false).unref();
    });
    if (answered) return socket;
    socket.destroy();
    return undefined;
  }

  it('holds at most MAX_CONNECTIONS connections open', async () => {
    const held: Socket[] = [];
    try {
      // The service may still count a connection of an earlier test for a moment.
      const takeOne = async () => {
        for (let attempt = 0; attempt < 20; attempt++) {
          const socket = await answeredConnection();
          if (socket) return held.push(socket);
          await sleep(100);
        }
      };
      await takeOne();
      await takeOne();
      expect(held).toHaveLength(2);
      // A third is closed unanswered while both are open...
      expect(await answeredConnection()).toBeUndefined();
      // ...and taken once one of them is closed.
      held.shift()!.destroy();
      await takeOne();
      expect(held).toHaveLength(2);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('on SIGTERM, serves for SHUTDOWN_DRAIN_MS while /readyz fails, and exits 1 at SHUTDOWN_TIMEOUT_MS while a request holds the stop', async () => {
    // The stop waits for a request under way, and this one would take REQUEST_TIMEOUT_MS (15 s) to end.
    const unfinished = await unfinishedRequest(service.baseUrl);
    try {
      const signalled = performance.now();
      service.child.kill('SIGTERM');
      let readiness = await statusOf(`${service.baseUrl}/readyz`);
      while (readiness === 200 && performance.now() - signalled < DRAIN_MS / 2) {
        readiness = await statusOf(`${service.baseUrl}/readyz`);
      }
      expect(readiness).toBe(503);
      expect(await statusOf(`${service.baseUrl}/healthz`)).toBe(200);
      // The listener closes once the drain is over. Between the two, a request that arrives while the
      // service closes is refused with 503 (behaviour §10): served, refused, then no listener.
      const seen = new Set<number | string>();
      let health = await statusOf(`${service.baseUrl}/healthz`);
      while (health !== 'ECONNREFUSED' && performance.now() - signalled < 5_000) {
        // A reset is no answer of the service's: a probe caught by the listener's close before it
        // was accepted, or by MAX_CONNECTIONS (2 here, one held by the unfinished request) while
        // the server still counts the previous probe's socket. Every answer is 200 or 503.
        if (health !== 'ECONNRESET') seen.add(health);
        await sleep(50);
        health = await statusOf(`${service.baseUrl}/healthz`);
      }
      expect(health).toBe('ECONNREFUSED');
      expect([...seen].filter((status) => status !== 200 && status !== 503)).toEqual([]);
      expect(performance.now() - signalled).toBeGreaterThanOrEqual(DRAIN_MS - 100);
      const code = await Promise.race([service.exited, sleep(8_000).then(() => 'still running')]);
      expect(code).toBe(1);
      expect(performance.now() - signalled).toBeGreaterThanOrEqual(STOP_TIMEOUT_MS);
    } finally {
      unfinished.destroy();
    }
  });

  it('logged only what is at LOG_LEVEL or above', () => {
    const entries = service.entries();
    // The start, every request and the stop logged at info: none of it is there. The warning that
    // Redis does not answer and the error of the timed-out stop are.
    expect(entries.filter((entry) => entry.level < 40)).toEqual([]);
    expect(entries.map((entry) => entry.level)).toEqual(expect.arrayContaining([40, 50]));
    expect(entries.at(-1)).toMatchObject({ level: 50, timeoutMs: STOP_TIMEOUT_MS });
  });
});

// docs/configuration.md: a setting set to nothing is unset, whatever its type (`PORT=` is not port 0).
describe('the bundle with settings set to nothing', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await startBundle({
      DATABASE_URL: ':memory:',
      JWT_SECRET: TEST_SECRET,
      RATE_LIMIT_MAX: '',
      RATE_LIMIT_WINDOW_MS: ' ',
      LOG_LEVEL: '',
      CONSOLE: '',
    });
  });
  afterAll(() => service?.kill());

  it('reads each as unset: the rate limit, the log level and the console are their defaults', async () => {
    const answer = await fetch(`${service.baseUrl}/organizations`, {
      headers: { authorization: `Bearer ${await tokenFor('someone')}` },
    });
    expect(answer.status).toBe(200);
    // Read as 0, RATE_LIMIT_MAX turned the rate limit off: no such header.
    expect(answer.headers.get('x-ratelimit-limit')).toBe('600');
    expect(Number(answer.headers.get('x-ratelimit-reset'))).toBeGreaterThan(50);
    expect((await fetch(`${service.baseUrl}/console`)).status).toBe(200);
    expect(service.entries().some((entry) => entry.level === 30)).toBe(true);
  });
});

describe('the bundle on MariaDB', () => {
  failWithout(mariadb.missing);
  let database: TestDatabase;
  let service: ServiceProcess;
  let metricsPort: number;
  let orm: Orm | undefined;
  beforeAll(async () => {
    database = await mariadb.create();
    [metricsPort] = (await freePorts(1)) as [number];
    service = await startBundle({
      DATABASE_URL: database.url,
      JWT_SECRET: TEST_SECRET,
      MIGRATE_ON_START: 'false',
      DB_POOL_SIZE: '7',
      DB_TIMEOUT_MS: '500',
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: OTHER_LOOPBACK,
      EVENTS_POLL_INTERVAL_MS: '50',
      EVENTS_SUBSCRIBER_BACKLOG: '50000',
      RATE_LIMIT_MAX: '0',
    });
  });
  afterAll(async () => {
    service?.kill();
    await orm?.close();
    await database?.drop();
  });

  const ownerToken = (id: string) => tokenFor(id, { role: 'owner' });

  it('applies no migration at start with MIGRATE_ON_START=false, and serves from the DATABASE_URL database once it is migrated', async () => {
    const withoutPassword = new URL(database.url);
    withoutPassword.password = '';
    expect(startLineOf(service)).toMatchObject({
      database: withoutPassword.href,
      migrationsApplied: [],
      msg: expect.stringContaining('migrations not run at start (MIGRATE_ON_START=false)'),
    });
    const admin = await mysql.createConnection({ uri: database.url.replace(/^mariadb:/, 'mysql:') });
    try {
      const [tables] = await admin.query('select table_name from information_schema.tables where table_schema = ?', [
        withoutPassword.pathname.slice(1),
      ]);
      expect(tables).toEqual([]);
    } finally {
      await admin.end();
    }
    orm = await openDatabase(database.url);
    expect(await migrate(orm)).not.toEqual([]);
    await createUserAndOrganization(service.baseUrl, 'after-migration', await ownerToken('after-migration'));
  });

  it('serves metrics at METRICS_HOST:METRICS_PORT, showing a pool of DB_POOL_SIZE connections', async () => {
    const metricsUrl = `http://${OTHER_LOOPBACK}:${metricsPort}/metrics`;
    expect(startLineOf(service).metrics).toBe(metricsUrl);
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^db_pool_max_connections 7$/m);
    expect(await statusOf(`http://127.0.0.1:${metricsPort}/metrics`)).toBe('ECONNREFUSED');
  });

  it('answers 503 when a row lock is not released within DB_TIMEOUT_MS', async () => {
    const id = uniqueId('locked');
    const token = await ownerToken(id);
    await createUserAndOrganization(service.baseUrl, id, token);
    // A value the statement carries: the log line of the refusal must not (behaviour §16).
    const rename = () => restCall(service.baseUrl, 'PUT', '/users', token, { first_name: 'RenamedQx7Value' });
    const locker = await mysql.createConnection({ uri: database.url.replace(/^mariadb:/, 'mysql:') });
    try {
      await locker.beginTransaction();
      await locker.query('select id from users where id = ? for update', [id]);
      const sentAt = performance.now();
      const refused = await rename();
      const waitedMs = performance.now() - sentAt;
      expect(refused).toEqual({ status: 503, body: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
      // Within the processing limit of 2 × 500 ms + 1 s; the default, 5 s, would still wait for the lock.
      expect(waitedMs).toBeLessThan(4_000);
    } finally {
      await locker.rollback();
      await locker.end();
    }
    expect((await rename()).status).toBe(200);
    const refusals = service.entries().filter((entry) => entry.msg === 'database unavailable');
    expect(refusals.length).toBeGreaterThan(0);
    expect(JSON.stringify(refusals)).not.toMatch(/RenamedQx7Value|update `users`/i);
  });

  it('keeps the stream of a subscriber that reads nothing while fewer than EVENTS_SUBSCRIBER_BACKLOG events wait for it', async () => {
    const id = uniqueId('subscribed');
    const token = await ownerToken(id);
    const organizationId = await createUserAndOrganization(service.baseUrl, id, token);
    const history = await restCall(service.baseUrl, 'GET', `/organizations/${organizationId}/events`, token);
    const lastEventId: string = history.body.at(-1).event_id;

    // A client that asks for the stream and then reads nothing for a while.
    const stuck = connect(Number(new URL(service.baseUrl).port), '127.0.0.1');
    stuck.on('error', () => {});
    const input = encodeURIComponent(JSON.stringify({ organization_id: organizationId, lastEventId }));
    stuck.write(
      `GET /trpc/events.watch?input=${input} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    stuck.pause();
    // One that reads shows when the polls have handed every event to both.
    let read = 0;
    const reader = createClient({ url: service.baseUrl, token }).events.watch.subscribe(
      { organization_id: organizationId, lastEventId },
      { onData: () => read++ },
    );
    try {
      // Far more than the socket buffers hold, and ten times the default backlog: 10,000 events
      // of ~1 KB, written straight to the table as if as many changes had committed.
      const count = 10_000;
      const ids = await writeEvents(orm!.em.getKysely<Database>(), organizationId, id, count);
      expect(await eventually(() => read === count, 30_000)).toBe(true);

      // The stuck client reads at last: every event, on a stream still open.
      const delivered: string[] = [];
      let partial = '';
      stuck.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop()!;
        for (const line of lines) if (line.startsWith('id: ')) delivered.push(line.slice('id: '.length));
      });
      stuck.resume();
      expect(await eventually(() => delivered.length === count, 30_000)).toBe(true);
      expect(delivered).toEqual(ids);
      expect(stuck.destroyed).toBe(false);
    } finally {
      reader.unsubscribe();
      stuck.destroy();
    }
  }, 90_000);
});

describe('the bundle on an in-memory database, with token keys of both kinds', () => {
  const ISSUER = 'https://issuer.example.test';
  const AUDIENCE = 'org-user-service';
  const COOLDOWN_MS = 2000;
  const POLL_INTERVAL_MS = 1500;
  const claims = { iss: ISSUER, aud: AUDIENCE };
  /** The keys the JWKS endpoint publishes, and when it was fetched (performance.now()). */
  const published: JWK[] = [];
  const fetches: number[] = [];
  let jwksServer: Server;
  let service: ServiceProcess;

  async function ecKey(kid: string) {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256' };
    const sign = (payload: JWTPayload) =>
      new SignJWT(payload)
        .setSubject(`holder-of-${kid}`)
        .setProtectedHeader({ alg: 'ES256', kid })
        .setExpirationTime('5m')
        .sign(pair.privateKey);
    return { jwk, sign };
  }
  let firstKey: Awaited<ReturnType<typeof ecKey>>;
  let secondKey: Awaited<ReturnType<typeof ecKey>>;
  /** The ROLES_FILE: two permissions of the application, one granted to members, and an instance role. */
  const ROLES = {
    permissions: { 'reports:read': 'Read the reports', 'reports:export': 'Export the reports' },
    roles: { auditor: { description: 'Reads the reports', permissions: ['organization:read', 'reports:read'] } },
    grants: { admin: ['reports:read', 'reports:export'], member: ['reports:export'] },
  };
  const rolesDir = mkdtempSync(join(tmpdir(), 'orgs-settings-roles-'));

  beforeAll(async () => {
    firstKey = await ecKey('first');
    secondKey = await ecKey('second');
    published.push(firstKey.jwk);
    jwksServer = createServer((_request, response) => {
      fetches.push(performance.now());
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: published }));
    });
    jwksServer.listen(0, '127.0.0.1');
    await once(jwksServer, 'listening');
    const { port } = jwksServer.address() as { port: number };
    const rolesFile = join(rolesDir, 'roles.json');
    writeFileSync(rolesFile, JSON.stringify(ROLES));
    service = await startBundle({
      DATABASE_URL: ':memory:',
      ROLES_FILE: rolesFile,
      JWT_SECRET: TEST_SECRET,
      JWT_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
      JWT_JWKS_COOLDOWN_MS: String(COOLDOWN_MS),
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      EVENTS_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
    });
  });
  afterAll(() => {
    service?.kill();
    jwksServer?.close();
    rmSync(rolesDir, { recursive: true, force: true });
  });

  /** An HS256 token signed with JWT_SECRET, from the issuer for the audience. */
  const secretToken = (sub: string) => tokenFor(sub, { role: 'owner', claims });

  it('keeps its data in memory with DATABASE_URL=:memory:', async () => {
    expect(startLineOf(service).database).toBe(':memory:');
    const token = await secretToken('remembered');
    await createUserAndOrganization(service.baseUrl, 'remembered', token);
    const me = await restCall(service.baseUrl, 'GET', '/users', token);
    expect(me.body).toMatchObject({ email: 'remembered@example.com' });
    // Not a file of that name, as a file: URL would make.
    expect(existsSync(join(projectRoot, ':memory:'))).toBe(false);
  });

  it("answers the check of ROLES_FILE's application permissions as its grants and instance roles say", async () => {
    const ownerToken = await secretToken('reports-owner');
    const organizationId = await createUserAndOrganization(service.baseUrl, 'reports-owner', ownerToken);
    for (const [id, role] of [
      ['reports-member', 'member'],
      ['reports-auditor', 'auditor'],
    ] as const) {
      const user = await restCall(service.baseUrl, 'POST', '/users', await secretToken(id), {
        first_name: 'Report',
        last_name: 'Reader',
        email: `${id}@example.com`,
      });
      expect(user.status).toBe(201);
      const added = await restCall(
        service.baseUrl,
        'POST',
        '/organization-user',
        ownerToken,
        { email: `${id}@example.com`, role },
        organizationId,
      );
      expect(added.status, JSON.stringify(added.body)).toBe(201);
    }
    const check = (permissions: string[], userId?: string) =>
      restCall(service.baseUrl, 'POST', `/organizations/${organizationId}/permissions/check`, ownerToken, {
        permissions,
        user_id: userId,
      });
    const reports = ['reports:read', 'reports:export'];
    // Without the file both names would be unknown, and each check a 400.
    expect((await check(reports)).body).toEqual({
      user_id: 'reports-owner',
      allowed: true,
      results: { 'reports:read': true, 'reports:export': true },
    });
    expect((await check(reports, 'reports-member')).body.results).toEqual({
      'reports:read': false,
      'reports:export': true,
    });
    expect((await check(reports, 'reports-auditor')).body.results).toEqual({
      'reports:read': true,
      'reports:export': false,
    });
    // A name the file does not declare is still unknown: a 400 that names it.
    const unknown = await check(['reports:delete']);
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('reports:delete');
  });

  it('verifies HS256 tokens with JWT_SECRET and ES256 ones from JWT_JWKS_URL, with JWT_ISSUER and JWT_AUDIENCE', async () => {
    expect(await organizationsStatus(service.baseUrl, await secretToken('secret-holder'))).toBe(200);
    expect(await organizationsStatus(service.baseUrl, await firstKey.sign(claims))).toBe(200);
    const otherClaims = [
      { aud: AUDIENCE },
      { iss: ISSUER },
      { iss: 'https://elsewhere.example.test', aud: AUDIENCE },
      { iss: ISSUER, aud: 'another-service' },
    ];
    for (const wrong of otherClaims) {
      expect(await organizationsStatus(service.baseUrl, await firstKey.sign(wrong)), JSON.stringify(wrong)).toBe(401);
      const hs256 = await tokenFor('secret-holder', { claims: wrong });
      expect(await organizationsStatus(service.baseUrl, hs256), JSON.stringify(wrong)).toBe(401);
    }
  });

  it('fetches the JWKS again for an unknown kid only JWT_JWKS_COOLDOWN_MS after the last fetch', async () => {
    const statusOfSecondKey = async () => organizationsStatus(service.baseUrl, await secondKey.sign(claims));
    const coolDown = () => sleep(Math.max(0, fetches.at(-1)! + COOLDOWN_MS + 300 - performance.now()));
    expect(fetches.length).toBeGreaterThan(0);

    // Past the cooldown, a kid it does not know makes it fetch the JWKS again (where it is not yet).
    await coolDown();
    const before = fetches.length;
    expect(await statusOfSecondKey()).toBe(401);
    expect(fetches).toHaveLength(before + 1);

    // Published now, but within the cooldown the service does not look again.
    published.push(secondKey.jwk);
    expect(await statusOfSecondKey()).toBe(401);
    expect(fetches).toHaveLength(before + 1);

    // Past it, it does; the default cooldown, 30 s, would still refuse the key.
    await coolDown();
    expect(await statusOfSecondKey()).toBe(200);
    expect(fetches).toHaveLength(before + 2);
  });

  it('looks for new audit events every EVENTS_POLL_INTERVAL_MS', async () => {
    const token = await secretToken('watcher');
    const organizationId = await createUserAndOrganization(service.baseUrl, 'watcher', token);
    const history = await restCall(service.baseUrl, 'GET', `/organizations/${organizationId}/events`, token);
    const arrivals: number[] = [];
    const subscription = createClient({ url: service.baseUrl, token }).events.watch.subscribe(
      { organization_id: organizationId, lastEventId: history.body.at(-1).event_id },
      { onData: () => arrivals.push(performance.now()) },
    );
    try {
      const rename = async (name: string) =>
        expect(
          (
            await restCall(service.baseUrl, 'PUT', `/organizations/${organizationId}`, token, {
              organization_name: name,
            })
          ).status,
        ).toBe(200);
      await rename('Renamed once');
      expect(await eventually(() => arrivals.length === 1, 3 * POLL_INTERVAL_MS)).toBe(true);
      // Made just after the first arrived, so it waits for the next look: under the default, 250 ms
      // later, it would arrive that much after the first.
      await rename('Renamed twice');
      expect(await eventually(() => arrivals.length === 2, 3 * POLL_INTERVAL_MS)).toBe(true);
      expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(POLL_INTERVAL_MS - 500);
    } finally {
      subscription.unsubscribe();
    }
  });
});

/** This file's tests by title, with their state: `pass`, `fail`, `skip`... (for a test yet to run, its mode). */
function testStates(task: RunnerTask, states = new Map<string, string>()): Map<string, string> {
  if (task.type === 'test') states.set(task.name, task.result?.state ?? task.mode);
  else for (const child of task.tasks) testStates(child, states);
  return states;
}

/**
 * What a test file that starts the bundle calls: ./support/process.ts, ./support/bundle-processes.ts,
 * and ./support/console.ts's `startConsoleService`, which spawns it.
 */
const STARTS_THE_BUNDLE = /\b(?:spawnService|spawnServices|spawnQuietService|startConsoleService)\(|\bSERVICE_ENTRY\b/;

describe('the settings of docs/configuration.md', () => {
  it('each have a test that starts the bundle with the setting and shows its effect', ({ task }) => {
    const settings = settingRows().map((row) => row.name);
    expect(Object.keys(PROOFS).sort()).toEqual([...settings].sort());

    const here = testStates(task.file);
    const unproven: string[] = [];
    for (const [setting, proofs] of Object.entries(PROOFS)) {
      for (const proof of proofs) {
        const [file, title] = proof.includes(' › ') ? proof.split(' › ') : [undefined, proof];
        if (file === undefined) {
          const passed = here.get(proof) === 'pass' && given.has(setting);
          if (!passed) unproven.push(`${setting}: ${proof}`);
          continue;
        }
        // A test of another file, which runs in the same `npm test`: it must be there and start the bundle.
        const source = existsSync(join(projectRoot, file)) ? readFileSync(join(projectRoot, file), 'utf8') : '';
        if (!STARTS_THE_BUNDLE.test(source) || !source.includes(`'${title}'`)) unproven.push(`${setting}: ${proof}`);
      }
    }
    expect(unproven).toEqual([]);
  });
});
