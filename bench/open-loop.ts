/**
 * `npm run bench:latency`: latency at a rate, measured open-loop. Requests are due at evenly spaced
 * instants, sent at their due time whatever is still unanswered (each on a connection of its own
 * when the others are busy), and each one's latency is counted from its due time, not from when it
 * went out: a stall of the server (a garbage collection, a timer doing synchronous work) delays
 * every request due during it, and shows in the percentiles. A closed loop (autocannon, or
 * bench/fixed-rate.ts's staggered connections) sends nothing while it waits for an answer, so it
 * measures the service time, not the latency at a rate.
 *
 * On each database (MariaDB, the test account's; the embedded one, a file in a temporary folder):
 * the service started as `npm start` starts it, seeded with the organization of 100
 * (bench/seed.ts), warmed up, then the 1-permission check (scenario (i)) at LATENCY_RATES (default
 * 2000,4000) a second for LATENCY_SECONDS (10) each; then a service started afresh, and `/healthz`
 * at 1,000 a second from the moment it listens, for LATENCY_SECONDS, with its figures second by
 * second. Prints p50, p99, p99.9 and the largest latency in ms. LATENCY_DATABASES (default
 * `mariadb,embedded`) picks the databases; LATENCY_NODE_FLAGS (default the start script's) the
 * service's Node flags.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer } from '../server/build.ts';
import { SERVICE_ARGUMENTS, SERVICE_ENTRY, spawnService, type ServiceProcess } from '../tests/support/process.ts';
import { TEST_SECRET } from '../tests/support/tokens.ts';
import { createDatabase } from './database.ts';
import { writeRolesFile } from './permissions.ts';
import { SCENARIOS, type Load } from './scenarios.ts';
import { seed } from './seed.ts';

const RATES = (process.env.LATENCY_RATES ?? '2000,4000').split(',').map(Number);
const SECONDS = Number(process.env.LATENCY_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
const HEALTH_RATE = 1000;
const DATABASES = (process.env.LATENCY_DATABASES ?? 'mariadb,embedded').split(',');
const NODE_FLAGS = process.env.LATENCY_NODE_FLAGS?.split(' ').filter(Boolean);

interface Latencies {
  /** Each request's due time, ms from the start of the run. */
  due: Float64Array;
  /** Each request's latency from its due time, ms; NaN for a request that failed or was not a 2xx. */
  latency: Float64Array;
  sent: number;
}

/**
 * Sends `load` to `baseUrl` at `rate` a second for `seconds`, open-loop (see the module comment).
 * The generator checks its clock every millisecond and sends what has fallen due; what it adds is
 * its own timer's lateness, counted against the server like any other delay.
 */
function openLoop(baseUrl: string, load: Load, rate: number, seconds: number): Promise<Latencies> {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const total = Math.round(rate * seconds);
  const result: Latencies = { due: new Float64Array(total), latency: new Float64Array(total).fill(NaN), sent: 0 };
  const body = typeof load.body === 'string' ? Buffer.from(load.body) : undefined;
  const headers = { ...(load.headers as Record<string, string>), ...(body && { 'content-length': body.length }) };
  const interval = 1000 / rate;
  let answered = 0;
  return new Promise((resolve) => {
    const start = performance.now();
    const send = (index: number) => {
      const due = index * interval;
      result.due[index] = due;
      const call = request(
        { agent, hostname, port, method: load.method ?? 'GET', path: load.path ?? '/', headers },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode! < 300) result.latency[index] = performance.now() - start - due;
            done();
          });
        },
      );
      call.on('error', done);
      call.end(body);
    };
    const done = () => {
      if (++answered === total) {
        agent.destroy();
        resolve(result);
      }
    };
    const timer = setInterval(() => {
      const now = performance.now() - start;
      while (result.sent < total && result.sent * interval <= now) send(result.sent++);
      if (result.sent === total) clearInterval(timer);
    }, 1);
  });
}

/** p50, p99, p99.9 and the largest latency (ms, to 0.01), and how many failed, of `latencies` whose due time is in [from, to). */
function figures({ due, latency }: Latencies, from = 0, to = Infinity) {
  const kept: number[] = [];
  let failed = 0;
  for (let index = 0; index < due.length; index++) {
    if (due[index]! < from || due[index]! >= to) continue;
    if (Number.isNaN(latency[index])) failed++;
    else kept.push(latency[index]!);
  }
  kept.sort((a, b) => a - b);
  const at = (share: number) =>
    kept.length ? Math.round(kept[Math.max(0, Math.ceil(share * kept.length) - 1)]! * 100) / 100 : NaN;
  return {
    requests: kept.length + failed,
    'p50 ms': at(0.5),
    'p99 ms': at(0.99),
    'p99.9 ms': at(0.999),
    'max ms': at(1),
    failed,
  };
}

const serve = (env: Record<string, string>) =>
  spawnService(env, {
    discardLogsAfterStart: true,
    ...(NODE_FLAGS && { nodeArguments: [...NODE_FLAGS, SERVICE_ENTRY] }),
  });

async function stop(server: ServiceProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

/** The check at each rate, on a service seeded and warmed up; then `/healthz` from a fresh start. */
async function measure(name: string, env: Record<string, string>) {
  const rows: Record<string, unknown>[] = [];
  const service = await serve(env);
  try {
    const seeded = await seed(service.baseUrl, { big: false });
    const check = SCENARIOS.find((scenario) => scenario.letter === 'i')!;
    const load = await check.load(seeded, { id: 'latency', size: { duration: SECONDS } });
    await openLoop(service.baseUrl, load, RATES[0]!, WARMUP_SECONDS);
    for (const rate of RATES) {
      rows.push({
        database: name,
        request: `check (i) at ${rate}/s`,
        ...figures(await openLoop(service.baseUrl, load, rate, SECONDS)),
      });
    }
  } finally {
    await stop(service);
  }
  const fresh = await serve(env);
  try {
    const health = await openLoop(fresh.baseUrl, { path: '/healthz' }, HEALTH_RATE, SECONDS);
    rows.push({ database: name, request: `/healthz at ${HEALTH_RATE}/s from the start`, ...figures(health) });
    for (let second = 0; second < SECONDS; second++) {
      rows.push({
        database: name,
        request: `  second ${second + 1}`,
        ...figures(health, second * 1000, (second + 1) * 1000),
      });
    }
  } finally {
    await stop(fresh);
  }
  return rows;
}

async function main() {
  await buildServer();
  const env = {
    JWT_SECRET: TEST_SECRET,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    RATE_LIMIT_MAX: '0',
    ROLES_FILE: await writeRolesFile(),
  };
  const rows: Record<string, unknown>[] = [];
  for (const name of DATABASES) {
    if (name === 'mariadb') {
      const database = await createDatabase('latency');
      try {
        rows.push(...(await measure(name, { ...env, DATABASE_URL: database.url })));
      } finally {
        await database.drop();
      }
    } else {
      const folder = await mkdtemp(join(tmpdir(), 'orgs-latency-'));
      try {
        rows.push(...(await measure(name, { ...env, DATABASE_URL: `file:${join(folder, 'orgs.db')}` })));
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    }
  }
  console.log(
    `Node flags: ${(NODE_FLAGS ?? SERVICE_ARGUMENTS.filter((argument) => argument.startsWith('--'))).join(' ')}`,
  );
  console.table(rows);
}

await main();
