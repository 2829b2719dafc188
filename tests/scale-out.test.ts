/**
 * Two service processes against one MariaDB database, as behind a load balancer: started together
 * they migrate once between them, and membership changes raced across them keep the last-owner
 * rule and unique memberships.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTarget } from './support/databases.ts';
import { failWithout } from './support/needs.ts';
import { spawnService, type ServiceProcess } from './support/process.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';
import { uniqueId } from './support/fixtures.ts';
import { restCall } from './support/rest-call.ts';

const mariadb = databaseTarget('mariadb');
const ROUNDS = 6;

describe('two instances on one MariaDB', () => {
  failWithout(mariadb.missing);
  const instances: ServiceProcess[] = [];
  let drop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const database = await mariadb.create();
    drop = database.drop;
    const env = { DATABASE_URL: database.url, JWT_SECRET: TEST_SECRET, RATE_LIMIT_MAX: '0' };
    // Started together on an empty database, as a deployment starts its instances: each tries to
    // migrate at start, and both must come up.
    instances.push(...(await Promise.all([spawnService(env), spawnService(env)])));
  }, 60_000);
  afterAll(async () => {
    for (const instance of instances) {
      instance.child.kill('SIGTERM');
      await instance.exited;
    }
    await drop();
  });

  const call = (
    instance: number,
    method: string,
    path: string,
    token: string,
    body?: object,
    organizationId?: string,
  ) => restCall(instances[instance]!.baseUrl, method, path, token, body, organizationId);

  async function user(instance: number) {
    const id = uniqueId('scale');
    const token = await tokenFor(id, { role: 'owner' });
    const created = await call(instance, 'POST', '/users', token, {
      first_name: 'Scale',
      last_name: 'Out',
      email: `${id}@example.com`,
    });
    expect(created.status).toBe(201);
    return { id, token, email: `${id}@example.com` };
  }

  it('migrates once when both start together on an empty database', () => {
    const migrated = instances.filter((instance) =>
      instance.entries().some((entry) => Array.isArray(entry.address) && entry.migrationsApplied.length > 0),
    );
    expect(migrated).toHaveLength(1);
  });

  it('keeps one owner when two owners demote each other through different instances', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const first = await user(0);
      const second = await user(1);
      const organizationId = (
        await call(0, 'POST', '/organizations', first.token, { organization_name: 'x', organization_description: '' })
      ).body.organization_id;
      expect(
        (
          await call(
            1,
            'POST',
            '/organization-user',
            first.token,
            { email: second.email, role: 'owner' },
            organizationId,
          )
        ).status,
      ).toBe(201);
      const results = await Promise.all([
        call(0, 'PUT', '/organization-user', first.token, { user_id: second.id, role: 'member' }, organizationId),
        call(1, 'PUT', '/organization-user', second.token, { user_id: first.id, role: 'member' }, organizationId),
      ]);
      expect(results.map((result) => result.status).sort()[0]).toBe(200);
      // Both stay members, so either may read the list, through either instance.
      const list = await call(round % 2, 'GET', '/organization-user', first.token, undefined, organizationId);
      expect(list.body.filter((member: { role: string }) => member.role === 'owner')).toHaveLength(1);
    }
  });

  it('makes one membership when both instances add the same user at once', async () => {
    const owner = await user(0);
    const newcomer = await user(1);
    const organizationId = (
      await call(0, 'POST', '/organizations', owner.token, { organization_name: 'x', organization_description: '' })
    ).body.organization_id;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        call(
          index % 2,
          'POST',
          '/organization-user',
          owner.token,
          { email: newcomer.email, role: 'member' },
          organizationId,
        ),
      ),
    );
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });
});
