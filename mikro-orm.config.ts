/**
 * MikroORM options for a `DATABASE_URL` (CONTRACT 1): the URL's scheme picks the driver and with it
 * the migrations folder of that SQL dialect. The server, `npm run migrate` and the tests all build
 * their ORM from here.
 */
import type { Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { LibSqlDriver } from '@mikro-orm/libsql';
import { MariaDbDriver } from '@mikro-orm/mariadb';
import { MySqlDriver } from '@mikro-orm/mysql';
import { mysqlMigrations, sqliteMigrations } from './migrations/index.ts';
import { entities } from './server/data/entities.ts';

export const DEFAULT_DATABASE_URL = 'file:./data/orgs.db';

type Dialect = 'mysql' | 'sqlite';

export function dialectOf(databaseUrl: string): Dialect {
  return databaseUrl.startsWith('mysql://') || databaseUrl.startsWith('mariadb://') ? 'mysql' : 'sqlite';
}

/** The embedded database's file path (or `:memory:`) for a `file:` / `:memory:` URL. */
export function embeddedPath(databaseUrl: string): string {
  return databaseUrl === ':memory:' ? ':memory:' : databaseUrl.replace(/^file:(\/\/)?/, '');
}

export function createOrmConfig(databaseUrl: string, options: Partial<Options> = {}): Options {
  const common: Partial<Options> = {
    entities,
    extensions: [Migrator],
    // Entities are defined with defineEntity: nothing to discover from TypeScript sources.
    discovery: { warnWhenNoEntities: true },
    forceUtcTimezone: true,
    ...options,
  };
  if (databaseUrl.startsWith('mysql://') || databaseUrl.startsWith('mariadb://')) {
    // The mysql driver's schema diff misreads MariaDB, so mariadb:// gets MariaDB's own driver.
    const driver = databaseUrl.startsWith('mariadb://') ? MariaDbDriver : MySqlDriver;
    return {
      ...common,
      driver,
      clientUrl: databaseUrl.replace(/^mariadb:/, 'mysql:'),
      timezone: '+00:00',
      migrations: { migrationsList: mysqlMigrations, silent: true, snapshot: false, ...common.migrations },
    } as Options;
  }
  if (databaseUrl === ':memory:' || databaseUrl.startsWith('file:')) {
    return {
      ...common,
      driver: LibSqlDriver,
      dbName: embeddedPath(databaseUrl),
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
  throw new Error(
    `DATABASE_URL must start with mysql://, mariadb://, file: or be :memory: (got "${databaseUrl.split(':')[0]}:...")`,
  );
}
