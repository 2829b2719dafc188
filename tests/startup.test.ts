/**
 * The service as `npm start` runs it: a child process with only environment settings, one start
 * line that says where it listens, on which database and where the docs are, its pino logs on
 * stdout, the development secret shared with `npm run token`, and a clean SIGTERM. A start that
 * fails on its setup ends with one line on stderr that says what to fix, and no stack.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { databaseTargets } from './support/databases.ts';
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

function runToExit(script: string, env: Record<string, string>, args: string[] = [], options: SpawnSyncOptions = {}) {
  const result = spawnSync(process.execPath, [script, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
    ...options,
  });
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** The start failed with exactly one line on stderr, no stack, matching `what`. */
function expectOneLineFailure(result: ReturnType<typeof runToExit>, what: RegExp) {
  expect(result.stderr).toMatch(what);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.status).toBe(1);
}

async function listeningServer(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

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
    const result = runToExit(SERVICE_ENTRY, { JWT_SECRET: TEST_SECRET, DATABASE_URL: 'postgres://db/x' });
    expectOneLineFailure(result, /DATABASE_URL: .*mysql:\/\/, mariadb:\/\/, file: or .*:memory:/);
  });

  it('refuses a drain that does not end before the stop times out', () => {
    const result = runToExit(SERVICE_ENTRY, {
      JWT_SECRET: TEST_SECRET,
      DATABASE_URL: ':memory:',
      SHUTDOWN_DRAIN_MS: '10000',
    });
    expectOneLineFailure(result, /SHUTDOWN_TIMEOUT_MS must be longer than SHUTDOWN_DRAIN_MS plus .* 21000 ms/);
  });
});

describe('a start that fails on its setup says what to fix in one line', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((server) => server.close()));

  it.each(['true', 'false'])('an unreachable database (MIGRATE_ON_START=%s)', async (migrateOnStart) => {
    // A port that was free a moment ago: nothing listens there.
    const closed = await listeningServer();
    const port = portOf(closed);
    await new Promise((resolve) => closed.close(resolve));
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

  it.skipIf(!inject('mariadbUrl'))('a wrong database password', () => {
    const url = new URL(inject('mariadbUrl'));
    url.password = 'wrong-password';
    const result = runToExit(SERVICE_ENTRY, { JWT_SECRET: TEST_SECRET, DATABASE_URL: `${url.href}/orgs` });
    expectOneLineFailure(
      result,
      new RegExp(`refused user "${url.username}": wrong password or unknown user; check them in DATABASE_URL`),
    );
    expect(result.stderr).not.toContain('wrong-password');
  });

  it('a port in use', async () => {
    const taken = await listeningServer();
    servers.push(taken);
    const result = runToExit(SERVICE_ENTRY, {
      JWT_SECRET: TEST_SECRET,
      DATABASE_URL: ':memory:',
      PORT: String(portOf(taken)),
    });
    expectOneLineFailure(result, new RegExp(`127\\.0\\.0\\.1:${portOf(taken)}: the port is in use.*set PORT`));
  });

  describe('an unwritable data directory', () => {
    const parent = mkdtempSync(join(tmpdir(), 'orgs-readonly-'));
    const readOnly = join(parent, 'data');
    spawnSync('mkdir', [readOnly]);
    chmodSync(parent, 0o755);
    chmodSync(readOnly, 0o555);
    // Root may write anywhere: the service then runs as nobody, as it would in a locked-down container.
    const asUnprivileged: SpawnSyncOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    afterAll(() => rmSync(parent, { recursive: true, force: true }));

    it('for the development secret (DATA_DIR)', () => {
      const env = { DATA_DIR: readOnly, DATABASE_URL: ':memory:' };
      const result = runToExit(SERVICE_ENTRY, env, [], asUnprivileged);
      expectOneLineFailure(result, new RegExp(`Cannot write ${readOnly}/jwt-secret: permission denied.*set DATA_DIR`));
    });

    it('for the embedded database (DATABASE_URL)', () => {
      const env = { JWT_SECRET: TEST_SECRET, DATABASE_URL: `file:${join(readOnly, 'orgs.db')}` };
      const result = runToExit(SERVICE_ENTRY, env, [], asUnprivileged);
      expectOneLineFailure(
        result,
        new RegExp(`Cannot open or create the embedded database ${readOnly}/orgs.db: .*writable.*DATABASE_URL`),
      );
    });
  });
});

describe('npm start', () => {
  it('builds the bundle and runs it as the tests and the bench start the service', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(scripts.start).toBe(`node server/build.ts && exec node ${SERVICE_ARGUMENTS.join(' ')}`);
  });

  it('runs a bundle of ASCII only, whose source V8 then keeps at one byte per character', () => {
    const bundleDir = dirname(SERVICE_ENTRY);
    const scripts = readdirSync(bundleDir).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(1);
    for (const name of scripts) {
      expect(readFileSync(join(bundleDir, name), 'latin1'), name).toMatch(/^[\x00-\x7f]*$/);
    }
  });
});

describe('npm start with no settings but a data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orgs-start-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: `file:${join(dataDir, 'orgs.db')}`, PORT: '0' };
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
      database: `file:${join(dataDir, 'orgs.db')}`,
      migrationsApplied: sqliteMigrations.map((migration) => migration.name),
      msg: expect.stringContaining(`listening on ${baseUrl} (API reference at ${baseUrl}/docs)`),
    });
    expect(service.lines.join('\n')).not.toContain('Server listening at');
    expect((await fetch(starts[0]!.docs)).status).toBe(200);

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

describe.skipIf(!inject('mariadbUrl'))('the start line on MariaDB', () => {
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
