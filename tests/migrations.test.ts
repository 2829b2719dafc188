import { expect, it } from 'vitest';
import { migrate, openDatabase } from '../server/data/orm.ts';
import { describeOnEachDatabase } from './support/databases.ts';

const INITIAL = 'Migration20261122212048_initial';
const LIFECYCLE = 'Migration20261123170000_lifecycle_events_idempotency';

describeOnEachDatabase('migrations', (target) => {
  it('build exactly the schema the entities describe, and apply once', async () => {
    const database = await target.create();
    const orm = await openDatabase(database.url);
    try {
      expect(await migrate(orm)).toEqual([INITIAL, LIFECYCLE]);
      expect(await migrate(orm)).toEqual([]);
      // Empty diff: the hand-kept migrations and the entity definitions agree.
      expect((await orm.schema.getUpdateSchemaSQL()).trim()).toBe('');
    } finally {
      await orm.close();
      await database.drop();
    }
  });

  it('keep the rows of a database made by an earlier release', async () => {
    const database = await target.create();
    const orm = await openDatabase(database.url);
    try {
      await orm.migrator.up({ to: INITIAL });
      const created = target.name === 'embedded' ? 1_700_000_000_123 : '2023-11-14 22:13:20.123';
      const run = (sql: string, params: unknown[]) => orm.em.getConnection().execute(sql, params, 'run');
      await run('insert into users values (?, ?, ?, ?, ?, ?)', [
        'u1',
        'Ann',
        'Lee',
        'ann@example.com',
        created,
        created,
      ]);
      await run('insert into organizations values (?, ?, ?, ?, ?)', ['o1', 'Acme', '', 'u1', created]);
      await run('insert into organization_users values (?, ?, ?, ?, ?)', ['o1', 'u1', 'owner', created, created]);

      expect(await migrate(orm)).toEqual([LIFECYCLE]);

      const organizations = await orm.em
        .getConnection()
        .execute('select id, created_at, updated_at, version from organizations');
      expect(organizations).toEqual([{ id: 'o1', created_at: created, updated_at: created, version: 0 }]);
      // Rebuilding the organizations table must not cascade to its memberships.
      const members = await orm.em
        .getConnection()
        .execute('select organization_id, user_id, role from organization_users');
      expect(members).toEqual([{ organization_id: 'o1', user_id: 'u1', role: 'owner' }]);
      expect((await orm.schema.getUpdateSchemaSQL()).trim()).toBe('');
    } finally {
      await orm.close();
      await database.drop();
    }
  });
});
