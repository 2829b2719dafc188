/**
 * `npm run bench:ab -- ENTRY_A ENTRY_B [...]`: two or more server bundles (the service's
 * `dist/server/main.js` of two commits, or the baseline's `dist/bench/baseline.js`) measured in
 * turns on one seeded MariaDB database, the order of the servers alternating from round to round,
 * so that the machine's drift falls on each alike. Per scenario and server it prints the median
 * requests per second, CPU time per request and statements sent per request (MariaDB's
 * `Questions`). For a verdict on a change of a few per cent, which one `npm run bench` cannot give
 * on a machine whose figures move by 10 to 30 % from run to run.
 *
 * Settings: AB_SCENARIOS (letters, default `abcegh`; `d`, the list of 10,000 members, seeds 10,000
 * users more), AB_ROUNDS (default 4), AB_SECONDS (measured seconds per scenario and round, default
 * 5, after 2 of warm-up), AB_PROFILE_DIR (a CPU profile of each server run written there, `node
 * --cpu-prof`). The first entry must be the service: it creates the schema.
 */
import { execFileSync } from 'node:child_process';
import { basename, resolve } from 'node:path';
import autocannon from 'autocannon';
import { pooled } from '../tests/support/pooled.ts';
import { restCall } from '../tests/support/rest-call.ts';
import { SERVICE_ARGUMENTS, SERVICE_ENTRY, spawnService, type ServiceProcess } from '../tests/support/process.ts';
import { TEST_SECRET, tokenFor } from '../tests/support/tokens.ts';
import { createDatabase } from './database.ts';
import { newUsers, roleFlips } from './loads.ts';
import { seedOrganization, type SeedCall } from './seed.ts';
import { cpuMicroseconds } from './process-usage.ts';

const SCENARIO_LETTERS = process.env.AB_SCENARIOS ?? 'abcegh';
const ROUNDS = Number(process.env.AB_ROUNDS ?? 4);
const SECONDS = Number(process.env.AB_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
const CONNECTIONS = 32;
const MEMBERS = 100;
/** The big organization's members, and its owner's user number, seeded only for scenario (d). */
const BIG = { owner: 1_000, members: 10_000 };

const entries = process.argv.slice(2).map((entry) => resolve(entry));
if (entries.length < 1) {
  console.error('usage: npm run bench:ab -- ENTRY [ENTRY ...]');
  process.exit(2);
}

const userId = (index: number) => `ab-user-${index}`;
const email = (index: number) => `${userId(index)}@example.com`;
const owner = (index: number) => tokenFor(userId(index), { role: 'owner', expiresIn: '2h' });
const json = { 'content-type': 'application/json' };

/** A seeding call as user `as`, which must succeed. */
async function call(baseUrl: string, method: string, path: string, as: number, body: object, organizationId?: string) {
  const answer = await restCall(baseUrl, method, path, await owner(as), body, organizationId);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/**
 * An organization owned by user `from`, of users `from` to `from + members - 1`, created with those
 * users (and 32 more, outside it, for the changes): its id.
 */
async function seedUsersAndOrganization(baseUrl: string, from: number, members: number): Promise<string> {
  await pooled(members + CONNECTIONS, CONNECTIONS, (offset) =>
    call(baseUrl, 'POST', '/users', from + offset, {
      first_name: 'A',
      last_name: `B${from + offset}`,
      email: email(from + offset),
    }),
  );
  const seedCall: SeedCall = (method, path, as, body, organizationId) =>
    call(baseUrl, method, path, as, body, organizationId);
  return seedOrganization(seedCall, from, members, 'ab', email);
}

type Load = Partial<autocannon.Options> & { path?: string };
let runs = 0;

interface Organizations {
  small: string;
  /** Seeded only when (d) is selected. */
  big?: string;
}

const SCENARIOS: Record<
  string,
  { name: string; connections?: number; load: (organizations: Organizations) => Promise<Load> }
> = {
  a: {
    name: 'GET /api/users',
    load: async () => ({ path: '/api/users', headers: { authorization: `Bearer ${await owner(0)}` } }),
  },
  b: {
    name: 'GET /organization-user/{id}',
    load: async ({ small }) => ({
      path: `/organization-user/${userId(50)}`,
      headers: { authorization: `Bearer ${await owner(0)}`, organization_id: small },
    }),
  },
  c: {
    name: `GET /organization-user, ${MEMBERS}`,
    load: async ({ small }) => ({
      path: '/organization-user',
      headers: { authorization: `Bearer ${await owner(0)}`, organization_id: small },
    }),
  },
  d: {
    name: `GET /organization-user, ${BIG.members.toLocaleString('en')}`,
    connections: 4,
    load: async ({ big }) => ({
      path: '/organization-user',
      headers: { authorization: `Bearer ${await owner(BIG.owner)}`, organization_id: big! },
    }),
  },
  e: {
    name: 'PUT /organization-user role flip',
    load: async ({ small }) => {
      let next = 1;
      return roleFlips(await owner(0), small, () => userId(next++));
    },
  },
  g: {
    name: 'POST /users, new caller each',
    load: () => newUsers(`ab-new-${++runs}`, 40_000),
  },
  h: {
    name: 'POST /organizations',
    load: async () => ({
      method: 'POST',
      path: '/organizations',
      headers: { authorization: `Bearer ${await owner(1)}`, ...json },
      body: JSON.stringify({ organization_name: 'ab created', organization_description: '' }),
    }),
  },
};

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
}

/** The MariaDB server the test account reaches (the oldest mariadbd: tests start their own later). */
const databasePid = Number(execFileSync('pgrep', ['-o', 'mariadbd']).toString().trim());

/**
 * Node's flags for an entry as `npm start` (and `npm run bench`) start it: the service's bundle with
 * those of the start script (its young generation capped), anything else with none.
 */
const startFlags = (entry: string) =>
  basename(entry) === basename(SERVICE_ENTRY) ? SERVICE_ARGUMENTS.filter((argument) => argument.startsWith('--')) : [];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const database = await createDatabase('ab');
  const env = { DATABASE_URL: database.url, JWT_SECRET: TEST_SECRET, NODE_ENV: 'production', RATE_LIMIT_MAX: '0' };
  const samples = new Map<string, Sample[]>();
  const servers: ServiceProcess[] = [];
  try {
    const seeder = await spawnService({ ...env, SCRIPT: entries[0]! }, { discardLogsAfterStart: true });
    servers.push(seeder);
    const organizations: Organizations = { small: await seedUsersAndOrganization(seeder.baseUrl, 0, MEMBERS) };
    if (SCENARIO_LETTERS.includes('d'))
      organizations.big = await seedUsersAndOrganization(seeder.baseUrl, BIG.owner, BIG.members);
    seeder.kill();
    for (let round = 0; round < ROUNDS; round++) {
      const order = entries.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const profile = process.env.AB_PROFILE_DIR
          ? [`--cpu-prof --cpu-prof-dir=${process.env.AB_PROFILE_DIR} --cpu-prof-name=${index}-${round}.cpuprofile`]
          : [];
        const nodeOptions = [...startFlags(entries[index]!), ...profile].join(' ');
        const server = await spawnService(
          { ...env, ...(nodeOptions && { NODE_OPTIONS: nodeOptions }), SCRIPT: entries[index]! },
          { discardLogsAfterStart: true },
        );
        servers.push(server);
        for (const letter of SCENARIO_LETTERS) {
          const scenario = SCENARIOS[letter]!;
          const { path, ...load } = await scenario.load(organizations);
          const connections = scenario.connections ?? CONNECTIONS;
          const drive = (duration: number) =>
            autocannon({ url: `${server.baseUrl}${path ?? ''}`, connections, duration, ...load });
          await drive(WARMUP_SECONDS);
          const cpuBefore = cpuMicroseconds(server.pid);
          const databaseCpuBefore = cpuMicroseconds(databasePid);
          const loadCpuBefore = process.cpuUsage();
          const countsBefore = await statementCounts(database.connection);
          const result = await drive(SECONDS);
          const counts = await statementCounts(database.connection);
          const cpu = cpuMicroseconds(server.pid) - cpuBefore;
          const databaseCpu = cpuMicroseconds(databasePid) - databaseCpuBefore;
          const loadCpu = process.cpuUsage(loadCpuBefore);
          if (result.non2xx || result.errors)
            console.error(`${letter} ${entries[index]}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          const key = `${letter} ${index}`;
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
  }
  console.log(`median of ${ROUNDS} rounds, ${SECONDS} s each, ${CONNECTIONS} connections (d: 4)`);
  entries.forEach((entry, index) => console.log(`[${index}] ${entry}`));
  const rows = [];
  for (const letter of SCENARIO_LETTERS) {
    for (let index = 0; index < entries.length; index++) {
      const list = samples.get(`${letter} ${index}`)!;
      const first = samples.get(`${letter} 0`)!;
      rows.push({
        scenario: `(${letter}) ${SCENARIOS[letter]!.name}`,
        server: index,
        'req/s': Math.round(median(list.map((sample) => sample.rps))),
        'CPU µs/req': Math.round(median(list.map((sample) => sample.cpuMicros))),
        'DB CPU µs/req': Math.round(median(list.map((sample) => sample.databaseCpuMicros))),
        'load CPU µs/req': Math.round(median(list.map((sample) => sample.loadCpuMicros))),
        'statements/req': median(list.map((sample) => sample.statements)).toFixed(2),
        'prepared/req': median(list.map((sample) => sample.prepared)).toFixed(2),
        // Paired with the first server's run of the same round: the machine's drift between
        // rounds cancels out.
        'req/s vs [0]': median(list.map((sample, round) => sample.rps / first[round]!.rps)).toFixed(2),
        'CPU vs [0]': median(list.map((sample, round) => sample.cpuMicros / first[round]!.cpuMicros)).toFixed(2),
      });
    }
  }
  console.table(rows);
}

await main();
