/** `npm run migrate`: applies the pending migrations to DATABASE_URL and exits. */
import { readSettings } from '../config.ts';
import { migrate, openDatabase } from '../data/orm.ts';

const settings = readSettings();
const orm = await openDatabase(settings.DATABASE_URL);
try {
  const applied = await migrate(orm);
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Nothing to apply: the database is up to date');
} finally {
  await orm.close();
}
