import { expect, it } from 'vitest';
import { migrate, openDatabase } from '../server/data/orm.ts';
import { describeOnEachDatabase } from './support/databases.ts';

describeOnEachDatabase('migrations', (target) => {
  it('build exactly the schema the entities describe, and apply once', async () => {
    const database = await target.create();
    const orm = await openDatabase(database.url);
    try {
      expect(await migrate(orm)).toEqual(['Migration20261122212048_initial']);
      expect(await migrate(orm)).toEqual([]);
      // Empty diff: the hand-kept migrations and the entity definitions agree.
      expect((await orm.schema.getUpdateSchemaSQL()).trim()).toBe('');
    } finally {
      await orm.close();
      await database.drop();
    }
  });
});
