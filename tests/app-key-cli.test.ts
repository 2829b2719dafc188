/**
 * `npm run app-key` (behaviour §16): the operator makes, lists and revokes the application's keys
 * against the database the service runs on, with each database setting (the embedded default in
 * the folder it runs in, DATABASE_URL naming MariaDB); the key then works on the service run from
 * its bundle, as `npm start` runs it, and is refused (401) by the running service once revoked.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { printedSecret, runAppKey, type AppKeyOptions } from './support/app-key.ts';
import { databaseTarget, databaseTargets, mariadbUrl } from './support/databases.ts';
import { failWithout } from './support/needs.ts';
import { spawnService, type SpawnOptions } from './support/process.ts';
import { callerAt } from './support/server.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

/** A service started from its bundle, three runs of the tool and a few calls, on a loaded machine. */
const RUN_MS = 240_000;
const APPLICATION_KEY_SECRET = /^sak_[A-Za-z0-9_-]{43}$/;

describe('npm run app-key', () => {
  it(
    'prints its usage on --help and refuses wrong options in one line with exit code 2',
    { timeout: RUN_MS },
    async () => {
      const cases = [
        [[], /say create, list or revoke/],
        [['create'], /create needs --name NAME/],
        [['revoke'], /revoke needs --id KEY_ID/],
        [['revoke', '--id', 'not-a-uuid'], /--id must be a key id/],
        [['create', '--name', ''], /--name must be a name of 1 to 100 characters/],
        [['list', '--colour', 'red'], /Unknown option '--colour'/],
      ] as const;
      const [help, ...runs] = await Promise.all([
        runAppKey(['--help'], {}),
        ...cases.map(([args]) => runAppKey([...args], {})),
      ]);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^Usage: npm run -s app-key -- create --name NAME/);
      for (const [index, run] of runs.entries()) {
        expect(run.stderr).toMatch(cases[index]![1]);
        expect(run.stderr).toMatch(/^npm run app-key: .*\n$/);
        expect(run.status).toBe(2);
      }
      // A database the service does not run on: refused, and no file made.
      const folder = mkdtempSync(join(tmpdir(), 'orgs-app-key-'));
      try {
        const missing = join(folder, 'orgs.db');
        const [onMissingFile, inMemory] = await Promise.all([
          runAppKey(['create', '--name', 'Lost'], { DATABASE_URL: `file:${missing}` }),
          runAppKey(['list'], { DATABASE_URL: ':memory:' }),
        ]);
        expect(onMissingFile.stderr).toMatch(
          new RegExp(`^npm run app-key: DATABASE_URL names ${missing}, which does not exist`),
        );
        expect(onMissingFile.status).toBe(1);
        expect(existsSync(missing)).toBe(false);
        expect(inMemory.stderr).toMatch(/^npm run app-key: DATABASE_URL=:memory: is a database of this command alone/);
        expect(inMemory.status).toBe(1);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  interface Setting {
    name: string;
    /** DATABASE_URL, or none for the embedded default in the folder the tool and the service run in. */
    databaseUrl?: () => string;
    tool: AppKeyOptions;
  }
  const settings: Setting[] = [
    { name: 'the embedded default (no DATABASE_URL)', tool: {} },
    {
      name: 'DATABASE_URL naming MariaDB, through the README command',
      databaseUrl: () => mariadbUrl(),
      tool: { npm: true },
    },
  ];

  for (const setting of settings) {
    describe(`with ${setting.name}`, () => {
      if (setting.databaseUrl) failWithout(databaseTarget('mariadb').missing);

      it(
        'creates a key that works on the bundled service, lists it, and revokes it: 401 at once',
        { timeout: RUN_MS },
        async () => {
          const folder = mkdtempSync(join(tmpdir(), 'orgs-app-key-'));
          const database = setting.databaseUrl
            ? await databaseTargets()
                .find((target) => target.name === 'mariadb')!
                .create()
            : undefined;
          const env: Record<string, string> = {
            JWT_SECRET: TEST_SECRET,
            ...(database && { DATABASE_URL: database.url }),
          };
          const where: AppKeyOptions = { ...setting.tool, cwd: folder };
          const spawnOptions: SpawnOptions = { cwd: folder };
          const service = await spawnService(env, spawnOptions);
          try {
            const created = await runAppKey(['create', '--name', 'Billing'], env, where);
            expect(created.status, created.stderr).toBe(0);
            const secret = printedSecret(created);
            expect(secret).toMatch(APPLICATION_KEY_SECRET);
            const keyId = /Application key ([0-9a-f-]{36}) \(Billing\)/.exec(created.stdout)?.[1];
            expect(keyId).toBeDefined();

            const server = callerAt(service.baseUrl);
            const owner = await tokenFor('cli-owner', { role: 'owner' });
            const user = { first_name: 'Cleo', last_name: 'Owner', email: 'cleo@example.com' };
            expect((await server.call('POST', '/users', { token: owner, body: user })).status).toBe(201);
            const made = await server.call('POST', '/organizations', {
              token: secret,
              body: { organization_name: 'Paid', organization_description: '', owner_user_id: 'cli-owner' },
            });
            expect(made.status, JSON.stringify(made.body)).toBe(201);
            const organizationPath = `/organizations/${made.body.organization_id}`;
            expect((await server.call('GET', organizationPath, { token: owner })).body.role).toBe('owner');
            expect((await server.call('GET', organizationPath, { token: secret })).status).toBe(200);

            // The use is written after the answer: list until it shows.
            let line = '';
            for (let tries = 0; tries < 50; tries++) {
              const listed = await runAppKey(['list'], env, where);
              expect(listed.status, listed.stderr).toBe(0);
              line = listed.stdout.split('\n').find((each) => each.startsWith(keyId!)) ?? '';
              if (!line.includes('never used')) break;
              await sleep(200);
            }
            expect(line).toContain(`${secret.slice(0, 12)}…  Billing  created `);
            expect(line).not.toContain('never used');
            expect(line).toMatch(/ live$/);
            expect(line).not.toContain(secret.slice(12));

            const revoked = await runAppKey(['revoke', '--id', keyId!], env, where);
            expect(revoked).toMatchObject({ status: 0, stdout: `Application key ${keyId} revoked\n` });
            expect((await server.call('GET', organizationPath, { token: secret })).status).toBe(401);
            const listed = await runAppKey(['list'], env, where);
            expect(listed.stdout).toMatch(new RegExp(`^${keyId}  .* revoked \\d{4}-`, 'm'));
            const again = await runAppKey(['revoke', '--id', keyId!], env, where);
            expect(again.status).toBe(1);
            expect(again.stderr).toContain(`no live application key has the id ${keyId}`);
          } finally {
            service.kill();
            await service.exited;
            await database?.drop();
            rmSync(folder, { recursive: true, force: true });
          }
        },
      );
    });
  }
});
