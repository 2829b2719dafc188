/**
 * `npm run bench:latency`: latency at a rate, measured open-loop. Requests are due at evenly spaced
 * instants, sent at their due time whatever is still unanswered, on LATENCY_CONNECTIONS keep-alive
 * connections at most (default 32, as `npm run bench` reads; a request due while all are busy waits
 * for the first to come free, as wrk2 does), and each one's latency is counted from its due time,
 * not from when it went out: a stall of the server (a garbage collection, a timer doing synchronous work) delays
 * every request due during it, and shows in the percentiles. A closed loop (autocannon, or
 * bench/fixed-rate.ts's staggered connections) sends nothing while it waits for an answer, so it
 * measures the service time, not the latency at a rate.
 *
 * On each database (MariaDB, the test account's; the embedded one, a file in a temporary folder):
 * the service started as `npm start` starts it, seeded with the organization of 100
 * (bench/seed.ts), warmed up, then the 1-permission check (scenario (i)) at LATENCY_RATES (default
 * 2000,4000) a second for LATENCY_SECONDS (10) each; then a service started afresh, and `/healthz`
 * at 1,000 a second from the moment it listens, for LATENCY_SECONDS; each run with its figures
 * second by second, and the check's with the connections it opened. Why the connections are
 * bounded: with a new one for every request due while the others were busy (LATENCY_CONNECTIONS=
 * Infinity), a stall of tens of ms made the generator open hundreds, whose accepting cost the
 * service more than the stall, and the run collapsed into a backlog of seconds
 * (docs/performance.md, "Latency at a rate"). Prints p50, p99, p99.9 and the largest latency in ms. LATENCY_DATABASES (default
 * `mariadb,embedded`) picks the databases; LATENCY_NODE_FLAGS (default the start script's) the
 * service's Node flags; LATENCY_PROBE=true loads bench/service-probe.ts into the service, and each
 * row gains what held its event loop then: its collections' pauses (`GC ms`, `major GCs`) and the
 * longest stretch over 10 ms in which a timer could not run (`loop held ms`). Every row has the CPU
 * time the hypervisor took from the machine meanwhile (`CPU stolen ms`, both CPUs together): a
 * stall of every process at once, which no server can answer through. LATENCY_BASELINE=true runs
 * the same checks, on MariaDB, against the hand-written baseline (bench/baseline.ts, with its
 * per-request duties) reading the database the service seeded: what the machine allows a server.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildService,
  SERVICE_ENTRY,
  SERVICE_NODE_FLAGS,
  spawnService,
  type ServiceProcess,
  killServicesOnSignals,
} from '../tests/support/process.ts';
import { TEST_SECRET } from '../tests/support/tokens.ts';
import { createDatabase } from './database.ts';
import { writeRolesFile } from './permissions.ts';
import { BASELINE_ENTRY, buildBaseline } from './baseline-build.ts';
import { cpuMicroseconds, machineStolenMs } from './process-usage.ts';
import { SCENARIOS, type Load } from './scenarios.ts';
import { startDueClock } from './due-clock.ts';
import { RawConnection, requestBytes } from './raw-http.ts';
import { seed } from './seed.ts';
import type { ProbeRecord } from './service-probe.ts';

killServicesOnSignals();

const RATES = (process.env.LATENCY_RATES ?? '2000,4000').split(',').map(Number);
const SECONDS = Number(process.env.LATENCY_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
const HEALTH_RATE = 1000;
const DATABASES = (process.env.LATENCY_DATABASES ?? 'mariadb,embedded').split(',');
const NODE_FLAGS = process.env.LATENCY_NODE_FLAGS?.split(' ').filter(Boolean);
const CONNECTIONS = Number(process.env.LATENCY_CONNECTIONS ?? 32);
const PROBE = process.env.LATENCY_PROBE === 'true';
const BASELINE = process.env.LATENCY_BASELINE === 'true';

interface Latencies {
  /** Each request's due time, ms from the start of the run. */
  due: Float64Array;
  /** Each request's latency from its due time, ms; NaN for a request that failed or was not a 2xx. */
  latency: Float64Array;
  /** How late the generator sent each request, ms after its due time (part of its latency). */
  sendLateness: Float64Array;
  sent: number;
  /** The connections the run opened, those opened ahead included. */
  connections: number;
  /** When the run started (its due time 0), ms from the epoch: to place the probe's records. */
  startEpochMs: number;
  /** CPU time the hypervisor took from the machine during the run: [ms from the epoch, ms taken since the sample before]. */
  stolen: Array<[number, number]>;
}

/** How often the run reads how much CPU the hypervisor has taken from the machine. */
const STOLEN_SAMPLE_MS = 50;

/**
 * Reads every STOLEN_SAMPLE_MS what the hypervisor has taken from the machine (machineStolenMs)
 * into `samples`, until the returned function is called.
 */
function sampleStolen(samples: Array<[number, number]>): () => void {
  let last = machineStolenMs();
  const timer = setInterval(() => {
    const now = machineStolenMs();
    if (now > last) samples.push([Date.now(), now - last]);
    last = now;
  }, STOLEN_SAMPLE_MS);
  return () => clearInterval(timer);
}

/** Connections opened before a run starts, so that its first requests do not wait for a connect. */
const OPENED_AHEAD = 16;

const openConnections = (connections: RawConnection[]) =>
  connections.reduce((open, connection) => (connection.closed ? open : open + 1), 0);

/**
 * Sends `load` to `baseUrl` at `rate` a second for `seconds`, open-loop (see the module comment),
 * over bench/raw-http.ts's connections, a new one whenever every open one is busy, up to
 * CONNECTIONS; past that a request waits, oldest first, for the first connection to come free (its
 * latency still counted from its due instant). Each request goes out at its due instant as
 * bench/due-clock.ts tells it. What the generator adds is its own lateness (`sendLateness`: its
 * event loop busy when a request fell due), counted against the server like any other delay.
 */
async function openLoop(baseUrl: string, load: Load, rate: number, seconds: number): Promise<Latencies> {
  const { hostname, port } = new URL(baseUrl);
  const connect = () => new RawConnection(Number(port), hostname);
  const idle = Array.from({ length: Math.min(OPENED_AHEAD, CONNECTIONS) }, connect);
  await Promise.all(idle.map((connection) => connection.opened()));
  const all = [...idle];
  const total = Math.round(rate * seconds);
  const result: Latencies = {
    due: new Float64Array(total),
    latency: new Float64Array(total).fill(NaN),
    sendLateness: new Float64Array(total),
    sent: 0,
    connections: 0,
    startEpochMs: 0,
    stolen: [],
  };
  const headers = load.headers as Record<string, string> | undefined;
  const body = typeof load.body === 'string' ? load.body : undefined;
  const request = requestBytes(load.method ?? 'GET', load.path ?? '/', `${hostname}:${port}`, headers ?? {}, body);
  const interval = 1000 / rate;
  let answered = 0;
  let start = 0;
  const { promise: finished, resolve } = Promise.withResolvers<Latencies>();
  const stopSampling = sampleStolen(result.stolen);
  const done = () => {
    if (++answered < total) return;
    for (const connection of all) connection.close();
    stopSampling();
    result.connections = all.length;
    resolve(result);
  };
  /** Requests due while every connection was busy and none more may be opened, oldest first. */
  const waiting: number[] = [];
  const sendOn = (connection: RawConnection, index: number) => {
    connection.send(request).then(
      (status) => {
        if (status < 300) result.latency[index] = performance.now() - start - result.due[index]!;
        const next = waiting.shift();
        if (next === undefined) idle.push(connection);
        else sendOn(connection, next);
        done();
      },
      () => {
        // The connection is gone: a request waiting for one goes out on a new one in its place.
        const next = waiting.shift();
        if (next !== undefined) {
          const replacement = connect();
          all.push(replacement);
          sendOn(replacement, next);
        }
        done();
      },
    );
  };
  const send = (index: number) => {
    const due = index * interval;
    result.due[index] = due;
    result.sendLateness[index] = performance.now() - start - due;
    let connection = idle.shift();
    while (connection?.closed) connection = idle.shift();
    if (!connection && openConnections(all) < CONNECTIONS) all.push((connection = connect()));
    if (connection) sendOn(connection, index);
    else waiting.push(index);
  };
  // Messages the event loop got to late arrive together: each index is sent once, in order.
  start = await startDueClock(interval, total, (index) => {
    while (result.sent <= index) send(result.sent++);
  });
  result.startEpochMs = performance.timeOrigin + start;
  return finished;
}

/** The value at `share` (0 to 1) of `sorted`, ms to 0.01. */
const percentile = (sorted: number[], share: number) =>
  sorted.length ? Math.round(sorted[Math.max(0, Math.ceil(share * sorted.length) - 1)]! * 100) / 100 : NaN;

/**
 * p50, p99, p99.9 and the largest latency (ms, to 0.01), how many failed, and the generator's own
 * send lateness at p99, of the requests whose due time is in [from, to).
 */
function figures({ due, latency, sendLateness }: Latencies, from = 0, to = Infinity) {
  const kept: number[] = [];
  const late: number[] = [];
  let failed = 0;
  for (let index = 0; index < due.length; index++) {
    if (due[index]! < from || due[index]! >= to) continue;
    late.push(sendLateness[index]!);
    if (Number.isNaN(latency[index])) failed++;
    else kept.push(latency[index]!);
  }
  kept.sort((a, b) => a - b);
  late.sort((a, b) => a - b);
  return {
    requests: kept.length + failed,
    'p50 ms': percentile(kept, 0.5),
    'p99 ms': percentile(kept, 0.99),
    'p99.9 ms': percentile(kept, 0.999),
    'max ms': percentile(kept, 1),
    failed,
    'sent late p99 ms': percentile(late, 0.99),
  };
}

/** The service's Node flags: LATENCY_NODE_FLAGS or the start script's, with the probe when asked for. */
const nodeFlags = () => [
  ...(NODE_FLAGS ?? SERVICE_NODE_FLAGS),
  ...(PROBE ? [`--import=${fileURLToPath(new URL('./service-probe.ts', import.meta.url))}`] : []),
];

/** The service, or another entry with its conventions (the baseline), as `npm start` starts it. */
const serve = (env: Record<string, string>, probeFile: string | undefined, entry = SERVICE_ENTRY) =>
  spawnService(probeFile ? { ...env, SERVICE_PROBE_FILE: probeFile } : env, {
    discardLogsAfterStart: true,
    nodeArguments: [...nodeFlags(), entry],
  });

/** Stops the service; with LATENCY_PROBE, what its probe recorded (bench/service-probe.ts). */
async function stop(server: ServiceProcess, probeFile: string | undefined): Promise<ProbeRecord | undefined> {
  server.child.kill('SIGTERM');
  await server.exited;
  return probeFile ? (JSON.parse(await readFile(probeFile, 'utf8')) as ProbeRecord) : undefined;
}

/** What held the service's event loop in [from, to), ms from the epoch (bench/service-probe.ts). */
function held(probe: ProbeRecord, from: number, to: number) {
  const within = ([start]: [number, ...unknown[]]) => start >= from && start < to;
  const pauses = probe.pauses.filter(within);
  const gaps = probe.gaps.filter(within);
  return {
    'GC ms': Math.round(pauses.reduce((sum, [, duration]) => sum + duration, 0) * 10) / 10,
    'major GCs': pauses.filter(([, , major]) => major).length,
    'loop held ms': Math.round(gaps.reduce((longest, [, duration]) => Math.max(longest, duration), 0) * 10) / 10,
  };
}

/** CPU time the hypervisor took from the machine in [from, to), ms from the epoch, as held() takes them. */
function stolenWithin(stolen: Latencies['stolen'], from: number, to: number): number {
  const taken = stolen.filter(([at]) => at >= from && at < to);
  return Math.round(taken.reduce((sum, [, ms]) => sum + ms, 0));
}

/**
 * The check at each rate on `server`, after a warm-up at the first: one run each, its request
 * labelled after `who`, with the server's CPU per request.
 */
async function checksAtRates(server: ServiceProcess, load: Load, who: string): Promise<Run[]> {
  await openLoop(server.baseUrl, load, RATES[0]!, WARMUP_SECONDS);
  const runs: Run[] = [];
  for (const rate of RATES) {
    const cpuBefore = cpuMicroseconds(server.pid);
    const latencies = await openLoop(server.baseUrl, load, rate, SECONDS);
    const cpuPerRequest = Math.round((cpuMicroseconds(server.pid) - cpuBefore) / latencies.due.length);
    runs.push({ request: `${who}check (i) at ${rate}/s`, latencies, cpuPerRequest });
  }
  return runs;
}

interface Run {
  request: string;
  latencies: Latencies;
  /** The service's CPU (user and system, every thread) per request, for the check's runs. */
  cpuPerRequest?: number;
}

/**
 * The check at each rate, on a service seeded and warmed up; then `/healthz` from a fresh start.
 * Each run's rows are added once its service has stopped (its probe is written then): each on
 * stderr, so that a bench stopped midway keeps the services it finished.
 */
async function measure(name: string, env: Record<string, string>, withBaseline = false) {
  const rows: Record<string, unknown>[] = [];
  let servers = 0;
  const probeFolder = PROBE ? await mkdtemp(join(tmpdir(), 'orgs-latency-probe-')) : undefined;
  // A run's figures, then second by second: where in it a stall fell, how long its backlog took to
  // drain, and with LATENCY_PROBE what held the service's event loop meanwhile.
  const add = ({ request, latencies, cpuPerRequest }: Run, probe: ProbeRecord | undefined) => {
    const row = (label: string, from: number, to: number, extra: Record<string, unknown> = {}) => {
      const [fromEpoch, toEpoch] = [latencies.startEpochMs + from, latencies.startEpochMs + to];
      const figured = {
        database: name,
        request: label,
        ...figures(latencies, from, to),
        ...extra,
        'CPU stolen ms': stolenWithin(latencies.stolen, fromEpoch, toEpoch),
        ...(probe && held(probe, fromEpoch, toEpoch)),
      };
      console.error(JSON.stringify(figured));
      rows.push(figured);
    };
    row(request, 0, SECONDS * 1000, {
      connections: latencies.connections,
      // Against `npm run bench`'s closed-loop figure for (i), what requests arriving one by one cost.
      ...(cpuPerRequest !== undefined && { 'server CPU µs/req': cpuPerRequest }),
    });
    for (let second = 0; second < SECONDS; second++) row(`  second ${second + 1}`, second * 1000, (second + 1) * 1000);
  };
  /** Starts a server, runs `work` on it, stops it, and adds the runs' rows with what its probe recorded. */
  const onServer = async (
    serverEnv: Record<string, string>,
    entry: string,
    work: (server: ServiceProcess) => Promise<Run[]>,
  ) => {
    const probeFile = probeFolder && join(probeFolder, `${++servers}.json`);
    const server = await serve(serverEnv, probeFile, entry);
    let runs: Run[];
    let probe: ProbeRecord | undefined;
    try {
      runs = await work(server);
    } finally {
      probe = await stop(server, probeFile);
    }
    for (const run of runs) add(run, probe);
  };
  try {
    let load: Load | undefined;
    await onServer(env, SERVICE_ENTRY, async (service) => {
      const seeded = await seed(service.baseUrl, { big: false });
      const check = SCENARIOS.find((scenario) => scenario.letter === 'i')!;
      load = await check.load(seeded, { id: 'latency', size: { duration: SECONDS } });
      return checksAtRates(service, load, '');
    });
    // The baseline reads the database the service seeded, the same check at the same rates.
    if (withBaseline)
      await onServer({ ...env, BASELINE_DUTIES: 'true' }, BASELINE_ENTRY, (baseline) =>
        checksAtRates(baseline, load!, 'baseline: '),
      );
    await onServer(env, SERVICE_ENTRY, async (fresh) => [
      {
        request: `/healthz at ${HEALTH_RATE}/s from the start`,
        latencies: await openLoop(fresh.baseUrl, { path: '/healthz' }, HEALTH_RATE, SECONDS),
      },
    ]);
  } finally {
    if (probeFolder) await rm(probeFolder, { recursive: true, force: true });
  }
  return rows;
}

async function main() {
  await buildService();
  if (BASELINE) await buildBaseline();
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
        rows.push(...(await measure(name, { ...env, DATABASE_URL: database.url }, BASELINE)));
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
  console.log(`Node flags: ${nodeFlags().join(' ')}`);
  console.table(rows);
}

await main();
