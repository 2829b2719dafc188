/**
 * `npm run bench`: the service against a hand-written baseline (bench/baseline.ts), both on
 * MariaDB, started as in production. Seeds through the public REST API only, drives each scenario
 * with autocannon for a fixed time at fixed concurrency, and prints req/s, p50, p99, non-2xx and
 * peak RSS per server with the service/baseline ratios, as a table and as JSON. Then measures the
 * service's start to first answered request on the embedded database.
 *
 * Settings: TEST_MARIADB_URL (account that may create orgs_test_* databases), BENCH_DURATION
 * (seconds per scenario, default 10), BENCH_WARMUP (seconds of unmeasured load before each
 * measured one, default 3, so that both servers are measured with their code optimised by V8),
 * BENCH_SCENARIOS (letters of the scenarios to run, default all).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import mysql from 'mysql2/promise';
import { spawnService, type ServiceProcess } from '../tests/support/process.ts';
import { TEST_SECRET, tokenFor } from '../tests/support/tokens.ts';

const ADMIN_URL = process.env.TEST_MARIADB_URL ?? 'mariadb://orgs_test:orgs_test@127.0.0.1:3306';
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
/** The scenarios to run, by letter: `BENCH_SCENARIOS=ab` runs (a) and (b). */
const ONLY = process.env.BENCH_SCENARIOS ?? 'abcdef';
const USERS = 10_200;
const BIG = { owner: 0, members: 10_000 };
const SMALL = { owner: 10_000, members: 100 };
const SPARE_FROM = 10_100;

const userId = (index: number) => `bench-user-${index}`;
const email = (index: number) => `${userId(index)}@example.com`;

/** Runs `count` jobs with at most `concurrency` at once. */
async function pooled(count: number, concurrency: number, job: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

const tokens = new Map<number, string>();
async function ownerToken(index: number): Promise<string> {
  if (!tokens.has(index)) tokens.set(index, await tokenFor(userId(index), { role: 'owner', expiresIn: '2h' }));
  return tokens.get(index)!;
}

/** A REST call as user `index`; statuses in `tolerated` count as done too. */
async function send(
  baseUrl: string,
  request: { method: string; path: string; as: number; body: object; organizationId?: string },
  tolerated: number[] = [],
) {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${await ownerToken(request.as)}`,
      'content-type': 'application/json',
      ...(request.organizationId && { organization_id: request.organizationId }),
    },
    body: JSON.stringify(request.body),
  });
  if (response.status >= 300 && !tolerated.includes(response.status)) {
    throw new Error(`${request.method} ${request.path}: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

async function seed(baseUrl: string): Promise<{ small: string; big: string }> {
  await pooled(USERS, 32, async (index) => {
    await send(baseUrl, {
      method: 'POST',
      path: '/users',
      as: index,
      body: { first_name: `First${index}`, last_name: `Last${index}`, email: email(index) },
    });
  });
  const organization = async (owner: number, members: number) => {
    const { organization_id } = await send(baseUrl, {
      method: 'POST',
      path: '/organizations',
      as: owner,
      body: { organization_name: `bench ${members}`, organization_description: '' },
    });
    await pooled(members - 1, 32, async (offset) => {
      await send(baseUrl, {
        method: 'POST',
        path: '/organization-user',
        as: owner,
        body: { email: email(owner + offset + 1), role: 'member' },
        organizationId: organization_id,
      });
    });
    return organization_id as string;
  };
  return { small: await organization(SMALL.owner, SMALL.members), big: await organization(BIG.owner, BIG.members) };
}

interface Scenario {
  name: string;
  connections: number;
  options: (organizations: { small: string; big: string }, tokens: Tokens) => Partial<autocannon.Options>;
  /** Puts back the state the scenario changes, so that each server starts from the same data. */
  reset?: (baseUrl: string, organizations: { small: string; big: string }) => Promise<void>;
}
interface Tokens {
  small: string;
  big: string;
}

const json = { 'content-type': 'application/json' };

const SCENARIOS: Scenario[] = [
  {
    name: '(a) GET /api/users',
    connections: 32,
    options: (_, tokens) => ({
      method: 'GET',
      path: '/api/users',
      headers: { authorization: `Bearer ${tokens.small}` },
    }),
  },
  {
    name: '(b) GET /organization-user/{id}, 100',
    connections: 32,
    options: (organizations, tokens) => ({
      method: 'GET',
      path: `/organization-user/${userId(SMALL.owner + 50)}`,
      headers: { authorization: `Bearer ${tokens.small}`, organization_id: organizations.small },
    }),
  },
  {
    name: '(c) GET /organization-user, 100',
    connections: 32,
    options: (organizations, tokens) => ({
      method: 'GET',
      path: '/organization-user',
      headers: { authorization: `Bearer ${tokens.small}`, organization_id: organizations.small },
    }),
  },
  {
    name: '(d) GET /organization-user, 10,000',
    connections: 4,
    options: (organizations, tokens) => ({
      method: 'GET',
      path: '/organization-user',
      headers: { authorization: `Bearer ${tokens.big}`, organization_id: organizations.big },
    }),
  },
  {
    name: '(e) PUT /organization-user flip role',
    connections: 32,
    options: (organizations, tokens) => {
      let nextMember = SMALL.owner + 1;
      return {
        headers: { authorization: `Bearer ${tokens.small}`, organization_id: organizations.small, ...json },
        // Each connection flips its own member: admin, then member, and again.
        setupClient: (client) => {
          const user_id = userId(nextMember++);
          client.setRequests(
            ['admin', 'member'].map((role) => ({
              method: 'PUT',
              path: '/organization-user',
              body: JSON.stringify({ user_id, role }),
            })),
          );
        },
      };
    },
  },
  {
    name: '(f) POST then DELETE /organization-user',
    connections: 32,
    options: (organizations, tokens) => {
      let nextSpare = SPARE_FROM;
      return {
        headers: { authorization: `Bearer ${tokens.small}`, organization_id: organizations.small, ...json },
        // Each connection adds its own spare user, then removes it, and again.
        setupClient: (client) => {
          const spare = nextSpare++;
          client.setRequests([
            {
              method: 'POST',
              path: '/organization-user',
              body: JSON.stringify({ email: email(spare), role: 'member' }),
            },
            { method: 'DELETE', path: '/organization-user', body: JSON.stringify({ user_id: userId(spare) }) },
          ]);
        },
      };
    },
    // A run stops between a POST and its DELETE: the spares still in the organization leave it.
    reset: (baseUrl, organizations) =>
      pooled(USERS - SPARE_FROM, 8, async (offset) => {
        await send(
          baseUrl,
          {
            method: 'DELETE',
            path: '/organization-user',
            as: SMALL.owner,
            body: { user_id: userId(SPARE_FROM + offset) },
            organizationId: organizations.small,
          },
          [404],
        );
      }),
  },
];

function rssMegabytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** CPU time the process has used (user + system, all threads), in microseconds. */
function cpuMicroseconds(pid: number): number {
  // Fields 14 and 15 of /proc/<pid>/stat, counted after the command name in parentheses.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticksPerSecond = 100; // USER_HZ: what /proc counts in on Linux (`getconf CLK_TCK`)
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / ticksPerSecond;
}

interface Figures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  peakRssMb: number;
  /** The server's CPU time per answered request: less noisy than req/s on a shared machine. */
  cpuMicrosPerRequest: number;
}

async function drive(
  server: ServiceProcess,
  scenario: Scenario,
  organizations: { small: string; big: string },
  tokens: Tokens,
): Promise<Figures> {
  let peak = rssMegabytes(server.child.pid!);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMegabytes(server.child.pid!))), 100);
  // autocannon takes a single request's path as part of the URL.
  const { path, ...options } = scenario.options(organizations, tokens) as Partial<autocannon.Options> & {
    path?: string;
  };
  const load = (duration: number) =>
    autocannon({ url: `${server.baseUrl}${path ?? ''}`, connections: scenario.connections, duration, ...options });
  if (WARMUP > 0) await load(WARMUP);
  const cpuBefore = cpuMicroseconds(server.child.pid!);
  const result = await load(DURATION);
  const cpuUsed = cpuMicroseconds(server.child.pid!) - cpuBefore;
  clearInterval(sampler);
  await scenario.reset?.(server.baseUrl, organizations);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    peakRssMb: Math.round(peak),
    cpuMicrosPerRequest: Math.round(cpuUsed / Math.max(result.requests.total, 1)),
  };
}

async function startupMilliseconds(): Promise<number> {
  const runs: number[] = [];
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const service = await spawnService({ DATABASE_URL: ':memory:', JWT_SECRET: TEST_SECRET, NODE_ENV: 'production' });
    await fetch(`${service.baseUrl}/healthz`);
    runs.push(performance.now() - started);
    service.child.kill('SIGTERM');
    await service.exited;
  }
  return Math.round(runs.sort((a, b) => a - b)[1]!);
}

async function main(): Promise<void> {
  const databaseName = `orgs_test_bench_${randomBytes(4).toString('hex')}`;
  const admin = await mysql.createConnection({ uri: ADMIN_URL.replace(/^mariadb:/, 'mysql:') });
  await admin.query(`CREATE DATABASE \`${databaseName}\``);
  const databaseUrl = `${ADMIN_URL.replace(/\/$/, '')}/${databaseName}`;
  const env = { DATABASE_URL: databaseUrl, JWT_SECRET: TEST_SECRET, NODE_ENV: 'production', LOG_LEVEL: 'info' };
  const servers: ServiceProcess[] = [];
  try {
    // Rate limiting is off: the load comes from one caller per scenario, far past any sane limit.
    const service = await spawnService({ ...env, RATE_LIMIT_MAX: '0' });
    servers.push(service);
    const seedStart = performance.now();
    const organizations = await seed(service.baseUrl);
    console.error(
      `seeded ${USERS} users and organizations of 100 and 10,000 members in ${Math.round(performance.now() - seedStart)} ms`,
    );
    const baseline = await spawnService({ ...env, SCRIPT: 'bench/baseline.ts' });
    servers.push(baseline);
    const tokens = {
      small: await tokenFor(userId(SMALL.owner), { expiresIn: '2h' }),
      big: await tokenFor(userId(BIG.owner), { expiresIn: '2h' }),
    };

    const rows = [];
    for (const scenario of SCENARIOS.filter((candidate) => ONLY.includes(candidate.name[1]!))) {
      const ofService = await drive(service, scenario, organizations, tokens);
      const ofBaseline = await drive(baseline, scenario, organizations, tokens);
      rows.push({
        scenario: scenario.name,
        connections: scenario.connections,
        service: ofService,
        baseline: ofBaseline,
        ratio: Math.round((ofService.requestsPerSecond / ofBaseline.requestsPerSecond) * 100) / 100,
        rssRatio: Math.round((ofService.peakRssMb / ofBaseline.peakRssMb) * 100) / 100,
      });
      console.error(`${scenario.name}: done`);
    }
    const startup = await startupMilliseconds();

    console.log(`\nService vs baseline on MariaDB, ${DURATION} s per scenario after ${WARMUP} s of warm-up\n`);
    console.table(
      rows.map((row) => ({
        scenario: row.scenario,
        conns: row.connections,
        'svc req/s': row.service.requestsPerSecond,
        'base req/s': row.baseline.requestsPerSecond,
        ratio: row.ratio,
        'svc p50/p99 ms': `${row.service.p50Ms}/${row.service.p99Ms}`,
        'base p50/p99 ms': `${row.baseline.p50Ms}/${row.baseline.p99Ms}`,
        'non-2xx svc/base': `${row.service.non2xx}/${row.baseline.non2xx}`,
        'RSS MB svc/base': `${row.service.peakRssMb}/${row.baseline.peakRssMb}`,
        'CPU µs/req svc/base': `${row.service.cpuMicrosPerRequest}/${row.baseline.cpuMicrosPerRequest}`,
      })),
    );
    console.log(`start to first answered request (embedded, median of 3): ${startup} ms`);
    console.log(
      JSON.stringify(
        { durationSeconds: DURATION, warmupSeconds: WARMUP, scenarios: rows, startupMs: startup },
        null,
        2,
      ),
    );
  } finally {
    for (const server of servers) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await admin.query(`DROP DATABASE IF EXISTS \`${databaseName}\``);
    await admin.end();
  }
}

await main();
