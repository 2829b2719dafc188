/**
 * `npm run bench:ab -- ENTRY_A ENTRY_B [...]`: two or more server bundles (the service's
 * `dist/server/main.js` of two commits, or the baseline's `dist/bench/baseline.js`) measured in
 * turns on one seeded MariaDB database, the order of the servers alternating from round to round,
 * so that the machine's drift falls on each alike. The scenarios are those of `npm run bench`
 * (bench/scenarios.ts), each one timed here, (g) too, and what it changes put back after its
 * measured run. Per scenario and server it prints the median requests per second (and, against the
 * first server's in the same round, the least and most of the rounds), CPU time per request and
 * statements sent per request (MariaDB's `Questions`), and the CPU time the hypervisor took from
 * the machine in its worst run, ms a second. For a verdict on a change of a few per cent, which
 * one `npm run bench` cannot give on a machine whose figures move by 10 to 30 % from run to run.
 *
 * Settings: AB_SCENARIOS (letters, default `abcegh`; `d`, the list of 10,000 members, seeds 10,000
 * users more; `i`, `j` and `k` are the permission checks, for which every server starts with the
 * bench's ROLES_FILE, bench/permissions.ts; `k` seeds 20 teams, through the first entry, which must
 * then know teams; a scenario that says what its answers must be, as (i) and (k) do, is asked once
 * on each server before it is measured, and stops the bench when answered otherwise), AB_ROUNDS
 * (default 4), AB_SECONDS (measured seconds per scenario and round, default 5, after 2 of
 * warm-up), BENCH_BASELINE_DUTIES=true (as for npm run bench: the baseline also logs a line per
 * request with its id and sends the security headers), BENCH_CONNECTIONS (bench/scenarios.ts),
 * AB_PROFILE_DIR (a CPU profile of each
 * server run written there, `node --cpu-prof`), AB_ALLOCATIONS_DIR (what each server allocates in
 * each measured run, garbage included, written there, and its KB per request printed:
 * bench/allocations.ts), AB_PROMISES_DIR (the promises each server creates per request printed,
 * and where it makes them written there, per server run: with one scenario in AB_SCENARIOS, that
 * scenario's; bench/promise-count.ts. The hook that counts them slows every server, so such a
 * run's req/s and CPU are not figures to keep). The first entry must be the service: it creates
 * the schema.
 *
 * An entry written `PATH:traced=RATIO` is the service started with tracing on (docs/operations.md,
 * "Traces"), sampling RATIO of the requests (`traceidratio`), exporting to an OTLP receiver the
 * bench runs on loopback (bench/otlp-sink.ts), whose CPU counts with the load's. Tracing's cost:
 * `npm run bench:ab -- BEFORE/main.js dist/server/main.js dist/server/main.js:traced=1
 * dist/server/main.js:traced=0.1`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { freePorts } from '../tests/support/ports.ts';
import {
  SERVICE_ENTRY,
  SERVICE_NODE_FLAGS,
  spawnService,
  type ServiceProcess,
  killServicesOnSignals,
} from '../tests/support/process.ts';
import { TEST_SECRET } from '../tests/support/tokens.ts';
import { profileAllocations } from './allocations.ts';
import { createDatabase } from './database.ts';
import { writeRolesFile } from './permissions.ts';
import { cpuMicroseconds, machineStolenMs } from './process-usage.ts';
import { autocannonOptions, scenariosOf, title } from './scenarios.ts';
import { seed } from './seed.ts';
import { startOtlpSink } from './otlp-sink.ts';
import { PROMISE_COUNT_INTERVAL_MS } from './promise-count.ts';

killServicesOnSignals();

const SCENARIOS = scenariosOf(process.env.AB_SCENARIOS ?? 'abcegh');
const ROUNDS = Number(process.env.AB_ROUNDS ?? 4);
const SECONDS = Number(process.env.AB_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
const ALLOCATIONS_DIR = process.env.AB_ALLOCATIONS_DIR;
const PROMISES_DIR = process.env.AB_PROMISES_DIR;
// The servers and the allocation profiles write their files there, which need not exist yet.
for (const dir of [ALLOCATIONS_DIR, PROMISES_DIR]) if (dir) mkdirSync(dir, { recursive: true });
const PROMISE_COUNTER = resolve(import.meta.dirname, 'promise-count.ts');

/** An entry as given: `PATH`, or `PATH:traced=RATIO` (module comment). */
interface Entry {
  path: string;
  /** With tracing on, the share of requests sampled. */
  tracedRatio?: number;
}

function parseEntry(argument: string): Entry {
  const traced = /^(.*):traced=(0(?:\.\d+)?|1)$/.exec(argument);
  return traced ? { path: resolve(traced[1]!), tracedRatio: Number(traced[2]) } : { path: resolve(argument) };
}

const entries = process.argv.slice(2).map(parseEntry);
if (entries.length < 1) {
  console.error('usage: npm run bench:ab -- ENTRY[:traced=RATIO] [ENTRY[:traced=RATIO] ...]');
  process.exit(2);
}

let runs = 0;

/** MariaDB's counts of statements received, and of those that ran as prepared statements. */
async function statementCounts(connection: Awaited<ReturnType<typeof createDatabase>>['connection']) {
  const [rows] = (await connection.query(
    "show global status where variable_name in ('Questions', 'Com_stmt_execute')",
  )) as unknown as [{ Variable_name: string; Value: string }[]];
  const count = (name: string) => Number(rows.find((row) => row.Variable_name === name)!.Value);
  return { all: count('Questions'), prepared: count('Com_stmt_execute') };
}

interface Sample {
  rps: number;
  cpuMicros: number;
  databaseCpuMicros: number;
  /** This process's, which drives the load (autocannon). */
  loadCpuMicros: number;
  statements: number;
  prepared: number;
  /** CPU time the hypervisor took from the machine during the run (bench/process-usage.ts), ms a second. */
  stolenMsPerSecond: number;
  /** KB allocated per request, with AB_ALLOCATIONS_DIR. */
  allocatedKb?: number;
  /** Promises created per request, with AB_PROMISES_DIR. */
  promises?: number;
}

/** What bench/promise-count.ts last wrote to `file`: the promises and requests so far. */
async function promiseCounts(file: string) {
  // Its next write, so that the figures are no older than the run they frame.
  await sleep(2 * PROMISE_COUNT_INTERVAL_MS);
  const [promises, requests] = readFileSync(file, 'utf8').split(' ').map(Number);
  return { promises: promises!, requests: requests! };
}

/** The MariaDB server the test account reaches (the oldest mariadbd: tests start their own later). */
const databasePid = Number(execFileSync('pgrep', ['-o', 'mariadbd']).toString().trim());

/**
 * Node's flags for an entry as `npm start` (and `npm run bench`) start it: the service's bundle with
 * those of the start script (its young generation capped), anything else with none.
 */
const startFlags = (entry: string) => (basename(entry) === basename(SERVICE_ENTRY) ? SERVICE_NODE_FLAGS : []);

/** How a traced entry starts: exporting to the bench's own OTLP receiver, sampling `ratio` of the requests. */
const tracedEnv = (url: string, ratio: number) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_TRACES_SAMPLER: 'traceidratio',
  OTEL_TRACES_SAMPLER_ARG: String(ratio),
});

const describe = ({ path, tracedRatio }: Entry) =>
  tracedRatio === undefined ? path : `${path}, traced, ${tracedRatio * 100} % sampled`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const spread = (values: number[]) => `${Math.min(...values).toFixed(2)} to ${Math.max(...values).toFixed(2)}`;

/** Each round's req/s over the first server's in the same round. */
const rpsRatios = (list: Sample[], first: Sample[]) => list.map((sample, round) => sample.rps / first[round]!.rps);

async function main() {
  const database = await createDatabase('ab');
  const otlpSink = await startOtlpSink();
  // ROLES_FILE: the application permissions that (j) checks.
  const env = {
    DATABASE_URL: database.url,
    JWT_SECRET: TEST_SECRET,
    NODE_ENV: 'production',
    RATE_LIMIT_MAX: '0',
    ROLES_FILE: await writeRolesFile(),
    // The baseline with the service's per-request duties (bench/baseline.ts); the service ignores it.
    ...(process.env.BENCH_BASELINE_DUTIES === 'true' && { BASELINE_DUTIES: 'true' }),
  };
  const samples = new Map<string, Sample[]>();
  const servers: ServiceProcess[] = [];
  try {
    const seeder = await spawnService({ ...env, SCRIPT: entries[0]!.path }, { discardLogsAfterStart: true });
    servers.push(seeder);
    const seeded = await seed(seeder.baseUrl, {
      big: SCENARIOS.some((scenario) => scenario.letter === 'd'),
      teams: SCENARIOS.some((scenario) => scenario.letter === 'k'),
      key: SCENARIOS.some((scenario) => scenario.letter === 'm'),
    });
    seeder.kill();
    for (let round = 0; round < ROUNDS; round++) {
      const order = entries.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const profile = process.env.AB_PROFILE_DIR
          ? [`--cpu-prof --cpu-prof-dir=${process.env.AB_PROFILE_DIR} --cpu-prof-name=${index}-${round}.cpuprofile`]
          : [];
        const entry = entries[index]!;
        const [inspectorPort] = ALLOCATIONS_DIR ? await freePorts(1) : [];
        const inspector = inspectorPort ? [`--inspect=127.0.0.1:${inspectorPort}`] : [];
        const promiseCounter = PROMISES_DIR ? ['--enable-source-maps', `--import=${PROMISE_COUNTER}`] : [];
        const promiseCountFile = PROMISES_DIR && join(PROMISES_DIR, `${index}-${round}`);
        const nodeOptions = [...startFlags(entry.path), ...profile, ...inspector, ...promiseCounter].join(' ');
        const server = await spawnService(
          {
            ...env,
            ...(nodeOptions && { NODE_OPTIONS: nodeOptions }),
            ...(promiseCountFile && { PROMISE_COUNT_FILE: promiseCountFile }),
            ...(entry.tracedRatio !== undefined && tracedEnv(otlpSink.url, entry.tracedRatio)),
            SCRIPT: entry.path,
          },
          { discardLogsAfterStart: true },
        );
        servers.push(server);
        for (const scenario of SCENARIOS) {
          await scenario.verify?.(server.baseUrl, seeded);
          // One load for the warm-up and the measured run that follows it.
          const size = { duration: WARMUP_SECONDS + SECONDS };
          const load = await scenario.load(seeded, { id: String(++runs), size });
          const drive = (duration: number) =>
            autocannon(autocannonOptions(server.baseUrl, scenario, load, { duration }));
          await drive(WARMUP_SECONDS);
          // Outside the window the CPU is measured in: each read waits for the counter's next write.
          const promisesBefore = promiseCountFile ? await promiseCounts(promiseCountFile) : undefined;
          const cpuBefore = cpuMicroseconds(server.pid);
          const databaseCpuBefore = cpuMicroseconds(databasePid);
          const loadCpuBefore = process.cpuUsage();
          const stolenBefore = machineStolenMs();
          const countsBefore = await statementCounts(database.connection);
          const allocations = inspectorPort ? await profileAllocations(inspectorPort) : undefined;
          const result = await drive(SECONDS);
          const allocated = await allocations?.stop(
            join(ALLOCATIONS_DIR!, `${index}-${round}-${scenario.letter}.heapprofile`),
          );
          const counts = await statementCounts(database.connection);
          const cpu = cpuMicroseconds(server.pid) - cpuBefore;
          const databaseCpu = cpuMicroseconds(databasePid) - databaseCpuBefore;
          const loadCpu = process.cpuUsage(loadCpuBefore);
          const stolen = machineStolenMs() - stolenBefore;
          const promisesAfter = promiseCountFile ? await promiseCounts(promiseCountFile) : undefined;
          await scenario.reset?.({ baseUrl: server.baseUrl, seeded, database: database.connection });
          if (result.non2xx || result.errors)
            console.error(`${scenario.letter} ${describe(entry)}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          const key = `${scenario.letter} ${index}`;
          samples.set(key, [
            ...(samples.get(key) ?? []),
            {
              rps: result.requests.average,
              cpuMicros: cpu / result.requests.total,
              databaseCpuMicros: databaseCpu / result.requests.total,
              loadCpuMicros: (loadCpu.user + loadCpu.system) / result.requests.total,
              // The count's own statement is one of them.
              statements: (counts.all - countsBefore.all - 1) / result.requests.total,
              prepared: (counts.prepared - countsBefore.prepared) / result.requests.total,
              stolenMsPerSecond: stolen / SECONDS,
              ...(allocated !== undefined && { allocatedKb: allocated / 1024 / result.requests.total }),
              ...(promisesBefore &&
                promisesAfter && {
                  promises:
                    (promisesAfter.promises - promisesBefore.promises) /
                    (promisesAfter.requests - promisesBefore.requests),
                }),
            },
          ]);
        }
        // SIGTERM: a profiled server writes its profile as it exits.
        server.child.kill('SIGTERM');
        await server.exited;
      }
      console.error(`round ${round + 1} of ${ROUNDS} done`);
    }
  } finally {
    for (const server of servers) server.kill();
    await database.drop();
    await otlpSink.close();
  }
  const connections = SCENARIOS.map((scenario) => `(${scenario.letter}) ${scenario.connections}`).join(', ');
  console.log(`median of ${ROUNDS} rounds, ${SECONDS} s each, connections: ${connections}`);
  entries.forEach((entry, index) => console.log(`[${index}] ${describe(entry)}`));
  const rows = [];
  for (const scenario of SCENARIOS) {
    for (let index = 0; index < entries.length; index++) {
      const list = samples.get(`${scenario.letter} ${index}`)!;
      const first = samples.get(`${scenario.letter} 0`)!;
      const ratios = rpsRatios(list, first);
      rows.push({
        scenario: title(scenario),
        server: index,
        'req/s': Math.round(median(list.map((sample) => sample.rps))),
        'CPU µs/req': Math.round(median(list.map((sample) => sample.cpuMicros))),
        'DB CPU µs/req': Math.round(median(list.map((sample) => sample.databaseCpuMicros))),
        'load CPU µs/req': Math.round(median(list.map((sample) => sample.loadCpuMicros))),
        'statements/req': median(list.map((sample) => sample.statements)).toFixed(2),
        'prepared/req': median(list.map((sample) => sample.prepared)).toFixed(2),
        // The worst round's: a round the hypervisor took much from is one to measure again.
        'CPU stolen ms/s, most': Math.round(Math.max(...list.map((sample) => sample.stolenMsPerSecond))),
        ...(ALLOCATIONS_DIR && { 'KB allocated/req': median(list.map((sample) => sample.allocatedKb!)).toFixed(1) }),
        ...(PROMISES_DIR && { 'promises/req': median(list.map((sample) => sample.promises!)).toFixed(1) }),
        // Paired with the first server's run of the same round: the machine's drift between
        // rounds cancels out.
        'req/s vs [0]': median(ratios).toFixed(2),
        // How far the rounds disagree: a difference inside this spread is not one this run shows.
        'rounds, least to most': spread(ratios),
        'CPU vs [0]': median(list.map((sample, round) => sample.cpuMicros / first[round]!.cpuMicros)).toFixed(2),
      });
    }
  }
  console.table(rows);
}

await main();
