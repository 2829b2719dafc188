/**
 * `npm run bench:galera`: what running on a 3-node MariaDB Galera cluster costs the service.
 * Starts a cluster of its own (tests/support/galera.ts: needs root, mariadbd and galera-4) and
 * two service processes as in production, first both on node 1, then on nodes 1 and 2, and
 * measures in each layout, on a fresh database:
 *
 * - the race of tests/galera.test.ts: in organizations with two owners, the owners demote each
 *   other at the same moment, one through each instance; rounds per second and how they ended;
 * - contended changes: both instances flip members' roles in one organization at once, so every
 *   change races the other instance's; changes per second, statuses, and retries per 1,000.
 *
 * Then the cost of `wsrep_sync_wait` on reads on node 2, idle and while node 1 takes writes: the
 * member-list query over SQL, and `GET /organization-user` through instances on node 2.
 *
 * Retries are read from each instance's metrics (`db_transaction_conflicts_total`, on a
 * METRICS_PORT of its own): every lost conflict the transaction helper ran again.
 *
 * Settings: BENCH_ROUNDS (race rounds per layout, default 200), BENCH_CHANGES (contended changes
 * per layout, default 1000), BENCH_CONCURRENCY (requests in flight per instance, default 4),
 * BENCH_READ_SECONDS (per read measurement, default 5, after BENCH_WARMUP seconds unmeasured,
 * default 2). Prints two tables, then everything as JSON. The machine's 2 cores run the three
 * nodes, the instances and this driver together: compare the figures of one run with each other.
 */
import mysql from 'mysql2/promise';
import { GaleraCluster } from '../tests/support/galera.ts';
import { pooled } from '../tests/support/pooled.ts';
import { buildService, spawnService, type ServiceProcess, killServicesOnSignals } from '../tests/support/process.ts';
import { TEST_SECRET, tokenFor } from '../tests/support/tokens.ts';
import { restCall } from '../tests/support/rest-call.ts';

killServicesOnSignals();

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 2);
const READ_MEMBERS = 100;

interface User {
  id: string;
  email: string;
  token: string;
}

let nextUser = 0;

/** One REST call; the status and the parsed body. */
const call = (
  instance: ServiceProcess,
  method: string,
  path: string,
  token: string,
  body?: object,
  organizationId?: string,
) => restCall(instance.baseUrl, method, path, token, body, organizationId);

/** A call in the set-up, which must succeed. */
async function setup(
  instance: ServiceProcess,
  method: string,
  path: string,
  token: string,
  body?: object,
  organizationId?: string,
) {
  const result = await call(instance, method, path, token, body, organizationId);
  if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

async function user(instance: ServiceProcess): Promise<User> {
  const id = `galera-bench-${process.pid}-${nextUser++}`;
  const token = await tokenFor(id, { role: 'owner', expiresIn: '2h' });
  const email = `${id}@example.com`;
  await setup(instance, 'POST', '/users', token, { first_name: 'Bench', last_name: 'User', email });
  return { id, email, token };
}

async function organization(instance: ServiceProcess, owner: User, members: Array<{ user: User; role: string }>) {
  const { organization_id } = await setup(instance, 'POST', '/organizations', owner.token, {
    organization_name: 'bench',
    organization_description: '',
  });
  for (const member of members) {
    await setup(
      instance,
      'POST',
      '/organization-user',
      owner.token,
      { email: member.user.email, role: member.role },
      organization_id,
    );
  }
  return organization_id as string;
}

/** Retried conflicts so far, summed over the instances' metrics (the URL is in each start line). */
async function retries(instances: ServiceProcess[]): Promise<number> {
  let total = 0;
  for (const instance of instances) {
    const start = instance.lines.map((line) => JSON.parse(line)).find((entry) => entry.metrics);
    const scrape = await (await fetch(start.metrics)).text();
    total += Number(/^db_transaction_conflicts_total\{outcome="retried"\} (\d+)/m.exec(scrape)?.[1] ?? 0);
  }
  return total;
}

const tally = (statuses: number[]) =>
  Object.fromEntries(
    [...new Set(statuses)].sort().map((status) => [status, statuses.filter((each) => each === status).length]),
  );

const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000 * 10) / 10;

const spawnInstance = (databaseUrl: string, migrate: boolean) =>
  spawnService({
    NODE_ENV: 'production',
    JWT_SECRET: TEST_SECRET,
    RATE_LIMIT_MAX: '0',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    MIGRATE_ON_START: String(migrate),
    METRICS_PORT: '0',
  });

/** Instances on `nodes` over a fresh database; the first migrates, the others start after it (the migration lock is node-local). */
async function startInstances(cluster: GaleraCluster, nodes: number[]) {
  const database = await cluster.createDatabase();
  const instances: ServiceProcess[] = [];
  for (const [index, node] of nodes.entries())
    instances.push(await spawnInstance(cluster.url(node, database), index === 0));
  return { database, instances };
}

async function stopInstances(instances: ServiceProcess[]) {
  for (const instance of instances) {
    instance.child.kill('SIGTERM');
    await instance.exited;
  }
}

/** The race of tests/galera.test.ts, CONCURRENCY organizations at a time. */
async function race([first, second]: ServiceProcess[]) {
  const organizations = await pooled(ROUNDS, 8, async () => {
    const a = await user(first!);
    const b = await user(first!);
    return { a, b, id: await organization(first!, a, [{ user: b, role: 'owner' }]) };
  });
  const retriesBefore = await retries([first!, second!]);
  const started = performance.now();
  const rounds = await pooled(ROUNDS, CONCURRENCY, async (index) => {
    const { a, b, id } = organizations[index]!;
    const results = await Promise.all([
      call(first!, 'PUT', '/organization-user', a.token, { user_id: b.id, role: 'member' }, id),
      call(second!, 'PUT', '/organization-user', b.token, { user_id: a.id, role: 'member' }, id),
    ]);
    return results.map((result) => result.status).sort();
  });
  const elapsedMs = performance.now() - started;
  return {
    rounds: ROUNDS,
    roundsPerSecond: perSecond(ROUNDS, elapsedMs),
    oneWinner: rounds.filter(([winner, loser]) => winner === 200 && [403, 409].includes(loser!)).length,
    bothApplied: rounds.filter(([winner, loser]) => winner === 200 && loser === 200).length,
    withServerError: rounds.filter((statuses) => statuses.some((status) => status >= 500)).length,
    statuses: tally(rounds.flat()),
    retries: (await retries([first!, second!])) - retriesBefore,
  };
}

/** Both instances flip members' roles in one organization, CONCURRENCY requests in flight each. */
async function contendedChanges(instances: ServiceProcess[]) {
  const owner = await user(instances[0]!);
  const workers = instances.length * CONCURRENCY;
  const members = await pooled(workers, 8, () => user(instances[0]!));
  const organizationId = await organization(
    instances[0]!,
    owner,
    members.map((member) => ({ user: member, role: 'member' })),
  );
  const retriesBefore = await retries(instances);
  const statuses: number[] = [];
  const started = performance.now();
  // Worker w flips member w, through instance w % 2, and stops once CHANGES changes were sent.
  await Promise.all(
    members.map(async (member, worker) => {
      const instance = instances[worker % instances.length]!;
      for (let flip = 0; statuses.length < CHANGES; flip++) {
        const role = flip % 2 === 0 ? 'admin' : 'member';
        statuses.push(
          (await call(instance, 'PUT', '/organization-user', owner.token, { user_id: member.id, role }, organizationId))
            .status,
        );
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const retried = (await retries(instances)) - retriesBefore;
  return {
    changes: statuses.length,
    changesPerSecond: perSecond(statuses.length, elapsedMs),
    statuses: tally(statuses),
    retries: retried,
    retriesPer1000Changes: Math.round((retried / statuses.length) * 1000 * 10) / 10,
  };
}

/**
 * Runs `jobs` in a closed loop with `concurrency` in flight, taking turns (so that a load that
 * drifts over time weighs on each alike): WARMUP_SECONDS unmeasured (a fresh instance's code is not
 * optimised yet), then READ_SECONDS measured. Per job: calls per second and latency.
 */
async function closedLoop(concurrency: number, jobs: Array<() => Promise<void>>) {
  let turn = 0;
  const run = async (seconds: number, latencies: number[][]) => {
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          const job = turn++ % jobs.length;
          const before = performance.now();
          await jobs[job]!();
          latencies[job]!.push(performance.now() - before);
        }
      }),
    );
  };
  await run(
    WARMUP_SECONDS,
    jobs.map(() => []),
  );
  const latencies = jobs.map((): number[] => []);
  const started = performance.now();
  await run(READ_SECONDS, latencies);
  const elapsedMs = performance.now() - started;
  return latencies.map((each) => {
    each.sort((a, b) => a - b);
    const at = (fraction: number) => Math.round(each[Math.floor(fraction * (each.length - 1))]! * 100) / 100;
    return { perSecond: perSecond(each.length, elapsedMs), p50Ms: at(0.5), p99Ms: at(0.99) };
  });
}

/** Role flips through `instance` until `stop()` is called: the write load the reads run beside. */
function writeLoad(instance: ServiceProcess, owner: User, members: User[], organizationId: string) {
  let running = true;
  const done = Promise.all(
    members.slice(0, CONCURRENCY).map(async (member) => {
      for (let flip = 0; running; flip++) {
        const role = flip % 2 === 0 ? 'admin' : 'member';
        await call(instance, 'PUT', '/organization-user', owner.token, { user_id: member.id, role }, organizationId);
      }
    }),
  );
  return async () => {
    running = false;
    await done;
  };
}

const MEMBER_LIST =
  'select u.id, u.email, m.role, m.created_at from organization_users m join users u on u.id = m.user_id where m.organization_id = ?';

/**
 * Reads on node 2 with wsrep_sync_wait 0 and 1, idle and while node 1 takes role changes: the
 * member-list query over SQL, and `GET /organization-user` through two instances on node 2. Each
 * pair takes turns in one loop, so that a load that drifts weighs on both alike. The service has no
 * setting for it, so the second instance connects as an account of its own whose sessions start
 * with wsrep_sync_wait=1 (node 2's init_connect sets it by account).
 */
async function syncWaitCost(cluster: GaleraCluster) {
  const { database, instances } = await startInstances(cluster, [0]);
  const writer = instances[0]!;
  const owner = await user(writer);
  const members = await pooled(READ_MEMBERS - 1, 8, () => user(writer));
  const organizationId = await organization(
    writer,
    owner,
    members.map((member) => ({ user: member, role: 'member' })),
  );
  const root = await cluster.rootConnection(1);
  const SYNCING = 'orgs_sync';
  for (const host of ['127.0.0.1', 'localhost']) {
    await root.query(`CREATE USER '${SYNCING}'@'${host}' IDENTIFIED BY 'orgs'`);
    await root.query(`GRANT ALL PRIVILEGES ON \`${database}\`.* TO '${SYNCING}'@'${host}'`);
  }
  await root.query(
    `SET GLOBAL init_connect = "SET SESSION wsrep_sync_wait = IF(SUBSTRING_INDEX(CURRENT_USER(), '@', 1) = '${SYNCING}', 1, 0)"`,
  );
  const urls = [cluster.url(1, database), cluster.url(1, database).replace('//orgs:', `//${SYNCING}:`)];
  const sessions = await Promise.all(
    urls.map((url) => mysql.createConnection({ uri: url.replace(/^mariadb:/, 'mysql:') })),
  );
  const readers: ServiceProcess[] = [];
  const results: Record<string, { syncWait0: Rate; syncWait1: Rate }> = {};
  try {
    for (const [expected, session] of sessions.entries()) {
      const [[row]] = await session.query<mysql.RowDataPacket[]>('select @@wsrep_sync_wait as value');
      if (Number(row!.value) !== expected) throw new Error(`init_connect did not set wsrep_sync_wait=${expected}`);
    }
    for (const url of urls) readers.push(await spawnInstance(url, false));
    for (const load of ['idle', 'node 1 taking writes'] as const) {
      const stopWrites = load === 'idle' ? async () => {} : writeLoad(writer, owner, members, organizationId);
      try {
        const [sql0, sql1] = await closedLoop(
          1,
          sessions.map((session) => async () => void (await session.query(MEMBER_LIST, [organizationId]))),
        );
        results[`SQL member list, ${load}`] = { syncWait0: sql0!, syncWait1: sql1! };
        const [http0, http1] = await closedLoop(
          CONCURRENCY,
          readers.map((reader) => async () => {
            const { status } = await call(reader, 'GET', '/organization-user', owner.token, undefined, organizationId);
            if (status !== 200) throw new Error(`GET /organization-user: ${status}`);
          }),
        );
        results[`GET /organization-user, ${load}`] = { syncWait0: http0!, syncWait1: http1! };
      } finally {
        await stopWrites();
      }
    }
  } finally {
    await root.query("SET GLOBAL init_connect = ''");
    await root.end();
    for (const session of sessions) await session.end();
    await stopInstances([...readers, ...instances]);
  }
  return results;
}

type Layout = {
  race: Awaited<ReturnType<typeof race>>;
  contendedChanges: Awaited<ReturnType<typeof contendedChanges>>;
};
type Rate = Awaited<ReturnType<typeof closedLoop>>[number];

function printTables(layouts: Record<string, Layout>, reads: Awaited<ReturnType<typeof syncWaitCost>>) {
  const rows = [
    '| layout | race rounds/s | race rounds: one winner / both applied / with 5xx | contended changes/s | contended statuses | retries per 1,000 contended changes |',
    '|---|---|---|---|---|---|',
  ];
  for (const [name, { race, contendedChanges: changes }] of Object.entries(layouts)) {
    rows.push(
      `| ${name} | ${race.roundsPerSecond} | ${race.oneWinner} / ${race.bothApplied} / ${race.withServerError} of ${race.rounds} | ${changes.changesPerSecond} | ${JSON.stringify(changes.statuses)} | ${changes.retriesPer1000Changes} |`,
    );
  }
  // Both settings take turns in one loop, so their calls per second are equal: latency tells the cost.
  rows.push('', '| read on node 2 | wsrep_sync_wait=0: p50/p99 ms | wsrep_sync_wait=1: p50/p99 ms |', '|---|---|---|');
  for (const [name, { syncWait0, syncWait1 }] of Object.entries(reads)) {
    rows.push(`| ${name} | ${syncWait0.p50Ms}/${syncWait0.p99Ms} | ${syncWait1.p50Ms}/${syncWait1.p99Ms} |`);
  }
  console.log(rows.join('\n'));
}

const cluster = new GaleraCluster();
await buildService();
await cluster.start();
console.error(`cluster up in ${cluster.startupMs} ms`);
try {
  const layouts: Record<string, Layout> = {};
  for (const [name, nodes] of [
    ['both instances on node 1', [0, 0]],
    ['instances on nodes 1 and 2', [0, 1]],
  ] as const) {
    const { instances } = await startInstances(cluster, [...nodes]);
    try {
      layouts[name] = { race: await race(instances), contendedChanges: await contendedChanges(instances) };
    } finally {
      await stopInstances(instances);
    }
    console.error(`${name}: done`);
  }
  const reads = await syncWaitCost(cluster);
  printTables(layouts, reads);
  console.log(
    JSON.stringify(
      {
        clusterStartupMs: cluster.startupMs,
        settings: { ROUNDS, CHANGES, CONCURRENCY, READ_SECONDS, WARMUP_SECONDS },
        layouts,
        reads,
      },
      null,
      2,
    ),
  );
} finally {
  await cluster.destroy();
}
