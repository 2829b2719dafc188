/**
 * The embedded database's file held by another process (behaviour §10), as `sqlite3 orgs.db .dump`,
 * a backup, `npm run app-key` or any other connection to the file may hold it:
 * - the service, the bundle as `npm start` runs it, keeps answering: its event loop never waits
 *   for the file's lock, so `/healthz` and reads answer at once; a change that meets another
 *   process's write lock is tried again until its DB_TIMEOUT_MS is spent, then answered 503 with
 *   Retry-After and not stored, and the next goes through once the lock is gone; a mere reader (an
 *   open read transaction) holds no change back, the file being in WAL mode, to which the start
 *   switches a file made before (the other process there is this test's own, with node:sqlite,
 *   another SQLite than the service's libSQL);
 * - a start that cannot have the file to itself to switch it fails in one line;
 * - below HTTP, the data layer on a file whose write lock a child process holds: a change and a
 *   write on its own refused busy leave nothing behind that would refuse the next change's COMMIT
 *   once the lock is gone (libSQL leaves a statement that failed unfinished: orm.ts).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseTimeout } from '../server/platform/database/failures.ts';
import type { Orm } from '../server/platform/database/orm.ts';
import type { Database } from '../server/platform/database/schema.ts';
import { Db } from '../server/platform/database/transaction.ts';
import { databaseTarget, openMigrated, type TestDatabase } from './support/databases.ts';
import { registerUser, createOrganization, uniqueId, type TestUser } from './support/fixtures.ts';
import { projectRoot, SERVICE_ARGUMENTS, spawnService, type ServiceProcess } from './support/process.ts';
import { callerAt, type TestServer } from './support/server.ts';
import { ANSWER_MARGIN_MS, LOADED_MACHINE_SLACK_MS, timedAnswer, type TimedAnswer } from './support/timing.ts';
import { TEST_SECRET } from './support/tokens.ts';

/**
 * Long enough that an event loop held for a statement's lock wait, as it was, stands far above
 * what a prompt answer may take on a loaded machine (LOADED_MACHINE_SLACK_MS).
 */
const DB_TIMEOUT_MS = 3000;

/** How long a prompt answer may take: at once, plus what a loaded machine adds. */
const PROMPT_MS = 250 + LOADED_MACHINE_SLACK_MS;

type Timed = TimedAnswer<{ code?: string; message?: string; organization_name?: string }>;

const timed = (send: () => Promise<Response>): Promise<Timed> => timedAnswer(send);

describe('the embedded database file held by another process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orgs-busy-'));
  const file = join(dir, 'orgs.db');
  const url = `file:${file}`;
  let service: ServiceProcess | undefined;
  let server: Pick<TestServer, 'baseUrl' | 'request' | 'call'>;
  /** The other process's connection to the file. */
  let other: DatabaseSync;
  let owner: TestUser;
  let organizationId: string;
  /** The journal mode the file had before the service first opened it. */
  let journalBefore: unknown;

  beforeAll(async () => {
    // A file made as every release before WAL made it: in rollback-journal mode.
    const migrated = spawnSync(process.execPath, ['server/cli/migrate.ts'], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
      encoding: 'utf8',
    });
    expect(migrated.stdout).toMatch(/^Applied: /);
    other = new DatabaseSync(file);
    journalBefore = other.prepare('pragma journal_mode').get()?.journal_mode;
    service = await spawnService({ DATABASE_URL: url, JWT_SECRET: TEST_SECRET, DB_TIMEOUT_MS: String(DB_TIMEOUT_MS) });
    server = callerAt(service.baseUrl);
    owner = await registerUser(server as TestServer);
    organizationId = await createOrganization(server as TestServer, owner);
  }, 60_000);

  afterAll(() => {
    service?.kill();
    other?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rename = (name: string) => () =>
    server.request('PUT', `/organizations/${organizationId}`, {
      token: owner.token,
      body: { organization_name: name },
    });
  const readOrganization = () => server.request('GET', `/organizations/${organizationId}`, { token: owner.token });
  const health = () => server.request('GET', '/healthz');

  /** /healthz, every 100 ms while `until` is pending: how long each took. */
  async function healthWhile(until: Promise<unknown>): Promise<Timed[]> {
    const answers: Timed[] = [];
    let done = false;
    void until.finally(() => (done = true));
    while (!done) {
      answers.push(await timed(health));
      await sleep(100);
    }
    return answers;
  }

  it('is switched to WAL mode at start, a file made before included', () => {
    expect(journalBefore).toBe('delete');
    const fresh = new DatabaseSync(file);
    try {
      expect(fresh.prepare('pragma journal_mode').get()?.journal_mode).toBe('wal');
    } finally {
      fresh.close();
    }
  });

  it('answers /healthz and reads at once while another process holds the write lock, a change 503 with Retry-After at the end of DB_TIMEOUT_MS, not stored, and the next change once the lock is gone', async () => {
    // What a writer in another process holds until it commits (in WAL mode EXCLUSIVE is IMMEDIATE).
    other.exec('begin exclusive');
    try {
      const change = timed(rename('Changed while locked'));
      await sleep(100);
      const healthAnswers = await healthWhile(change);
      const refused = await change;
      const read = await timed(readOrganization);

      for (const answer of healthAnswers) {
        expect(answer.ms).toBeLessThan(PROMPT_MS);
        expect(answer.status).toBe(200);
      }
      expect(healthAnswers.length).toBeGreaterThan(5);
      expect(refused.status).toBe(503);
      // Answered by the change itself at the end of its budget (its last attempt found the file
      // busy, or had no time left to send anything), not by the processing limit.
      expect(refused.body).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.stringMatching(/^The database did not (answer|carry out the change) in time/),
      });
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      // Tried again until its budget was spent, not given up at the first refusal, and answered
      // by then, not at the processing limit.
      expect(refused.ms).toBeGreaterThan(DB_TIMEOUT_MS - 300);
      expect(refused.ms).toBeLessThan(DB_TIMEOUT_MS + ANSWER_MARGIN_MS);
      // A reader is not held back by another process's writer.
      expect(read.status).toBe(200);
      expect(read.body?.organization_name).toBe('Test organization');
      expect(read.ms).toBeLessThan(PROMPT_MS);
    } finally {
      other.exec('rollback');
    }

    const changed = await timed(rename('Changed after the lock'));
    expect(changed.status).toBe(200);
    expect(changed.ms).toBeLessThan(PROMPT_MS);
    // The refused change never commits later.
    await sleep(500);
    const after = await timed(readOrganization);
    expect(after.body?.organization_name).toBe('Changed after the lock');
  });

  it('carries out a change at once while another process reads in a transaction (a .dump, a backup)', async () => {
    other.exec('begin');
    try {
      expect(other.prepare('select name from organizations where id = ?').get(organizationId)).toBeDefined();
      const change = timed(rename('Changed during a backup'));
      const healthAnswers = await healthWhile(change);
      const changed = await change;
      expect(changed.status).toBe(200);
      expect(changed.ms).toBeLessThan(PROMPT_MS);
      for (const answer of healthAnswers) expect(answer.ms).toBeLessThan(PROMPT_MS);
      // The reader's snapshot is its own: it goes on seeing the file as it was when it began.
      const seen = other.prepare('select name from organizations where id = ?').get(organizationId);
      expect(seen?.name).toBe('Changed after the lock');
    } finally {
      other.exec('commit');
    }
    expect((await timed(readOrganization)).body?.organization_name).toBe('Changed during a backup');
  });

  it('answers 503, never 500, while the file cannot be written, and changes again once it can', async () => {
    // Immutable (chattr +i), which holds for root too: the log of changes and the folder.
    const immutable = [`${file}-wal`, dir];
    execFileSync('chattr', ['+i', ...immutable]);
    try {
      const refused = await timed(rename('Changed on a read-only disk'));
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect([200, 503]).toContain((await timed(readOrganization)).status);
    } finally {
      execFileSync('chattr', ['-i', ...immutable]);
    }
    const changed = await timed(rename('Changed after the disk came back'));
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  });
});

/**
 * Another process that runs `statements` on `file` and holds what they took (a lock, a read
 * transaction) until `release`. A process of its own: two SQLite libraries in one process do not
 * see each other's locks.
 */
async function holdInAnotherProcess(file: string, statements: string): Promise<{ release(): Promise<void> }> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(process.argv[1]);
    db.exec(process.argv[2]);
    process.stdout.write('held\\n');
    process.stdin.on('end', () => { db.exec('rollback'); db.close(); }).resume();
  `;
  const child = spawn(process.execPath, ['-e', script, file, statements], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return {
    async release() {
      child.stdin.end();
      await exited;
    },
  };
}

describe('the start on an embedded file made before, which another process is reading', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orgs-busy-start-'));
  const file = join(dir, 'orgs.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails in one line when the file is not its own for DB_TIMEOUT_MS, to switch it to WAL mode', async () => {
    const env = { PATH: process.env.PATH ?? '', DATABASE_URL: `file:${file}` };
    expect(spawnSync(process.execPath, ['server/cli/migrate.ts'], { cwd: projectRoot, env }).status).toBe(0);
    const reader = await holdInAnotherProcess(file, 'begin; select count(*) from users');
    try {
      const started = spawnSync(process.execPath, SERVICE_ARGUMENTS, {
        cwd: projectRoot,
        env: { ...env, JWT_SECRET: TEST_SECRET, DB_TIMEOUT_MS: '100', PORT: '0' },
        encoding: 'utf8',
        timeout: 30_000,
        killSignal: 'SIGKILL',
      });
      expect(started.stderr.trim()).toMatch(
        new RegExp(`^The embedded database ${file} is locked by another process .*: try again once it has finished$`),
      );
      expect(started.status).toBe(1);
    } finally {
      await reader.release();
    }
  });
});

describe('the data layer on an embedded file another process held', () => {
  const TIMEOUT_MS = 400;
  let database: TestDatabase;
  let orm: Orm;
  let db: Db;

  beforeAll(async () => {
    const embedded = databaseTarget('embedded');
    ({ database, orm } = await openMigrated(embedded, { poolSize: 1, timeoutMs: TIMEOUT_MS }));
    db = Db.open(orm.em, 'sqlite', {
      timeoutMs: TIMEOUT_MS,
      maxAttempts: 20,
      writeSlots: 1,
      statementsTogether: false,
      changesPerOrganization: 1,
    });
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  const addUser = (id: string) =>
    db.transaction(async (tx) => {
      await tx.run(
        tx.sql.insertInto('users').values({
          id,
          first_name: 'First',
          last_name: 'Last',
          email: `${id}@example.com`,
          created_at: tx.timestamp(),
          updated_at: tx.timestamp(),
        }),
      );
    });
  const renameUser = (id: string, name: string) =>
    db.run(db.sql.updateTable('users').set({ first_name: name }).where('id', '=', id));

  it('refuses changes while the lock is held, in time, and commits the next ones at once when it is gone', async () => {
    const id = uniqueId('locked');
    const lock = await holdInAnotherProcess(database.url.replace(/^file:/, ''), 'begin immediate');
    try {
      const started = performance.now();
      await expect(addUser(id)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      await expect(renameUser(id, 'Renamed')).rejects.toSatisfy(isDatabaseTimeout);
      // Both tried again until their time was spent, and not much longer.
      expect(performance.now() - started).toBeGreaterThan(2 * (TIMEOUT_MS - 250));
      expect(performance.now() - started).toBeLessThan(2 * TIMEOUT_MS + LOADED_MACHINE_SLACK_MS);
      // Reads are not held back.
      expect(await db.all(db.sql.selectFrom('users').select('id').where('id', '=', id))).toEqual([]);
    } finally {
      await lock.release();
    }
    await addUser(id);
    await renameUser(id, 'Renamed');
    await addUser(uniqueId('after'));
    const sql = orm.em.getKysely<Database>();
    expect(await sql.selectFrom('users').select('first_name').where('id', '=', id).execute()).toEqual([
      { first_name: 'Renamed' },
    ]);
  });
});
