/**
 * The service as `npm start` runs it: a child process with only environment settings, one start
 * line that says where it listens, on which database and where the docs are, its pino logs on
 * stdout, the development secret shared with `npm run token`, and a clean SIGTERM. A start that
 * fails on its setup ends with one line on stderr that says what to fix, and no stack.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processingLimitMs, readSettings } from '../server/platform/config.ts';
import { NEEDED_NODE_MAJOR } from '../server/node-version.ts';
import { copyBundleForAnyUser, type BundleCopy } from './support/bundle-copy.ts';
import { databaseTargets, mariadbUrl } from './support/databases.ts';
import {
  isRunning,
  projectRoot as root,
  SERVICE_ARGUMENTS,
  SERVICE_ENTRY,
  spawnService,
  type ServiceProcess,
} from './support/process.ts';
import { TEST_SECRET } from './support/tokens.ts';
import { sqliteMigrations } from '../migrations/index.ts';

/** Runs `script` to its end; `node`: another Node.js binary than the one running the tests. */
function runToExit(
  script: string,
  env: Record<string, string>,
  args: string[] = [],
  { node = process.execPath, ...options }: SpawnSyncOptions & { node?: string } = {},
) {
  const result = spawnSync(node, [script, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
    // A start that hangs, or one that did not fail and serves, ends at the timeout all the same.
    killSignal: 'SIGKILL',
    ...options,
  });
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** The bundle started, and run to its exit, with `settings` over a valid secret and an in-memory database. */
const startWith = (settings: Record<string, string>) =>
  runToExit(SERVICE_ENTRY, { JWT_SECRET: TEST_SECRET, DATABASE_URL: ':memory:', ...settings });

/** The start failed with exactly one line on stderr, no stack, matching `what`, and nothing else printed. */
function expectOneLineFailure(result: ReturnType<typeof runToExit>, what: RegExp) {
  expect(result.stderr).toMatch(what);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stdout).toBe('');
  expect(result.status).toBe(1);
}

async function listeningServer(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

/** A port nothing listens on: one that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = await listeningServer();
  const port = portOf(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('start-up settings', () => {
  it('refuses to start in production without a token key, and says what to set', () => {
    const result = runToExit(SERVICE_ENTRY, { NODE_ENV: 'production', DATABASE_URL: ':memory:' });
    expectOneLineFailure(result, /JWT_SECRET/);
  });

  it('refuses a JWT_SECRET shorter than 32 bytes', () => {
    const result = runToExit(SERVICE_ENTRY, { JWT_SECRET: 'short', DATABASE_URL: ':memory:' });
    expectOneLineFailure(result, /at least 32 bytes/);
  });

  it('refuses an unknown DATABASE_URL scheme, naming the ones it knows', () => {
    const result = startWith({ DATABASE_URL: 'postgres://db/x' });
    expectOneLineFailure(
      result,
      /^Invalid settings: DATABASE_URL must start with mysql:\/\/, mariadb:\/\/, file: or .*:memory:/,
    );
  });

  // Behaviour §1: one line that says what to fix, and never the password the URL holds.
  it.each([
    ['mariadb://orgs:S3cretPass@127.0.0.1:99999/orgs', /DATABASE_URL is not a URL: its port 99999 is out of range/],
    ['mariadb://orgs:S3cretPass#@127.0.0.1:3306/orgs', /DATABASE_URL is not a URL: a # .* percent-encoded as %23/],
    ['mariadb://orgs:S3cretPass@[::1/orgs', /DATABASE_URL is not a URL: check the host .*percent-encode/],
    ['mariadb://orgs:S3cretPass@127.0.0.1:3306/', /DATABASE_URL names no database: add \/<database>/],
    ['mariadb://', /DATABASE_URL names no host/],
    ['file:', /DATABASE_URL names no file: give file:PATH or :memory:/],
    ['file:./data/orgs.db?mode=ro', /DATABASE_URL file: takes no \?options/],
  ])('refuses DATABASE_URL=%s in one line, without its password', (url, what) => {
    const result = startWith({ DATABASE_URL: url });
    expectOneLineFailure(result, what);
    expect(result.stderr).not.toContain('S3cretPass');
    expect(result.stderr).not.toContain('DATABASE_URL: DATABASE_URL');
  });

  // Node's timers hold at most 2^31 - 1 ms: past it one fires at once, with a warning that is no JSON line.
  it.each(['DB_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS', 'SHUTDOWN_TIMEOUT_MS', 'RATE_LIMIT_WINDOW_MS', 'WEBHOOK_LEASE_MS'])(
    'refuses a %s over a day, in one line',
    (setting) => {
      const result = startWith({ [setting]: '2147483648' });
      expectOneLineFailure(result, new RegExp(`${setting}: .*86400000`));
    },
  );

  // Keys jose would refuse for their algorithm: every token would get 503, so the start refuses them.
  it.each([
    [
      'an EC key on P-384',
      generateKeyPairSync('ec', { namedCurve: 'P-384' }),
      /EC key on secp384r1: ES256 needs P-256/,
    ],
    [
      'an RSA key of 1024 bits',
      generateKeyPairSync('rsa', { modulusLength: 1024 }),
      /RSA key of 1024 bits: RS256 needs 2048/,
    ],
  ])('refuses a JWT_PUBLIC_KEY that can never verify: %s', (_, { publicKey }, what) => {
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const result = runToExit(SERVICE_ENTRY, { DATABASE_URL: ':memory:', JWT_PUBLIC_KEY: pem });
    expectOneLineFailure(result, new RegExp(`^JWT_PUBLIC_KEY is an? ${what.source}`));
  });

  it('refuses a JWT_JWKS_URL that is not http(s), as it could never be fetched', () => {
    expectOneLineFailure(
      startWith({ JWT_JWKS_URL: 'ftp://keys.example.test/jwks.json' }),
      /^Invalid settings: JWT_JWKS_URL: must be an http:\/\/ or https:\/\/ URL$/m,
    );
  });

  it('refuses a JWT_JWKS_URL with a user or password, which fetch refuses, without showing it', () => {
    const result = startWith({ JWT_JWKS_URL: 'https://keys:S3cretPass@keys.example.test/jwks.json' });
    expectOneLineFailure(result, /^Invalid settings: JWT_JWKS_URL: .*user or password/m);
    expect(result.stderr).not.toContain('S3cretPass');
  });

  // A browser's Origin header is scheme://host[:port]: an entry of another shape would never match.
  it.each(['notanorigin', 'https://b.example.test/', 'https://b.example.test/app'])(
    'refuses CORS_ORIGINS with %s, which is not an origin',
    (entry) => {
      const result = startWith({ CORS_ORIGINS: `https://a.example.test, ${entry}` });
      expectOneLineFailure(result, new RegExp(`^Invalid settings: CORS_ORIGINS: "${entry}" is not an origin`, 'm'));
    },
  );

  // SCIM's URLs are PUBLIC_URL with the service's paths after it: it must be a base they can follow.
  it.each([
    ['orgs.example.test', /must be an absolute http:\/\/ or https:\/\/ URL/],
    ['ftp://orgs.example.test', /must be an absolute http:\/\/ or https:\/\/ URL/],
    ['https://', /must be an absolute http:\/\/ or https:\/\/ URL/],
    ['https://orgs.example.test/?tenant=1', /must have no query \(\?\) or fragment \(#\)/],
    ['https://orgs.example.test/orgs#top', /must have no query \(\?\) or fragment \(#\)/],
    ['https://admin:S3cretPass@orgs.example.test', /must not carry a user or password$/m],
  ])('refuses PUBLIC_URL=%s in one line', (url, what) => {
    const result = startWith({ PUBLIC_URL: url });
    expectOneLineFailure(result, new RegExp(`^Invalid settings: PUBLIC_URL: ${what.source}`, what.flags));
    expect(result.stderr).not.toContain('S3cretPass');
  });

  // Forwarding headers are believed from named proxies only: never from any client, nor by a count.
  it.each(['true', '2', '10.0.0.0/33', 'proxy.example.test', '127.0.0.1, *'])(
    'refuses TRUST_PROXY=%s in one line',
    (value) => {
      expectOneLineFailure(
        startWith({ TRUST_PROXY: value }),
        /^Invalid settings: TRUST_PROXY: ".+" is neither an IP address, a CIDR range/,
      );
    },
  );

  it('refuses a drain that does not end before the stop times out', () => {
    // As long as the stop's whole deadline (SHUTDOWN_TIMEOUT_MS's default): no request could finish.
    const drainMs = 15_000;
    const result = startWith({
      SHUTDOWN_DRAIN_MS: String(drainMs),
    });
    const neededMs = drainMs + processingLimitMs(readSettings({}));
    expectOneLineFailure(
      result,
      new RegExp(`SHUTDOWN_TIMEOUT_MS must be longer than SHUTDOWN_DRAIN_MS plus .* ${neededMs} ms`),
    );
  });

  it('refuses a webhook claim that would lapse before its attempt ends (behaviour §13)', () => {
    const result = startWith({
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_LEASE_MS: '5999',
    });
    expectOneLineFailure(result, /WEBHOOK_LEASE_MS must be at least WEBHOOK_TIMEOUT_MS \+ 1000 ms \(here 6000 ms\)/);
  });

  it('refuses trace batches larger than the queue they are taken from', () => {
    const result = startWith({
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '101',
    });
    expectOneLineFailure(
      result,
      /OTEL_BSP_MAX_EXPORT_BATCH_SIZE \(101\) must be at most OTEL_BSP_MAX_QUEUE_SIZE \(100\)/,
    );
  });
});

// Behaviour §1 and §11: the roles file is read at start, and one it cannot use stops it.
describe('a ROLES_FILE the start cannot use', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orgs-roles-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it.each([
    // V8 quotes the lines around the mistake: the start still prints one.
    [
      'not JSON',
      '{\n  "permissions": {\n    "reports:read": Read the reports\n  }\n}\n',
      "not JSON: Unexpected token 'R'",
    ],
    [
      'a grant to owner',
      '{"permissions": {"reports:read": ""}, "grants": {"owner": ["reports:read"]}}',
      'grants: Unrecognized key: "owner"',
    ],
    [
      'a role with an undeclared permission',
      '{"roles": {"auditor": {"permissions": ["reports:read"]}}}',
      'roles.auditor.permissions: Unknown permission: reports:read',
    ],
  ])('%s: one line naming ROLES_FILE, its path and the problem', (name, content, problem) => {
    const path = join(dir, `${name.replaceAll(' ', '-')}.json`);
    writeFileSync(path, content);
    expectOneLineFailure(
      startWith({ ROLES_FILE: path }),
      new RegExp(`^Invalid settings: ROLES_FILE \\(${escaped(path)}\\): ${escaped(problem)}`),
    );
  });

  it('a file that does not exist: one line naming ROLES_FILE and the path', () => {
    const path = join(dir, 'missing.json');
    expectOneLineFailure(
      startWith({ ROLES_FILE: path }),
      new RegExp(`^Invalid settings: ROLES_FILE \\(${escaped(path)}\\): cannot be read: ENOENT`),
    );
  });
});

// Behaviour §1: a development secret the start cannot use is named, not blamed on JWT_SECRET (unset).
describe("a DATA_DIR's jwt-secret the start cannot use", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it.each<[string, (file: string) => void, string]>([
    ['a directory', (file) => mkdirSync(file), 'is a directory'],
    ['a link to nothing', (file) => symlinkSync('/nonexistent/target', file), 'is a link to nothing'],
    ['a short file', (file) => writeFileSync(file, 'short'), 'holds fewer than 32 bytes'],
    ['an empty file', (file) => writeFileSync(file, ''), 'holds fewer than 32 bytes'],
  ])('%s: one line naming the file and what to do', (_, make, what) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'orgs-secret-'));
    dirs.push(dataDir);
    const file = join(dataDir, 'jwt-secret');
    make(file);
    const result = runToExit(SERVICE_ENTRY, { DATA_DIR: dataDir, DATABASE_URL: ':memory:' });
    expectOneLineFailure(
      result,
      new RegExp(`^DATA_DIR's development secret ${file} ${what}: remove it .*, or set JWT_SECRET$`, 'm'),
    );
  });
});

describe('a start that fails on its setup says what to fix in one line', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((server) => server.close()));

  it.each(['true', 'false'])('an unreachable database (MIGRATE_ON_START=%s)', async (migrateOnStart) => {
    const port = await freePort();
    const result = runToExit(SERVICE_ENTRY, {
      JWT_SECRET: TEST_SECRET,
      DATABASE_URL: `mariadb://orgs:secret-password@127.0.0.1:${port}/orgs`,
      MIGRATE_ON_START: migrateOnStart,
    });
    expectOneLineFailure(
      result,
      new RegExp(`Cannot reach the database at 127\\.0\\.0\\.1:${port}: connection refused.*DATABASE_URL`),
    );
    expect(result.stderr).not.toContain('secret-password');
  });

  it('a wrong database password', () => {
    const url = new URL(mariadbUrl());
    url.password = 'wrong-password';
    const result = runToExit(SERVICE_ENTRY, { JWT_SECRET: TEST_SECRET, DATABASE_URL: `${url.href}/orgs` });
    expectOneLineFailure(
      result,
      new RegExp(`refused user "${url.username}": wrong password or unknown user; check them in DATABASE_URL`),
    );
    expect(result.stderr).not.toContain('wrong-password');
  });

  // A typo in the name must not start the service on a new, empty database.
  it.each(['true', 'false'])(
    'a database that does not exist (MIGRATE_ON_START=%s), which stays so',
    async (migrateOnStart) => {
      const url = new URL(mariadbUrl());
      const name = `orgs_test_missing_${randomBytes(6).toString('hex')}`;
      const result = runToExit(SERVICE_ENTRY, {
        JWT_SECRET: TEST_SECRET,
        DATABASE_URL: `${url.href.replace(/\/$/, '')}/${name}`,
        MIGRATE_ON_START: migrateOnStart,
      });
      expectOneLineFailure(
        result,
        new RegExp(`The database "${name}" does not exist at ${url.hostname}:${url.port}: .*DATABASE_URL`),
      );
      expect(result.stderr).not.toContain(`:${url.password}@`);
      const admin = await mysql.createConnection({ uri: url.href.replace(/^mariadb:/, 'mysql:') });
      try {
        const [found] = await admin.query('select schema_name from information_schema.schemata where schema_name = ?', [
          name,
        ]);
        expect(found).toEqual([]);
      } finally {
        await admin.end();
      }
    },
  );

  it('a port in use', async () => {
    const taken = await listeningServer();
    servers.push(taken);
    const result = startWith({
      PORT: String(portOf(taken)),
    });
    expectOneLineFailure(
      result,
      new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${portOf(taken)} for PORT: the port is in use.*set PORT$`, 'm'),
    );
  });

  it('a metrics port in use', async () => {
    const taken = await listeningServer();
    servers.push(taken);
    const result = startWith({
      PORT: '0',
      METRICS_PORT: String(portOf(taken)),
    });
    expectOneLineFailure(
      result,
      new RegExp(
        `Cannot listen on 127\\.0\\.0\\.1:${portOf(taken)} for METRICS_PORT: the port is in use.*set METRICS_PORT$`,
        'm',
      ),
    );
  });

  it('a metrics port that is the service port', async () => {
    const port = String(await freePort());
    const result = startWith({
      PORT: port,
      METRICS_PORT: port,
    });
    expectOneLineFailure(
      result,
      new RegExp(`${port} for PORT: METRICS_PORT is the same port; set PORT and METRICS_PORT to different ports`),
    );
  });

  // Node's own recursive mkdir spins forever there: the start must end, and say why.
  describe.skipIf(!existsSync('/proc/self'))('a directory that cannot be made (under /proc)', () => {
    const bounded: SpawnSyncOptions = { timeout: 10_000 };

    it('for the development secret (DATA_DIR)', () => {
      const result = runToExit(SERVICE_ENTRY, { DATA_DIR: '/proc/nope', DATABASE_URL: ':memory:' }, [], bounded);
      expectOneLineFailure(result, /Cannot make the directory \/proc\/nope: .*set DATA_DIR/);
    });

    it('for the embedded database (DATABASE_URL)', () => {
      const env = { JWT_SECRET: TEST_SECRET, DATABASE_URL: 'file:/proc/nope/data/orgs.db' };
      const result = runToExit(SERVICE_ENTRY, env, [], bounded);
      expectOneLineFailure(result, /Cannot make the directory \/proc\/nope: .*set DATABASE_URL/);
    });
  });

  describe('an unwritable data directory', () => {
    const parent = mkdtempSync(join(tmpdir(), 'orgs-readonly-'));
    const readOnly = join(parent, 'data');
    spawnSync('mkdir', [readOnly]);
    chmodSync(parent, 0o755);
    chmodSync(readOnly, 0o555);
    // Root may write anywhere: the service then runs as nobody, as it would in a locked-down container,
    // from a copy of the bundle that nobody may read wherever the checkout is.
    const asRoot = process.getuid?.() === 0;
    let bundle: BundleCopy | undefined;
    beforeAll(() => void (bundle = asRoot ? copyBundleForAnyUser() : undefined));
    afterAll(() => {
      bundle?.remove();
      rmSync(parent, { recursive: true, force: true });
    });
    const runUnprivileged = (env: Record<string, string>) =>
      bundle
        ? runToExit(bundle.entry, env, [], { node: bundle.node, cwd: bundle.dir, uid: 65534, gid: 65534 })
        : runToExit(SERVICE_ENTRY, env);

    it('for the development secret (DATA_DIR)', () => {
      const result = runUnprivileged({ DATA_DIR: readOnly, DATABASE_URL: ':memory:' });
      expectOneLineFailure(result, new RegExp(`Cannot write ${readOnly}/jwt-secret: permission denied.*set DATA_DIR`));
    });

    it('for the embedded database (DATABASE_URL)', () => {
      const result = runUnprivileged({ JWT_SECRET: TEST_SECRET, DATABASE_URL: `file:${join(readOnly, 'orgs.db')}` });
      expectOneLineFailure(result, new RegExp(`Cannot write ${readOnly}/orgs.db: permission denied.*DATABASE_URL`));
    });
  });
});

/** The system's Node.js, older than the service needs on this machine (Debian's). */
const SYSTEM_NODE = '/usr/bin/node';

describe.skipIf(!existsSync(SYSTEM_NODE) && !process.env.CI)('the bundle started with an older Node.js', () => {
  it('says in one line what to run instead, without a stack', () => {
    const version = spawnSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
    expect(Number(version.slice(1).split('.')[0]), `${SYSTEM_NODE} is ${version}`).toBeLessThan(NEEDED_NODE_MAJOR);
    const result = runToExit(SERVICE_ENTRY, { JWT_SECRET: TEST_SECRET, DATABASE_URL: ':memory:' }, [], {
      node: SYSTEM_NODE,
    });
    expectOneLineFailure(
      result,
      new RegExp(
        `Node\\.js ${version.replaceAll('.', '\\.')} .*needs Node\\.js ${NEEDED_NODE_MAJOR}: ` +
          `run npm start, or node_modules/\\.bin/node dist/server/main\\.js`,
      ),
    );
  });
});

describe('npm start', () => {
  it('builds the bundle and the console, and runs the bundle as the tests and the bench start the service', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(scripts.start).toBe(
      `node server/build.ts && node console/build.ts && exec node ${SERVICE_ARGUMENTS.join(' ')}`,
    );
  });

  it('runs a bundle of ASCII only, whose source V8 then keeps at one byte per character', () => {
    const bundleDir = dirname(SERVICE_ENTRY);
    const scripts = readdirSync(bundleDir).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(1);
    for (const name of scripts) {
      expect(readFileSync(join(bundleDir, name), 'latin1'), name).toMatch(/^\p{ASCII}*$/u);
    }
  });

  it("takes Node's built-in modules with require, not as ES modules, whose namespaces would load more at start", () => {
    const bundleDir = dirname(SERVICE_ENTRY);
    const scripts = readdirSync(bundleDir).filter((name) => name.endsWith('.js'));
    const imported = scripts.flatMap((name) =>
      [...readFileSync(join(bundleDir, name), 'utf8').matchAll(/^import\b[^;]*?\bfrom\s*"([^"]+)"/gm)].map(
        (match) => `${name}: ${match[1]}`,
      ),
    );
    expect(imported.some((line) => line.endsWith('libsql'))).toBe(true);
    expect(imported.filter((line) => isBuiltin(line.split(': ')[1]!))).toEqual([]);
  });
});

describe('npm start with no settings but a data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orgs-start-'));
  // The embedded database's folder does not exist yet: the start makes it.
  const databaseFile = join(dataDir, 'database', 'orgs.db');
  const env = { DATA_DIR: dataDir, DATABASE_URL: `file:${databaseFile}`, PORT: '0' };
  let service: ServiceProcess | undefined;
  afterAll(() => {
    service?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs one start line, serves, accepts a token from npm run token, logs one JSON line per request, and stops on SIGTERM', async () => {
    service = await spawnService(env, { npmStart: true });
    const { baseUrl } = service;
    const starts = service.entries().filter((entry) => entry.address);
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({
      url: baseUrl,
      docs: `${baseUrl}/docs`,
      database: `file:${databaseFile}`,
      migrationsApplied: sqliteMigrations.map((migration) => migration.name),
      msg: expect.stringContaining(`listening on ${baseUrl} (API reference at ${baseUrl}/docs)`),
    });
    expect(service.lines.join('\n')).not.toContain('Server listening at');
    expect((await fetch(starts[0]!.docs)).status).toBe(200);
    expect(existsSync(databaseFile)).toBe(true);
    // It holds webhook secrets and private metadata: its owner's alone, as the development secret is.
    for (const file of [databaseFile, `${databaseFile}-wal`, join(dataDir, 'jwt-secret')]) {
      expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
    }

    const minted = runToExit('server/cli/token.ts', env, ['--sub', 'dev-user', '--role', 'owner']);
    expect(minted.status).toBe(0);
    const token = minted.stdout.trim();
    expect(token.split('.')).toHaveLength(3);

    const response = await fetch(`${baseUrl}/api/organizations`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'startup-test' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, 200));
    const requestLines = service.lines.filter((line) => line.includes('"startup-test"'));
    expect(requestLines).toHaveLength(1);
    expect(JSON.parse(requestLines[0]!)).toMatchObject({
      reqId: 'startup-test',
      method: 'GET',
      url: '/api/organizations',
      status: 200,
    });
    expect(service.lines.join('\n')).not.toContain(token);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(isRunning(service.pid)).toBe(false);
  });
});

describe('the start line on MariaDB', () => {
  it('names the database without its password', async () => {
    const [, mariadb] = databaseTargets();
    const database = await mariadb!.create();
    const service = await spawnService({ DATABASE_URL: database.url, JWT_SECRET: TEST_SECRET });
    try {
      const withoutPassword = new URL(database.url);
      withoutPassword.password = '';
      const start = service.entries().find((entry) => entry.address)!;
      expect(start.database).toBe(withoutPassword.href);
      expect(start.msg).toContain(`database ${withoutPassword.href}, migrations applied: Migration`);
      const password = new URL(database.url).password;
      expect(service.lines.join('\n')).not.toContain(`:${password}@`);
    } finally {
      service.kill();
      await database.drop();
    }
  });
});

describe('the start line with METRICS_PORT', () => {
  it('gives the metrics URL in its message, beside the API reference', async () => {
    const service = await spawnService({ DATABASE_URL: ':memory:', JWT_SECRET: TEST_SECRET, METRICS_PORT: '0' });
    try {
      const start = service.entries().find((entry) => entry.address)!;
      expect(start.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(start.msg).toContain(
        `listening on ${service.baseUrl} (API reference at ${service.baseUrl}/docs, metrics at ${start.metrics}), `,
      );
      expect((await fetch(start.metrics)).status).toBe(200);
    } finally {
      service.kill();
    }
  });
});
