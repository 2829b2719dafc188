/**
 * Readiness reflects the database from the start (behaviour §1): an instance started with
 * MIGRATE_ON_START=false, on a database migrated beforehand by `npm run migrate`, answers /readyz
 * 200 before it has served anything else, 503 while its database is away, 200 once it is back.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnMariadb } from './support/mariadb-instance.ts';
import { failWithout, ownMariadbMissing } from './support/needs.ts';
import { projectRoot, spawnService, type ServiceProcess } from './support/process.ts';
import { TEST_SECRET } from './support/tokens.ts';

describe('readiness with MIGRATE_ON_START=false on MariaDB', () => {
  failWithout(ownMariadbMissing());
  const database = new OwnMariadb();
  let service: ServiceProcess | undefined;
  beforeAll(() => database.start(), 60_000);
  afterAll(async () => {
    service?.kill();
    await database.destroy();
  });

  it('is ready before any other request, not ready while the database is away, ready again after', async () => {
    const migrated = spawnSync(process.execPath, ['server/cli/migrate.ts'], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
      encoding: 'utf8',
    });
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
});
