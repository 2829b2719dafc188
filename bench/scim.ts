/**
 * `npm run bench:scim`: SCIM provisioning (behaviour §18) on a fresh MariaDB database
 * (bench/database.ts), against the bundle as `npm start` runs it (NODE_ENV=production,
 * RATE_LIMIT_MAX=0). What is measured, with autocannon:
 * - SCIM_USERS users provisioned by `POST /scim/v2/Users` (an organization key, 4 connections), each
 *   with a user record already, so that each makes a membership, against SCIM_USERS members added by
 *   `POST /organization-user` (the owner's token, 4 connections) in another organization: requests/s
 *   of each and their ratio;
 * - `GET /scim/v2/Users?filter=userName eq "…"` among SCIM_DIRECTORY directory users (the provisioned
 *   ones and the rest seeded with SQL, column for column as entities.ts defines directory_users),
 *   a different userName each request, 4 connections for SCIM_DURATION seconds, after SCIM_WARMUP
 *   seconds of the same load unmeasured: p50 and p99;
 * - a Group PATCH adding 100 members (Entra ID's shape, one value list), GROUP_PATCHES times, one
 *   after the other, each to a new group: median and worst milliseconds.
 * The user records are seeded with SQL; the organizations and the key are made through the API.
 */
import autocannon from 'autocannon';
import { newId } from '../server/platform/database/ids.ts';
import { toDbTimestamp } from '../server/platform/database/schema.ts';
import { buildService, spawnService, killServicesOnSignals } from '../tests/support/process.ts';
import { TEST_SECRET, tokenFor } from '../tests/support/tokens.ts';
import { createDatabase } from './database.ts';

killServicesOnSignals();

const USERS = Number(process.env.SCIM_USERS ?? 10_000);
const DIRECTORY = Number(process.env.SCIM_DIRECTORY ?? 100_000);
const DURATION = Number(process.env.SCIM_DURATION ?? 5);
const WARMUP = Number(process.env.SCIM_WARMUP ?? 2);
const GROUP_PATCHES = Number(process.env.SCIM_GROUP_PATCHES ?? 10);
const CONNECTIONS = 4;
const ROWS_PER_STATEMENT = 5000;
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

await buildService();
const database = await createDatabase('scim');
const service = await spawnService(
  {
    DATABASE_URL: database.url,
    JWT_SECRET: TEST_SECRET,
    NODE_ENV: 'production',
    RATE_LIMIT_MAX: '0',
  },
  { discardLogsAfterStart: true },
);
const base = service.baseUrl;
const json = { 'content-type': 'application/json' };

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...json, ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).catch((error: unknown) => {
    throw new Error(`${method} ${path}`, { cause: error });
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function insertRows(table: string, columns: string[], count: number, row: (index: number) => unknown[]) {
  for (let start = 0; start < count; start += ROWS_PER_STATEMENT) {
    const rows = Array.from({ length: Math.min(ROWS_PER_STATEMENT, count - start) }, (_, k) => row(start + k));
    await database.connection.query(
      `INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ?`,
      [rows],
    );
  }
}

const run = (options: autocannon.Options) =>
  new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(options, (error, result) =>
      error ? reject(new Error('autocannon failed', { cause: error })) : resolve(result),
    ),
  );

try {
  const now = toDbTimestamp('mariadb', new Date());
  const email = (kind: string, index: number) => `${kind}-${index}@example.com`;
  await insertRows('users', ['id', 'first_name', 'last_name', 'email', 'created_at', 'updated_at'], 2 * USERS, (i) => {
    const kind = i < USERS ? 'scim' : 'rest';
    const index = i % USERS;
    return [`${kind}-${index}`, 'Bench', `User ${index}`, email(kind, index), now, now];
  });
  const ownerToken = await tokenFor('bench-owner', { role: 'owner', expiresIn: '2h' });
  await call(
    'POST',
    '/users',
    { authorization: `Bearer ${ownerToken}` },
    { first_name: 'Bench', last_name: 'Owner', email: 'owner@example.com' },
  );
  const organization = async (name: string) =>
    (
      await call(
        'POST',
        '/organizations',
        { authorization: `Bearer ${ownerToken}` },
        { organization_name: name, organization_description: 'bench' },
      )
    ).organization_id as string;
  const scimOrganization = await organization('SCIM');
  const restOrganization = await organization('REST');
  const key = (
    await call(
      'POST',
      `/organizations/${scimOrganization}/api-keys`,
      { authorization: `Bearer ${ownerToken}` },
      { name: 'SCIM', role: 'admin' },
    )
  ).secret as string;
  const scimHeaders = { authorization: `Bearer ${key}`, 'content-type': 'application/scim+json' };

  let nextScim = 0;
  const scim = await run({
    url: base,
    connections: CONNECTIONS,
    amount: USERS,
    requests: [
      {
        method: 'POST',
        path: '/scim/v2/Users',
        setupRequest: (request) => {
          const index = nextScim++;
          return {
            ...request,
            headers: { ...scimHeaders },
            body: JSON.stringify({
              schemas: [USER_SCHEMA],
              userName: email('scim', index),
              name: { givenName: 'Bench', familyName: `User ${index}` },
              active: true,
            }),
          };
        },
      },
    ],
  });
  let nextRest = 0;
  const rest = await run({
    url: base,
    connections: CONNECTIONS,
    amount: USERS,
    requests: [
      {
        method: 'POST',
        path: '/organization-user',
        setupRequest: (request) => ({
          ...request,
          headers: { authorization: `Bearer ${ownerToken}`, organization_id: restOrganization, ...json },
          body: JSON.stringify({ email: email('rest', nextRest++), role: 'member' }),
        }),
      },
    ],
  });

  const extra = DIRECTORY - USERS;
  await insertRows(
    'directory_users',
    [
      'id',
      'organization_id',
      'user_name',
      'user_name_key',
      'email_key',
      'external_id',
      'given_name',
      'family_name',
      'display_name',
      'emails',
      'active',
      'user_id',
      'created_at',
      'updated_at',
    ],
    extra,
    (index) => {
      const name = email('directory', index);
      return [
        newId(),
        scimOrganization,
        name,
        name,
        name,
        null,
        'Bench',
        `Directory ${index}`,
        '',
        '[]',
        1,
        null,
        now,
        now,
      ];
    },
  );
  await database.connection.query('ANALYZE TABLE directory_users');
  let nextLookup = 0;
  const lookups = (duration: number): autocannon.Options => ({
    url: base,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'GET',
        path: '/scim/v2/Users',
        setupRequest: (request) => {
          const index = (nextLookup += 7919) % DIRECTORY;
          const name = index < USERS ? email('scim', index) : email('directory', index - USERS);
          return {
            ...request,
            headers: { ...scimHeaders },
            path: `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${name}"`)}`,
          };
        },
      },
    ],
  });
  if (WARMUP > 0) await run(lookups(WARMUP));
  const lookup = await run(lookups(DURATION));

  const members = (await call('GET', `/scim/v2/Users?count=${100 * GROUP_PATCHES}`, scimHeaders)).Resources.map(
    (user: { id: string }) => user.id,
  ) as string[];
  const patchMs: number[] = [];
  for (let group = 0; group < GROUP_PATCHES; group++) {
    const created = await call('POST', '/scim/v2/Groups', scimHeaders, {
      schemas: [GROUP_SCHEMA],
      displayName: `Bench group ${group}`,
    });
    const value = members.slice(group * 100, group * 100 + 100).map((id) => ({ value: id }));
    const started = performance.now();
    await call('PATCH', `/scim/v2/Groups/${created.id}`, scimHeaders, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: 'Add', path: 'members', value }],
    });
    patchMs.push(performance.now() - started);
  }
  patchMs.sort((a, b) => a - b);

  const failures = (result: autocannon.Result) => result.non2xx + result.errors;
  const figures = {
    [`POST /scim/v2/Users, ${USERS} users, ${CONNECTIONS} connections (req/s)`]: Math.round(scim.requests.average),
    [`POST /organization-user, ${USERS} members, ${CONNECTIONS} connections (req/s)`]: Math.round(
      rest.requests.average,
    ),
    'SCIM create rate / REST add rate': Number((scim.requests.average / rest.requests.average).toFixed(2)),
    [`userName eq among ${DIRECTORY} directory users p50 / p99 (ms)`]: `${lookup.latency.p50} / ${lookup.latency.p99}`,
    'userName eq requests/s': Math.round(lookup.requests.average),
    'Group PATCH adding 100 members, median / worst (ms)': `${patchMs[Math.floor(patchMs.length / 2)]!.toFixed(1)} / ${patchMs.at(-1)!.toFixed(1)}`,
    'non-2xx answers and errors': failures(scim) + failures(rest) + failures(lookup),
  };
  console.table(figures);
} finally {
  service.kill();
  await database.drop();
}
