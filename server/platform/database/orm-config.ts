/**
 * MikroORM options for a database (engine.ts): its engine picks the driver and with it the
 * migrations folder of that SQL dialect. The server, `npm run migrate` and the tests all build their
 * ORM here (orm.ts). Only the driver the URL names is loaded: the others cost start-up time and are
 * never used.
 */
import type { Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { mysqlMigrations, sqliteMigrations } from '../../../migrations/index.ts';
import type { DatabaseLocation } from './engine.ts';
import { entities } from './entities.ts';

export async function createOrmConfig(database: DatabaseLocation, options: Partial<Options> = {}): Promise<Options> {
  const common: Partial<Options> = {
    entities,
    extensions: [Migrator],
    // Entities are defined with defineEntity: nothing to discover from TypeScript sources.
    discovery: { warnWhenNoEntities: true },
    forceUtcTimezone: true,
    ...options,
  };
  const { engine } = database;
  if (engine === 'sqlite') {
    const { LibSqlDriver } = await import('@mikro-orm/libsql');
    return {
      ...common,
      driver: LibSqlDriver,
      dbName: database.file,
      // Each migration in a transaction of its own, not all in one: a migration that rebuilds a table
      // turns foreign keys off first, which SQLite only allows outside a transaction.
      migrations: {
        migrationsList: sqliteMigrations,
        silent: true,
        snapshot: false,
        allOrNothing: false,
        ...common.migrations,
      },
    } as Options;
  }
  // The mysql driver's schema diff misreads MariaDB, so mariadb:// gets MariaDB's own driver.
  const driver =
    engine === 'mariadb'
      ? (await import('@mikro-orm/mariadb')).MariaDbDriver
      : (await import('@mikro-orm/mysql')).MySqlDriver;
  return {
    ...common,
    driver,
    clientUrl: database.url.replace(/^mariadb:/, 'mysql:'),
    timezone: '+00:00',
    migrations: { migrationsList: mysqlMigrations, silent: true, snapshot: false, ...common.migrations },
  } as Options;
}
