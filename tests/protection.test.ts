/**
 * Security headers, CORS, the per-caller rate limit (per instance, or shared through Redis by
 * instances of the bundle that `npm start` runs), and member data kept from non-members on every
 * transport.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../server/platform/config.ts';
import { databaseTarget, describeOnEachDatabase, type TestDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId } from './support/fixtures.ts';
import { failWithout, install, REDIS_SERVER, redisServerMissing } from './support/needs.ts';
import { freePorts } from './support/ports.ts';
import { spawnServices } from './support/bundle-processes.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { useServer } from './support/server.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

const embedded = databaseTarget('embedded');

describe('security headers and CORS', () => {
  const server = useServer(embedded, { CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' });

  it("sends a JSON API's security headers, and the reference page a policy of its own", async () => {
    for (const path of ['/healthz', '/users']) {
      const response = await server().request('GET', path);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('strict-transport-security')).toMatch(/max-age=/);
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
      expect(response.headers.get('cache-control')).toBe('no-store');
      // helmet's headers for HTML documents are not sent with JSON.
      expect(response.headers.get('x-xss-protection')).toBeNull();
      expect(response.headers.get('origin-agent-cluster')).toBeNull();
    }
    const page = await server().request('GET', '/docs/');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
  });

  it('allows the configured origins only', async () => {
    const preflight = (origin: string) =>
      server().request('OPTIONS', '/organization-user', {
        headers: {
          origin,
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'authorization,organization_id,content-type',
        },
      });
    const allowed = await preflight('https://admin.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/organization_id/);
    // Every method of the REST paths: a browser sends a change by PUT, PATCH or DELETE too.
    expect(allowed.headers.get('access-control-allow-methods')?.split(/, */).sort()).toEqual([
      'DELETE',
      'GET',
      'HEAD',
      'PATCH',
      'POST',
      'PUT',
    ]);
    const refused = await preflight('https://evil.example.com');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS without CORS_ORIGINS', () => {
  const server = useServer(embedded);

  it('allows no origin, and still sends the security headers', async () => {
    const response = await server().request('OPTIONS', '/users', {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('rate limit per caller', () => {
  const server = useServer(embedded, { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });

  it('answers 429 with Retry-After past the limit, per caller, never for health checks', async () => {
    const busy = await tokenFor('busy-caller');
    const statuses = [];
    for (let index = 0; index < 4; index++) {
      statuses.push((await server().call('GET', '/organizations', { token: busy })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await server().call('GET', '/api/organizations', { token: busy });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.any(String) });
    const trpc = await server().call('GET', '/trpc/users.me', { token: busy });
    expect(trpc.status).toBe(429);

    expect((await server().call('GET', '/organizations', { token: await tokenFor('calm-caller') })).status).toBe(200);
    for (let index = 0; index < 5; index++) expect((await server().call('GET', '/healthz')).status).toBe(200);
  });

  it("counts a token that does not verify against the sender's address, not against the subject it names", async () => {
    const victim = await tokenFor('victim-caller');
    const [header, payload] = victim.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(43)}`;
    for (let index = 0; index < 3; index++) {
      expect((await server().call('GET', '/organizations', { token: forged })).status).toBe(401);
    }
    // The forger's address is spent; the person named is not.
    expect((await server().call('GET', '/organizations', { token: forged })).status).toBe(429);
    expect((await server().call('GET', '/organizations', { token: victim })).status).toBe(200);
  });
});

/** The statuses of `count` calls to GET /organizations as `caller`, to the service at `baseUrl`, one after another. */
async function statusesOf(baseUrl: string, caller: string, count: number): Promise<number[]> {
  const token = await tokenFor(caller);
  const statuses = [];
  for (let index = 0; index < count; index++) {
    statuses.push((await restCall(baseUrl, 'GET', '/organizations', token)).status);
  }
  return statuses;
}

describe('rate limit without TRUST_PROXY', () => {
  const server = useServer(embedded, { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });

  it('counts a caller without a token by the connection, whatever X-Forwarded-For says', async () => {
    const statuses = [];
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4']) {
      statuses.push((await server().call('GET', '/organizations', { headers: { 'x-forwarded-for': client } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

describe('rate limit without REDIS_URL', () => {
  const env = { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' };
  const first = useServer(embedded, env);
  const second = useServer(embedded, env);

  it('counts per instance: behind two instances a caller gets the limit from each', async () => {
    const caller = uniqueId('local-caller');
    expect(await statusesOf(first().baseUrl, caller, 3)).toEqual([200, 200, 429]);
    expect(await statusesOf(second().baseUrl, caller, 3)).toEqual([200, 200, 429]);
  });
});

const SHARED_REDIS_URL = 'redis://127.0.0.1:6379';

async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

const sharedRedisMissing = (await redisAnswers(SHARED_REDIS_URL))
  ? undefined
  : `No Redis answers at ${SHARED_REDIS_URL}: start one there (redis-server --daemonize yes --bind 127.0.0.1 ` +
    `--port 6379 --save ''); where redis-server is missing, ${install(['redis-server'])}`;

/**
 * For a describe block: `count` instances of the bundle, as `npm start` runs it, each on a database
 * of its own, started together with the settings `env()` gives, and killed after the block.
 */
function useBundles(count: number, env: () => Record<string, string>): () => ServiceProcess[] {
  let instances: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  beforeAll(async () => {
    for (let index = 0; index < count; index++) databases.push(await embedded.create());
    instances = await spawnServices(
      databases.map((database) => ({ ...env(), DATABASE_URL: database.url, JWT_SECRET: TEST_SECRET })),
    );
  });
  afterAll(async () => {
    for (const instance of instances) instance.kill();
    for (const database of databases) await database.drop();
  });
  return () => instances;
}

describe('rate limit shared through Redis by instances of the bundle', () => {
  failWithout(sharedRedisMissing);
  // A key prefix of this test's own, so that runs and other users of this Redis never share counters.
  const prefix = `${uniqueId('test')}:`;
  const instances = useBundles(2, () => ({
    RATE_LIMIT_MAX: '4',
    RATE_LIMIT_WINDOW_MS: '60000',
    REDIS_URL: SHARED_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
  }));

  it('gives a caller one limit across instances, with 429 and Retry-After from either, counted under REDIS_KEY_PREFIX', async () => {
    const [first, second] = instances() as [ServiceProcess, ServiceProcess];
    const caller = uniqueId('shared-caller');
    const token = await tokenFor(caller);
    const statuses = [];
    for (let index = 0; index < 6; index++) {
      const { baseUrl } = index % 2 === 0 ? first : second;
      statuses.push((await restCall(baseUrl, 'GET', '/organizations', token)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const limited = await fetch(`${first.baseUrl}/organizations`, { headers: { authorization: `Bearer ${token}` } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.any(String) });
    // Another caller has a limit of its own.
    expect(await statusesOf(second.baseUrl, uniqueId('other-caller'), 1)).toEqual([200]);

    const redis = new Redis(SHARED_REDIS_URL, { maxRetriesPerRequest: 0 });
    try {
      expect(await redis.keys(`${prefix}*`)).toContain(`${prefix}rate-limit:sub:${caller}`);
    } finally {
      redis.disconnect();
    }
  });
});

/** A Redis server of this test's own, so that stopping it disturbs nobody else. */
class OwnRedis {
  #process: ChildProcess | undefined;
  readonly port: number;

  constructor(port: number) {
    this.port = port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.#process = spawn(
      REDIS_SERVER,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await redisAnswers(this.url)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`own Redis on port ${this.port} did not start`);
  }

  async stop(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

describe('rate limit of instances of the bundle while their Redis is away', () => {
  failWithout(redisServerMissing());
  let redis: OwnRedis;
  beforeAll(async () => {
    const [port] = await freePorts(1);
    redis = new OwnRedis(port!);
  });
  afterAll(() => redis?.stop());
  // Started before their Redis is.
  const instances = useBundles(2, () => ({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000', REDIS_URL: redis.url }));

  /** True when a caller's requests through both instances count against one limit. */
  async function limitIsShared(): Promise<boolean> {
    const caller = uniqueId('probe');
    const [first, second] = instances() as [ServiceProcess, ServiceProcess];
    await statusesOf(first.baseUrl, caller, 3);
    const [next] = await statusesOf(second.baseUrl, caller, 1);
    expect([200, 429]).toContain(next);
    return next === 429;
  }

  /** Whether the limit is shared within about 10 s: the client reconnects by itself, after up to 2 s of back-off. */
  async function sharedSoon(): Promise<boolean> {
    for (let attempt = 0; attempt < 40; attempt++) {
      if (await limitIsShared()) return true;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return false;
  }

  /** The limit holds per instance: a caller gets it from each, and no request fails for want of Redis. */
  async function expectLimitPerInstance(): Promise<void> {
    const caller = uniqueId('per-instance');
    for (const { baseUrl } of instances()) expect(await statusesOf(baseUrl, caller, 4)).toEqual([200, 200, 200, 429]);
  }

  it(
    'counts per instance until Redis answers, then across instances, per instance again while it is down, across instances once it is back',
    { timeout: 60_000 },
    async () => {
      await expectLimitPerInstance();
      await redis.start();
      expect(await sharedSoon()).toBe(true);

      await redis.stop();
      await expectLimitPerInstance();

      await redis.start();
      expect(await sharedSoon()).toBe(true);
    },
  );
});

describe('REDIS_URL setting', () => {
  it('takes redis:// and rediss:// URLs and refuses others, naming the setting', () => {
    expect(readSettings({ REDIS_URL: 'rediss://user:secret@redis.internal:6380/2' }).REDIS_URL).toBe(
      'rediss://user:secret@redis.internal:6380/2',
    );
    expect(readSettings({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
    expect(() => readSettings({ REDIS_URL: 'http://redis.internal:6379' })).toThrow(/REDIS_URL/);
  });
});

describe('slow clients', () => {
  const server = useServer(embedded, { REQUEST_TIMEOUT_MS: '1000' });

  it('cuts off a client that never finishes its request, and keeps serving others', async () => {
    const { port } = new URL(server().baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // Headers started, never finished (slowloris).
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    const closed = await Promise.race([
      new Promise<boolean>((resolve) => socket.once('close', () => resolve(true))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000)),
    ]);
    socket.destroy();
    expect(closed).toBe(true);
    // Closed by the socket timeout (silently) or by the request timeout (with a 408).
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    expect((await server().call('GET', '/healthz')).status).toBe(200);
  });
});

describeOnEachDatabase('member data and non-members', (target) => {
  const server = useServer(target);

  it('shows no member data to a non-member, over REST or tRPC', async () => {
    const owner = await registerUser(server());
    const member = await registerUser(server());
    const outsider = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, member, 'member');
    const input = (value: object) => encodeURIComponent(JSON.stringify(value));
    const attempts: Array<[string, string]> = [
      ['GET', '/organization-user'],
      ['GET', `/organization-user/${member.id}`],
      ['GET', '/organization-user?limit=1'],
      ['GET', `/trpc/members.list`],
      ['GET', `/trpc/members.get?input=${input({ user_id: member.id })}`],
      ['GET', `/trpc/members.page?input=${input({ limit: 10 })}`],
    ];
    for (const [method, path] of attempts) {
      const response = await server().call(method, path, { token: outsider.token, organizationId });
      expect(response.status, path).toBe(403);
      expect(JSON.stringify(response.body)).not.toContain(member.email);
    }
    const theirs = await server().call('GET', '/organizations', { token: outsider.token });
    expect(theirs.body).toEqual([]);
  });
});
