/**
 * Readiness reflects the database from the start (behaviour §1): an instance started with
 * MIGRATE_ON_START=false, on a database migrated beforehand by `npm run migrate`, answers /readyz
 * 200 before it has served anything else, 503 while its database is away, 200 once it is back; a
 * database that refuses the service's login is an outage too (503), not a failure of the request.
 */
import { spawnSync } from 'node:child_process';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnMariadb } from './support/mariadb-instance.ts';
import { failWithout, ownMariadbMissing } from './support/needs.ts';
import { projectRoot, spawnService, type ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

describe('readiness with MIGRATE_ON_START=false on MariaDB', () => {
  failWithout(ownMariadbMissing());
  const database = new OwnMariadb();
  let service: ServiceProcess | undefined;
  beforeAll(() => database.start(), 60_000);
  afterAll(async () => {
    service?.kill();
    await database.destroy();
  });

  const migrate = () =>
    spawnSync(process.execPath, ['server/cli/migrate.ts'], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
      encoding: 'utf8',
    });

  it('is ready before any other request, not ready while the database is away, ready again after', async () => {
    const migrated = migrate();
    expect(migrated.stdout).toMatch(/^Applied: /);
    expect(migrated.status).toBe(0);

    service = await spawnService({ DATABASE_URL: database.url, JWT_SECRET: TEST_SECRET, MIGRATE_ON_START: 'false' });
    const readiness = () => fetch(`${service!.baseUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
    const first = await readiness();
    expect(await first.json()).toEqual({ status: 'ready' });
    expect(first.status).toBe(200);

    await database.stop();
    const away = await readiness();
    expect(away.status).toBe(503);
    expect(await away.json()).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });

    await database.start();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await readiness()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it("answers 503 with Retry-After, never 500, while the database refuses the service's login", async () => {
    expect(migrate().status).toBe(0);
    const root = await mysql.createConnection({ host: '127.0.0.1', port: database.port, user: 'root' });
    try {
      await root.query("create user if not exists 'svc'@'127.0.0.1' identified by 'first-password'");
      await root.query("grant all on orgs.* to 'svc'@'127.0.0.1'");
      const url = `mariadb://svc:first-password@127.0.0.1:${database.port}/orgs`;
      service = await spawnService({ DATABASE_URL: url, JWT_SECRET: TEST_SECRET, MIGRATE_ON_START: 'false' });
      const token = await tokenFor('login-refused', { role: 'owner' });
      const read = () => restCall(service!.baseUrl, 'GET', '/organizations', token);
      expect((await read()).status).toBe(200);

      // A password changed under the service, and its connections gone: every new one is refused.
      await root.query("alter user 'svc'@'127.0.0.1' identified by 'second-password'");
      const [connections] = await root.query("select id from information_schema.processlist where user = 'svc'");
      for (const { id } of connections as Array<{ id: number }>) await root.query(`kill connection ${id}`);
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await fetch(`${service.baseUrl}/organizations`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(refused.status).toBe(503);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await refused.json()).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
      }
      expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(503);

      await root.query("alter user 'svc'@'127.0.0.1' identified by 'first-password'");
      await expect.poll(async () => (await read()).status, { timeout: 10_000, interval: 200 }).toBe(200);
    } finally {
      await root.end();
    }
  });
});
