/** `npm run migrate`: applies the pending migrations to DATABASE_URL and exits. */
import { readSettings, type Settings } from '../platform/config.ts';
import { migrate, openDatabase, pingDatabase } from '../platform/database/orm.ts';
import { exitWithFailure } from './failures.ts';

let settings: Settings | undefined;
try {
  settings = readSettings();
  const orm = await openDatabase(settings.database);
  try {
    // A database that does not exist is refused in one line, never created (the migrator would).
    await pingDatabase(orm);
    const applied = await migrate(orm);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Nothing to apply: the database is up to date');
  } finally {
    await orm.close();
  }
} catch (error) {
  exitWithFailure(error, settings);
}
