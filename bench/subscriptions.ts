/**
 * Open audit event subscriptions (tRPC over server-sent events, as the typed client opens them),
 * held while other load runs: `openSubscriptions` is the held load that `npm run bench` wires in.
 *
 * Run on its own (`node bench/subscriptions.ts`, needs root and /usr/sbin/mariadbd like
 * bench/outage.ts) it measures what open subscriptions cost one instance when nothing happens: the
 * service's CPU and the statements it sends to a MariaDB instance of its own, without and with
 * SUBSCRIPTIONS subscriptions, and that the instance still answers and delivers meanwhile.
 */
import autocannon from 'autocannon';
import mysql from 'mysql2/promise';
import { OwnMariadb } from '../tests/support/mariadb-instance.ts';
import { pooled } from '../tests/support/pooled.ts';
import { buildService, spawnService, killServicesOnSignals } from '../tests/support/process.ts';
import { TEST_SECRET, tokenFor } from '../tests/support/tokens.ts';
import { cpuMicroseconds, rssMegabytes } from './process-usage.ts';
import { restCall } from '../tests/support/rest-call.ts';

killServicesOnSignals();

export interface SubscriptionCounters {
  /** Streams the service accepted (tRPC's `connected` event arrived). */
  connected: number;
  /** Events delivered, over all streams. */
  events: number;
  pings: number;
  /** Streams refused or ended with an error event, or that failed to connect. */
  errors: number;
  /** Streams that ended while the handle was still open. */
  dropped: number;
}

export interface Subscriptions {
  counters: SubscriptionCounters;
  close(): Promise<void>;
}

/** Streams opened at once: each costs the service a token check and a few queries to start. */
const OPENING_CONCURRENCY = 50;

/**
 * Opens `count` subscriptions to `events.watch` on `baseUrl`, spread over `organizationIds` in turn
 * (the token's subject must be an owner or admin of each), and resolves once each one is connected
 * or has failed.
 */
export async function openSubscriptions(options: {
  baseUrl: string;
  token: string;
  organizationIds: string[];
  count: number;
}): Promise<Subscriptions> {
  const counters: SubscriptionCounters = { connected: 0, events: 0, pings: 0, errors: 0, dropped: 0 };
  const closing = new AbortController();
  const streams: Promise<void>[] = [];

  const open = (index: number) =>
    new Promise<void>((connected) => {
      const organizationId = options.organizationIds[index % options.organizationIds.length]!;
      const input = encodeURIComponent(JSON.stringify({ organization_id: organizationId }));
      const stream = (async () => {
        try {
          const response = await fetch(`${options.baseUrl}/trpc/events.watch?input=${input}`, {
            headers: { authorization: `Bearer ${options.token}`, accept: 'text/event-stream' },
            signal: closing.signal,
          });
          if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let partial = '';
          for (let read = await reader.read(); !read.done; read = await reader.read()) {
            const lines = (partial + read.value).split('\n');
            partial = lines.pop()!;
            for (const line of lines) {
              if (line === 'event: connected') {
                counters.connected++;
                connected();
              } else if (line === 'event: ping') counters.pings++;
              else if (line === 'event: serialized-error') counters.errors++;
              else if (line.startsWith('id: ') && line.length > 4) counters.events++;
            }
          }
          if (!closing.signal.aborted) counters.dropped++;
        } catch (error) {
          if (!closing.signal.aborted) counters.errors++;
          void error;
        } finally {
          connected();
        }
      })();
      streams.push(stream);
    });

  await pooled(options.count, OPENING_CONCURRENCY, open);
  return {
    counters,
    async close() {
      closing.abort();
      await Promise.allSettled(streams);
    },
  };
}

/**
 * Organizations for subscriptions to watch, owned by the token's subject (who must have a user
 * record): quiet ones, so that what is measured is the cost of holding streams, not of the changes
 * of the scenarios they run beside. (1,000 subscribers of one organization that changes hundreds of
 * times a second cannot all be fed: each delivery costs ~170 µs of CPU, and the feed disconnects
 * subscribers that fall behind, which the `dropped` counter shows.)
 */
export async function createOrganizations(baseUrl: string, token: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const response = await fetch(`${baseUrl}/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ organization_name: `watched ${index}`, organization_description: '' }),
    });
    if (response.status !== 201) throw new Error(`POST /organizations: HTTP ${response.status}`);
    ids.push(((await response.json()) as { organization_id: string }).organization_id);
  }
  return ids;
}

/** Who holds the subscriptions, and what they watch. */
export interface Watcher {
  token: string;
  organizationIds: string[];
}

/**
 * A user of its own (`userId`, created through POST /users) owning `organizations` quiet
 * organizations (see createOrganizations): what `openSubscriptions` needs to measure holding only.
 */
export async function createWatcher(baseUrl: string, userId: string, organizations: number): Promise<Watcher> {
  const token = await tokenFor(userId, { role: 'owner', expiresIn: '2h' });
  const response = await fetch(`${baseUrl}/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: 'Bench', last_name: 'Watcher', email: `${userId}@example.com` }),
  });
  if (response.status !== 201) throw new Error(`POST /users: HTTP ${response.status} ${await response.text()}`);
  return { token, organizationIds: await createOrganizations(baseUrl, token, organizations) };
}

// ---- the idle-cost measurement ---------------------------------------------------------------

const SUBSCRIPTIONS = Number(process.env.SUBSCRIPTIONS ?? 1000);
const ORGANIZATIONS = Number(process.env.ORGANIZATIONS ?? 100);
const MEASURE_SECONDS = Number(process.env.MEASURE_SECONDS ?? 20);
const CHANGES = Number(process.env.CHANGES ?? 100);

const cpuMilliseconds = (pid: number) => cpuMicroseconds(pid) / 1000;

async function measureIdle() {
  await buildService();
  const database = new OwnMariadb();
  await database.start();
  const service = await spawnService({
    DATABASE_URL: database.url,
    JWT_SECRET: TEST_SECRET,
    NODE_ENV: 'production',
    RATE_LIMIT_MAX: '0',
    ...(process.env.PROFILE_DIR && { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.PROFILE_DIR}` }),
  });
  const pid = service.child.pid!;
  const admin = await mysql.createConnection({ host: '127.0.0.1', port: database.port, user: 'root' });
  try {
    const { token, organizationIds } = await createWatcher(service.baseUrl, 'bench-subscriber', ORGANIZATIONS);
    const call = (method: string, path: string, body?: object, organizationId?: string) =>
      restCall<Record<string, string>>(service.baseUrl, method, path, token, body, organizationId);

    const statements = async () => {
      const [rows] = await admin.query("show global status like 'Questions'");
      return Number((rows as Array<{ Value: string }>)[0]!.Value);
    };
    /** The service's CPU and statements per second over MEASURE_SECONDS of doing nothing. */
    const idle = async () => {
      const cpu = cpuMilliseconds(pid);
      const asked = await statements();
      await new Promise((resolve) => setTimeout(resolve, MEASURE_SECONDS * 1000));
      return {
        cpuPercent: Math.round(((cpuMilliseconds(pid) - cpu) / MEASURE_SECONDS / 10) * 100) / 100,
        // Less the two SHOW statements of this measurement itself.
        statementsPerSecond: Math.round((((await statements()) - asked - 1) / MEASURE_SECONDS) * 10) / 10,
        rssMb: Math.round(rssMegabytes(pid)),
      };
    };

    const member = await tokenFor('bench-member', { role: 'owner' });
    await fetch(`${service.baseUrl}/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member}`, 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'Bench', last_name: 'Member', email: 'member@example.com' }),
    });
    const watched = organizationIds[0]!;
    await call('POST', '/organization-user', { email: 'member@example.com', role: 'member' }, watched);
    /** CPU the service spends on CHANGES role changes in the first organization, in milliseconds. */
    let role = 'member';
    const changes = async () => {
      const cpu = cpuMilliseconds(pid);
      for (let change = 0; change < CHANGES; change++) {
        role = role === 'member' ? 'admin' : 'member';
        await call('PUT', '/organization-user', { user_id: 'bench-member', role }, watched);
      }
      return cpuMilliseconds(pid) - cpu;
    };

    /** GET /users under 32 connections for MEASURE_SECONDS after 3 s of warm-up; CPU per request is the steadier figure. */
    const readLoad = async () => {
      const options = {
        url: `${service.baseUrl}/users`,
        connections: 32,
        headers: { authorization: `Bearer ${token}` },
      };
      await autocannon({ ...options, duration: 3 });
      const cpu = cpuMilliseconds(pid);
      const result = await autocannon({ ...options, duration: MEASURE_SECONDS });
      return {
        requestsPerSecond: Math.round(result.requests.average),
        cpuMicrosPerRequest: Math.round(((cpuMilliseconds(pid) - cpu) * 1000) / result.requests.total),
        p99Ms: result.latency.p99,
        non2xx: result.non2xx,
      };
    };

    const without = await idle();
    const readsWithout = await readLoad();
    const changesWithout = await changes();
    const opening = performance.now();
    const subscriptions = await openSubscriptions({
      baseUrl: service.baseUrl,
      token,
      organizationIds,
      count: SUBSCRIPTIONS,
    });
    const openedInMs = Math.round(performance.now() - opening);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const withSubscriptions = await idle();
    const readsWith = await readLoad();

    // Still answering while the streams are held.
    const answering = performance.now();
    const me = await call('GET', '/users');
    const answerMs = Math.round((performance.now() - answering) * 10) / 10;

    // One change reaches every subscriber of its organization; then what fanning out costs.
    const subscribersOfWatched = Math.ceil(SUBSCRIPTIONS / ORGANIZATIONS);
    const deliveredAll = async (count: number, since: number) => {
      const started = performance.now();
      while (subscriptions.counters.events - since < count && performance.now() - started < 30_000) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return Math.round(performance.now() - started);
    };
    let before = subscriptions.counters.events;
    const changed = performance.now();
    role = role === 'member' ? 'admin' : 'member';
    await call('PUT', '/organization-user', { user_id: 'bench-member', role }, watched);
    await deliveredAll(subscribersOfWatched, before);
    const oneChangeDeliveredMs = Math.round(performance.now() - changed);
    before = subscriptions.counters.events;
    const cpu = cpuMilliseconds(pid);
    await changes();
    await deliveredAll(CHANGES * subscribersOfWatched, before);
    const fanOutCpuMs = cpuMilliseconds(pid) - cpu - changesWithout;
    const counters = { ...subscriptions.counters };
    await subscriptions.close();

    console.log(
      JSON.stringify(
        {
          subscriptions: SUBSCRIPTIONS,
          organizations: ORGANIZATIONS,
          measuredSeconds: MEASURE_SECONDS,
          idleWithout: without,
          idleWith: withSubscriptions,
          openedInMs,
          getUsersUnderLoad: { without: readsWithout, with: readsWith },
          getUsersWhileHeld: { status: me.status, ms: answerMs },
          oneChangeDeliveredToItsSubscribersMs: oneChangeDeliveredMs,
          fanOut: {
            changes: CHANGES,
            subscribersEach: subscribersOfWatched,
            cpuMicrosPerDeliveredEvent: Math.round((fanOutCpuMs * 1000) / (CHANGES * subscribersOfWatched)),
          },
          counters,
        },
        null,
        2,
      ),
    );
  } finally {
    await admin.end();
    service.child.kill('SIGTERM');
    await service.exited;
    await database.destroy();
  }
}

if (import.meta.main) await measureIdle();
