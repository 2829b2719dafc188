/**
 * `npm run bench:check-baseline`: checks that the baseline keeps the contract's rules, so that the
 * bar the service is measured against is a correct server. On one fresh database, with the service
 * beside two baseline processes: the rules one request at a time, the baseline's answers to reads
 * equal to the service's, then changes racing through both baseline processes, after which the
 * organization's events, replayed in `event_id` order, must each be allowed by the roles the replay
 * holds at that point and must end in the memberships the table holds. The permission check
 * (behaviour §11) must answer as the service's, both started with the bench's ROLES_FILE, for a
 * member of teams too (behaviour §12). Under an organization locked past DB_TIMEOUT_MS and a
 * database frozen (a MariaDB server of its own), every answer must come within DB_TIMEOUT_MS +
 * 250 ms, as the service's, and nothing given up may commit. Exits 1 on any failure.
 */
import mysql, { type RowDataPacket } from 'mysql2/promise';
import { canRunOwnMariadb, OwnMariadb } from '../tests/support/mariadb-instance.ts';
import { buildService, spawnService, type ServiceProcess, killServicesOnSignals } from '../tests/support/process.ts';
import { TEST_SECRET, tokenFor } from '../tests/support/tokens.ts';
import { createDatabase } from './database.ts';
import { CHECKED_PERMISSIONS, unknownPermissions, writeRolesFile } from './permissions.ts';

killServicesOnSignals();

const RACING_ROUNDS = 30;
const UNKNOWN_ORGANIZATION = '0190a000-0000-7000-8000-000000000000';

let failures = 0;
function expectEqual(what: string, actual: unknown, expected: unknown): void {
  const pass = JSON.stringify(actual) === JSON.stringify(expected);
  if (!pass) failures++;
  console.log(
    `${pass ? 'PASS' : 'FAIL'}  ${what}${pass ? '' : `: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`}`,
  );
}

/** An answer, and the milliseconds from sending the request to its whole body. */
interface Answer {
  status: number;
  body: any;
  ms: number;
}

async function call(
  server: ServiceProcess,
  request: { method: string; path: string; as: string; body?: object; organizationId?: string; role?: string },
): Promise<Answer> {
  const token = await tokenFor(request.as, { role: request.role ?? 'owner', expiresIn: '10m' });
  const started = performance.now();
  const response = await fetch(`${server.baseUrl}${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(request.organizationId && { organization_id: request.organizationId }),
    },
    body: request.body && JSON.stringify(request.body),
  });
  return { status: response.status, body: await response.json(), ms: performance.now() - started };
}

interface EventRow extends RowDataPacket {
  type: string;
  actor_user_id: string;
  subject_user_id: string | null;
  data: string | Record<string, string>;
}

/**
 * Replays an organization's events in id order; returns the memberships they end in and the events
 * that the roles held at their point in the order would not have allowed.
 */
function replay(events: EventRow[]): { roles: Map<string, string>; refused: string[] } {
  const roles = new Map<string, string>();
  const refused: string[] = [];
  for (const event of events) {
    const data = typeof event.data === 'string' ? JSON.parse(event.data) : event.data;
    const actor = roles.get(event.actor_user_id);
    const subject = event.subject_user_id ?? '';
    const before = roles.get(subject);
    const ownerInvolved = before === 'owner' || data.role === 'owner' || data.to === 'owner';
    const allowed =
      event.type === 'organization.created' ||
      (event.type === 'member.left' && event.actor_user_id === subject && before === data.role) ||
      ((actor === 'owner' || (actor === 'admin' && !ownerInvolved)) &&
        (event.type === 'member.added' ? before === undefined : before === (data.from ?? data.role)));
    if (!allowed) refused.push(`${event.event_id} ${event.type} by ${event.actor_user_id} (${actor}) on ${subject}`);
    if (event.type === 'organization.created') roles.set(event.actor_user_id, 'owner');
    else if (event.type === 'member.added') roles.set(subject, data.role);
    else if (event.type === 'member.role_changed') roles.set(subject, data.to);
    else roles.delete(subject);
    if (![...roles.values()].includes('owner')) refused.push(`${event.event_id} leaves no owner`);
  }
  return { roles, refused };
}

await buildService();
const database = await createDatabase('baseline_check');
const TIMEOUT_MS = 2000;
/**
 * The latest any answer may come, as the service's: its processing limit is DB_TIMEOUT_MS + 200 ms,
 * and 50 ms more carry the answer back on a loaded machine.
 */
const ANSWERED_WITHIN_MS = TIMEOUT_MS + 250;
/** What the processing limit answers, where a request's own waits did not end in time. */
const GIVEN_UP = 'The request took too long and was given up';
const env = {
  DATABASE_URL: database.url,
  JWT_SECRET: TEST_SECRET,
  NODE_ENV: 'production',
  RATE_LIMIT_MAX: '0',
  DB_TIMEOUT_MS: String(TIMEOUT_MS),
  ROLES_FILE: await writeRolesFile(),
};
const servers: ServiceProcess[] = [];
try {
  const service = await spawnService(env);
  servers.push(service);
  const [baseline, otherBaseline] = [
    await spawnService({ ...env, SCRIPT: 'bench/baseline.ts' }),
    await spawnService({ ...env, SCRIPT: 'bench/baseline.ts' }),
  ];
  servers.push(baseline, otherBaseline);
  const as = (index: number) => `check-user-${index}`;
  const user = (index: number) => ({
    first_name: ' First ',
    last_name: 'Last',
    email: `Check-User-${index}@Example.com`,
  });

  for (let index = 0; index < 40; index++) {
    const created = await call(index % 2 ? baseline : service, {
      method: 'POST',
      path: '/users',
      as: as(index),
      body: user(index),
    });
    if (created.status !== 201) expectEqual(`POST /users ${index}`, created.status, 201);
  }
  expectEqual(
    'same caller again: 409',
    (await call(baseline, { method: 'POST', path: '/users', as: as(0), body: user(99) })).status,
    409,
  );
  expectEqual(
    'e-mail taken: 409',
    (await call(baseline, { method: 'POST', path: '/users', as: 'x', body: user(0) })).status,
    409,
  );
  expectEqual(
    'control character in a name: 400',
    (await call(baseline, { method: 'POST', path: '/users', as: 'x', body: { ...user(98), first_name: 'a\u0000b' } }))
      .status,
    400,
  );
  expectEqual(
    'no creator role: 403',
    (await call(baseline, { method: 'POST', path: '/users', as: 'x', body: user(98), role: 'member' })).status,
    403,
  );
  expectEqual(
    'GET /api/users as the service answers',
    (await call(baseline, { method: 'GET', path: '/api/users', as: as(1) })).body,
    (await call(service, { method: 'GET', path: '/api/users', as: as(1) })).body,
  );
  const newOrganization = { organization_name: ' Checked ', organization_description: '' };
  expectEqual(
    'organization without a user record: 404',
    (await call(baseline, { method: 'POST', path: '/organizations', as: 'nobody', body: newOrganization })).status,
    404,
  );
  const created = await call(baseline, { method: 'POST', path: '/organizations', as: as(0), body: newOrganization });
  expectEqual('organization created: 201', created.status, 201);
  const organizationId: string = created.body.organization_id;
  const member = (method: string, actor: number, body?: object, server = baseline) =>
    call(server, { method, path: '/organization-user', as: as(actor), body, organizationId });

  for (let index = 1; index < 30; index++) {
    const added = await member(
      'POST',
      0,
      { email: `check-user-${index}@example.com`, role: index < 3 ? 'admin' : 'member' },
      index % 2 ? baseline : otherBaseline,
    );
    if (added.status !== 201) expectEqual(`add member ${index}`, added.status, 201);
  }
  const rules: [string, () => Promise<{ status: number }>, number][] = [
    ['add a member again: 409', () => member('POST', 0, { email: 'check-user-5@example.com', role: 'member' }), 409],
    ['add an unknown e-mail: 404', () => member('POST', 0, { email: 'none@example.com', role: 'member' }), 404],
    ['admin adds an owner: 403', () => member('POST', 1, { email: 'check-user-35@example.com', role: 'owner' }), 403],
    ['member adds: 403', () => member('POST', 5, { email: 'check-user-35@example.com', role: 'member' }), 403],
    ['non-member adds: 403', () => member('POST', 39, { email: 'check-user-35@example.com', role: 'member' }), 403],
    [
      'unknown organization: 403',
      () =>
        call(baseline, {
          method: 'POST',
          path: '/organization-user',
          as: as(0),
          body: { email: 'check-user-35@example.com', role: 'member' },
          organizationId: UNKNOWN_ORGANIZATION,
        }),
      403,
    ],
    ['last owner demoted: 409', () => member('PUT', 0, { user_id: as(0), role: 'admin' }), 409],
    ['last owner leaves: 409', () => member('DELETE', 0, { user_id: as(0) }), 409],
    ['admin demotes an owner: 403', () => member('PUT', 1, { user_id: as(0), role: 'admin' }), 403],
    ['owner promotes a member: 200', () => member('PUT', 0, { user_id: as(3), role: 'owner' }), 200],
    ['admin removes an owner: 403', () => member('DELETE', 1, { user_id: as(3) }), 403],
    ['owner demotes another owner: 200', () => member('PUT', 3, { user_id: as(0), role: 'admin' }), 200],
    ['member leaves: 200', () => member('DELETE', 6, { user_id: as(6) }), 200],
    ['role of a non-member: 404', () => member('PUT', 3, { user_id: as(6), role: 'admin' }), 404],
  ];
  for (const [what, run, status] of rules) expectEqual(what, (await run()).status, status);

  // An organization locked by another session (behaviour §10): its changes end in 503 within
  // DB_TIMEOUT_MS, and meanwhile reads and changes of another organization are served.
  const other = await call(baseline, { method: 'POST', path: '/organizations', as: as(8), body: newOrganization });
  await database.connection.query('start transaction');
  await database.connection.query('select id from organizations where id = ? for update', [organizationId]);
  const blocked = Array.from({ length: 20 }, (_, offset) =>
    member('PUT', 3, { user_id: as(7 + offset), role: 'admin' }),
  );
  const addedElsewhere = await call(baseline, {
    method: 'POST',
    path: '/organization-user',
    as: as(8),
    body: { email: 'check-user-9@example.com', role: 'member' },
    organizationId: other.body.organization_id,
  });
  expectEqual('another organization changed while one is locked: 201', addedElsewhere.status, 201);
  expectEqual('a read while an organization is locked: 200', (await member('GET', 5)).status, 200);
  const outcomes = await Promise.all(blocked);
  await database.connection.query('rollback');
  expectEqual(
    `changes of the locked organization: 503 within ${ANSWERED_WITHIN_MS} ms`,
    outcomes.filter(({ status, ms }) => status !== 503 || ms > ANSWERED_WITHIN_MS),
    [],
  );
  await checkLongLock(organizationId, (actor, body) => member('PUT', actor, body));
  for (const [what, path, actor] of [
    ['one member', `/organization-user/${as(4)}`, 5],
    ['a non-member', `/organization-user/${as(39)}`, 5],
    ['one member, as a non-member', `/organization-user/${as(4)}`, 39],
    ['the member list', '/organization-user', 5],
    ['the member list, as a non-member', '/organization-user', 39],
    ['a search by e-mail', `/organization-user?search=${encodeURIComponent('check-user-4@EXAMPLE.com')}`, 5],
    ['a search, a page of 2', '/organization-user?search=la&limit=2', 5],
    ['a search and a role filter', '/organization-user?search=first&role=admin,owner', 5],
    ['a search matching nobody', '/organization-user?search=nobody', 5],
    ['a search matching nobody, as a non-member', '/organization-user?search=nobody', 39],
  ] as const) {
    const read = (server: ServiceProcess) => call(server, { method: 'GET', path, as: as(actor), organizationId });
    const [fromBaseline, fromService] = [await read(baseline), await read(service)];
    expectEqual(`GET ${what}: status as the service's`, fromBaseline.status, fromService.status);
    if (fromService.status === 200)
      expectEqual(`GET ${what}: body as the service's`, fromBaseline.body, fromService.body);
  }
  // Here as(3) is an owner, as(0) an admin, as(5) a member, as(39) a user in no organization.
  await comparePermissionChecks(service, baseline, organizationId, as);
  // In the other organization, whose events the replay below does not read: as(8) its owner, as(9) a member.
  await compareTeamChecks(service, baseline, other.body.organization_id, as);

  // Racing: role changes (owners among them), removals and adds, through both baseline processes.
  // Each round's changes race each other; rounds follow one another, so that no change waits past
  // DB_TIMEOUT_MS for its turn (a 503: allowed, but it would leave less to check).
  const statuses: number[] = [];
  const roles = ['admin', 'member', 'owner'];
  for (let round = 0; round < RACING_ROUNDS; round++) {
    const [one, other] = round % 2 ? [baseline, otherBaseline] : [otherBaseline, baseline];
    const racing = [
      ...Array.from({ length: 13 }, (_, offset) =>
        member('PUT', round % 3 ? 3 : 1, { user_id: as(7 + offset), role: roles[(round + offset) % 3] }, one),
      ),
      member('PUT', 3, { user_id: as(1), role: roles[round % 3] }, other),
      member('PUT', round % 2 ? 3 : 0, { user_id: as(round % 2 ? 0 : 3), role: roles[round % 3] }, one),
      member('DELETE', 3, { user_id: as(20 + (round % 5)) }, other),
      member('POST', 3, { email: `check-user-${20 + ((round + 2) % 5)}@example.com`, role: 'member' }, one),
    ];
    statuses.push(...(await Promise.all(racing)).map((answer) => answer.status));
  }
  expectEqual('racing changes: no 500', statuses.filter((status) => status === 500).length, 0);
  const answered: Record<number, number> = {};
  for (const status of statuses) answered[status] = (answered[status] ?? 0) + 1;
  console.log(`racing changes answered (status: count): ${JSON.stringify(answered)}`);
  const [events] = await database.connection.query<EventRow[]>(
    'select * from organization_events where organization_id = ? order by event_id',
    [organizationId],
  );
  const [memberships] = await database.connection.query<RowDataPacket[]>(
    'select user_id, role from organization_users where organization_id = ? order by user_id',
    [organizationId],
  );
  const replayed = replay(events);
  expectEqual('every event allowed at its place in event_id order', replayed.refused, []);
  expectEqual(
    'events replayed end in the memberships held',
    [...replayed.roles].sort(([a], [b]) => (a < b ? -1 : 1)),
    memberships.map((row) => [row.user_id, row.role]),
  );
  const [[organization]] = await database.connection.query<RowDataPacket[]>(
    'select version, member_count from organizations where id = ?',
    [organizationId],
  );
  expectEqual('one version step per change after creation', organization!.version, events.length - 1);
  expectEqual('the member count kept is the members held', organization!.member_count, memberships.length);
  // The service's search (behaviour §15) finds the baseline's members by their words.
  const [wordless] = await database.connection.query<RowDataPacket[]>(
    `select m.user_id from organization_users m where m.organization_id = ?
       and not exists (select 1 from member_words w where w.organization_id = m.organization_id and w.user_id = m.user_id)
     union all
     select w.user_id from member_words w where w.organization_id = ?
       and not exists (select 1 from organization_users m where m.organization_id = w.organization_id and m.user_id = w.user_id)`,
    [organizationId, organizationId],
  );
  expectEqual('every member has search words, and only members', wordless, []);
  await checkFrozenDatabase();
} finally {
  for (const server of servers) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await database.drop();
}
/**
 * The permission check on the baseline and on the service, the same requests: the same status, the
 * same body when 200, the same fields named when 400. The checks name the permissions of the bench's
 * (j) that the service knows (all 20 once it knows them; the rest are noted).
 */
async function comparePermissionChecks(
  service: ServiceProcess,
  baseline: ServiceProcess,
  organizationId: string,
  as: (index: number) => string,
) {
  const unknown = await unknownPermissions(service.baseUrl, await tokenFor(as(3)), organizationId, CHECKED_PERMISSIONS);
  if (unknown.length) console.log(`NOTE  the service does not know ${unknown.join(', ')} yet: left out below`);
  const known = CHECKED_PERMISSIONS.filter((name) => !unknown.includes(name));
  const cases: [string, number, object, number, string?][] = [
    ['own check, a member', 5, { permissions: known }, 200],
    ['own check, the owner, under /api', 3, { permissions: known }, 200, '/api'],
    ['own check, naming themselves', 5, { permissions: known, user_id: as(5) }, 200],
    ["an owner's, asked by a member", 5, { permissions: known, user_id: as(3) }, 200],
    ["an admin's, asked by the owner", 3, { permissions: known, user_id: as(0) }, 200],
    ['a user in no organization: all false', 5, { permissions: known, user_id: as(39) }, 200],
    ['an unknown permission: 400', 5, { permissions: ['members:read', 'reports:delete'] }, 400],
    ['a malformed permission: 400', 5, { permissions: ['Members:read'] }, 400],
    ['a permission named twice: 400', 5, { permissions: ['members:read', 'members:read'] }, 400],
    ['by a non-member: 403', 39, { permissions: ['members:read'] }, 403],
    ['by a non-member, a bad body: 403', 39, { permissions: [] }, 403],
  ];
  const both = async (path: string, actor: number, body: object) => {
    const check = (server: ServiceProcess) => call(server, { method: 'POST', path, as: as(actor), body });
    return { fromBaseline: await check(baseline), fromService: await check(service) };
  };
  for (const [what, actor, body, status, prefix = ''] of cases) {
    const path = `${prefix}/organizations/${organizationId}/permissions/check`;
    const { fromBaseline, fromService } = await both(path, actor, body);
    expectEqual(`check, ${what}: service and baseline`, [fromService.status, fromBaseline.status], [status, status]);
    if (status === 200) expectEqual(`check, ${what}: body as the service's`, fromBaseline.body, fromService.body);
    if (status === 400) {
      const fields = (answer: Answer) => answer.body.issues?.map((issue: { field: string }) => issue.field);
      expectEqual(`check, ${what}: fields named as the service's`, fields(fromBaseline), fields(fromService));
    }
  }
  const path = `/organizations/${UNKNOWN_ORGANIZATION}/permissions/check`;
  const { fromBaseline, fromService } = await both(path, 3, { permissions: ['members:read'] });
  expectEqual(
    'check, an unknown organization: service and baseline',
    [fromService.status, fromBaseline.status],
    [403, 403],
  );
}

/**
 * The permission check of a member of teams (behaviour §12) on the baseline and on the service: the
 * same body, about the member's own check and asked by the owner, as `member` joins a team giving an
 * organization role of its own, then one giving `admin`. The teams are made through the service.
 */
async function compareTeamChecks(
  service: ServiceProcess,
  baseline: ServiceProcess,
  organizationId: string,
  as: (index: number) => string,
) {
  const [owner, member] = [8, 9];
  const asOwner = async (path: string, body: object) => {
    const answer = await call(service, {
      method: 'POST',
      path: `/organizations/${organizationId}${path}`,
      as: as(owner),
      body,
    });
    expectEqual(`teams: POST ${path.replace(/[0-9a-f-]{36}/, '{team_id}')}`, answer.status, 201);
    return answer.body;
  };
  const compare = async (what: string) => {
    const path = `/organizations/${organizationId}/permissions/check`;
    for (const [asker, body] of [
      [member, { permissions: CHECKED_PERMISSIONS }],
      [owner, { permissions: CHECKED_PERMISSIONS, user_id: as(member) }],
    ] as const) {
      const check = (server: ServiceProcess) => call(server, { method: 'POST', path, as: as(asker), body });
      const [fromBaseline, fromService] = [await check(baseline), await check(service)];
      expectEqual(`check, ${what}, asked by ${as(asker)}: body as the service's`, fromBaseline.body, fromService.body);
    }
  };
  await asOwner('/roles', { role: 'checked-team-role', permissions: ['members:add', 'reports:export'] });
  const withRole = await asOwner('/teams', { name: 'Checked role', roles: ['checked-team-role'] });
  const withAdmin = await asOwner('/teams', { name: 'Checked admins', roles: ['admin'] });
  await compare('a member in no team');
  await asOwner(`/teams/${withRole.team_id}/members`, { user_id: as(member) });
  await compare("a member in a team giving an organization's role");
  await asOwner(`/teams/${withAdmin.team_id}/members`, { user_id: as(member) });
  await compare('a member in that team and one giving admin');
}

/**
 * One organization locked by another session for four times DB_TIMEOUT_MS, while writers, started
 * a little apart, send a change of it again as soon as each is answered, so that changes start at
 * every moment of the others' budgets: each is answered 503 within the bound, and by the end of its
 * own waits (its turn, a connection, the lock, each statement) at DB_TIMEOUT_MS, not by the
 * processing limit.
 */
async function checkLongLock(organizationId: string, change: (actor: number, body: object) => Promise<Answer>) {
  const writers = 8;
  await database.connection.query('start transaction');
  await database.connection.query('select id from organizations where id = ? for update', [organizationId]);
  const lockedUntil = performance.now() + 4 * TIMEOUT_MS;
  // The last change sent is answered before the lock goes.
  const sendingUntil = lockedUntil - ANSWERED_WITHIN_MS - 500;
  const refused: Answer[] = [];
  const writer = async (index: number) => {
    await new Promise((resolve) => setTimeout(resolve, (index * TIMEOUT_MS) / writers));
    while (performance.now() < sendingUntil)
      refused.push(await change(3, { user_id: `check-user-${7 + index}`, role: 'admin' }));
  };
  await Promise.all(Array.from({ length: writers }, (_, index) => writer(index)));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lockedUntil - performance.now())));
  await database.connection.query('rollback');
  const what = `an organization locked for ${4 * TIMEOUT_MS} ms, ${refused.length} changes sent`;
  expectEqual(
    `${what}: each answered 503 within ${ANSWERED_WITHIN_MS} ms`,
    refused.filter(({ status, ms }) => status !== 503 || ms > ANSWERED_WITHIN_MS).map(({ status, ms }) => [status, ms]),
    [],
  );
  expectEqual(
    `${what}: none given up by the processing limit`,
    refused.filter((answer) => answer.body.message === GIVEN_UP).length,
    0,
  );
}

/**
 * A database that stalls, on a MariaDB server of its own frozen with SIGSTOP: each change, and a
 * read, is answered 503 by the processing limit within the bound, and when the database wakes, none
 * of what the given-up requests sent commits. Needs root and /usr/sbin/mariadbd, as the service's
 * fault tests.
 */
async function checkFrozenDatabase(): Promise<void> {
  if (!canRunOwnMariadb()) {
    console.log('SKIP  a frozen database: needs root and /usr/sbin/mariadbd');
    return;
  }
  const own = new OwnMariadb();
  const stalled: ServiceProcess[] = [];
  try {
    await own.start();
    const ownEnv = { ...env, DATABASE_URL: own.url };
    // The service migrates the schema; the checks then go through one baseline process.
    const migrator = await spawnService(ownEnv);
    migrator.child.kill('SIGTERM');
    await migrator.exited;
    const baseline = await spawnService({ ...ownEnv, SCRIPT: 'bench/baseline.ts' });
    stalled.push(baseline);
    const ask = (path: string, as: string, method = 'POST', body?: object, organizationId?: string) =>
      call(baseline, { method, path, as, body, organizationId });
    await ask('/users', 'frozen-0', 'POST', { first_name: 'F', last_name: 'Z', email: 'frozen-0@example.com' });
    await ask('/users', 'frozen-1', 'POST', { first_name: 'F', last_name: 'Z', email: 'frozen-1@example.com' });
    const organization = { organization_name: 'Frozen', organization_description: '' };
    const { body } = await ask('/organizations', 'frozen-0', 'POST', organization);
    const organizationId: string = body.organization_id;
    await ask(
      '/organization-user',
      'frozen-0',
      'POST',
      { email: 'frozen-1@example.com', role: 'member' },
      organizationId,
    );
    own.freeze();
    // Woken in any case, so that a server that waits for the database's answer gets one, late.
    const thawLater = setTimeout(() => own.thaw(), ANSWERED_WITHIN_MS + 1500);
    const answers = await Promise.all([
      ask('/users', 'frozen-2', 'POST', { first_name: 'F', last_name: 'Z', email: 'frozen-2@example.com' }),
      ask('/organizations', 'frozen-1', 'POST', organization),
      ask('/organization-user', 'frozen-0', 'PUT', { user_id: 'frozen-1', role: 'admin' }, organizationId),
      ask('/organization-user', 'frozen-0', 'GET', undefined, organizationId),
    ]);
    clearTimeout(thawLater);
    own.thaw();
    expectEqual(
      'a frozen database: every change and the read answered 503',
      answers.map((answer) => answer.status),
      [503, 503, 503, 503],
    );
    expectEqual(
      `a frozen database: each answered within ${ANSWERED_WITHIN_MS} ms`,
      answers.filter((answer) => answer.ms > ANSWERED_WITHIN_MS).map((answer) => answer.ms),
      [],
    );
    // What the database was sent while frozen runs now: it must roll back.
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS));
    expectEqual('a frozen database: the user not created', (await ask('/users', 'frozen-2', 'GET')).status, 404);
    const members = await ask('/organization-user', 'frozen-0', 'GET', undefined, organizationId);
    expectEqual(
      'a frozen database: the role not changed',
      members.body.map((row: { role: string }) => row.role),
      ['owner', 'member'],
    );
    const direct = await mysql.createConnection({ uri: own.url.replace(/^mariadb:/, 'mysql:') });
    const [[count]] = await direct.query<RowDataPacket[]>('select count(*) as n from organizations');
    await direct.end();
    expectEqual('a frozen database: the organization not created', count!.n, 1);

    // A wait for a connection ends with the request's budget too: a baseline of one connection,
    // held by a read the frozen database does not answer, and a second read waiting for it.
    const oneConnection = await spawnService({ ...ownEnv, SCRIPT: 'bench/baseline.ts', DB_POOL_SIZE: '1' });
    stalled.push(oneConnection);
    const read = () =>
      call(oneConnection, { method: 'GET', path: '/organization-user', as: 'frozen-0', organizationId });
    await read(); // its connection made
    own.freeze();
    const thawAgain = setTimeout(() => own.thaw(), ANSWERED_WITHIN_MS + 1500);
    const reads = await Promise.all([read(), new Promise((resolve) => setTimeout(resolve, 50)).then(read)]);
    clearTimeout(thawAgain);
    own.thaw();
    expectEqual(
      `a frozen database, one connection: both reads answered 503 within ${ANSWERED_WITHIN_MS} ms`,
      reads.map(({ status, ms }) => status === 503 && ms <= ANSWERED_WITHIN_MS),
      [true, true],
    );
    expectEqual(
      'a frozen database, one connection: the read waiting for it answered at the end of its budget, not by the processing limit',
      reads.map((answer) => answer.body.message === GIVEN_UP),
      [true, false],
    );
  } finally {
    for (const server of stalled) server.kill();
    await own.destroy();
  }
}

console.log(failures ? `${failures} checks failed` : 'all checks passed');
process.exitCode = failures ? 1 : 0;
