/**
 * Graceful shutdown: writes keep arriving while SIGTERM lands. Every write that got a 2xx must be
 * in the database afterwards, and no other; the process must exit 0.
 */
import { expect, it } from 'vitest';
import { openDatabase } from '../server/data/orm.ts';
import { Organization } from '../server/data/entities.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { spawnService } from './support/process.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

const WORKERS = 8;

describeOnEachDatabase('graceful shutdown', (target) => {
  it('finishes in-flight writes, keeps exactly the acknowledged ones, and exits 0', async () => {
    const database = await target.create();
    try {
      const service = await spawnService({ DATABASE_URL: database.url, JWT_SECRET: TEST_SECRET });
      const token = await tokenFor('shutdown-owner', { role: 'owner' });
      const post = (path: string, body: object) =>
        fetch(`${service.baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect(
        (await post('/users', { first_name: 'Shut', last_name: 'Down', email: 'shutdown@example.com' })).status,
      ).toBe(201);

      const acknowledged: string[] = [];
      let sent = 0;
      let refused = 0;
      const worker = async () => {
        for (;;) {
          sent++;
          try {
            const response = await post('/organizations', {
              organization_name: `org ${sent}`,
              organization_description: '',
            });
            if (response.status !== 201) {
              refused++;
              return;
            }
            acknowledged.push((await response.json()).organization_id);
          } catch {
            refused++;
            return;
          }
        }
      };
      const workers = Array.from({ length: WORKERS }, worker);
      while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
      service.child.kill('SIGTERM');
      await Promise.all(workers);
      expect(await service.exited).toBe(0);
      expect(refused).toBe(WORKERS);
      expect(acknowledged.length).toBeGreaterThanOrEqual(20);

      const orm = await openDatabase(database.url);
      try {
        const stored = await orm.em.fork().find(Organization, {}, { fields: ['id'] });
        expect(stored.map((organization) => organization.id).sort()).toEqual([...acknowledged].sort());
      } finally {
        await orm.close();
      }
    } finally {
      await database.drop();
    }
  });
});
