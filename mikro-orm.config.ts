/**
 * MikroORM options for a `DATABASE_URL` (behaviour §1): the URL's scheme picks the driver and with it
 * the migrations folder of that SQL dialect. The server, `npm run migrate` and the tests all build
 * their ORM from here. Only the driver the URL names is loaded: the others cost start-up time
 * (about 130 ms for the MySQL drivers) and are never used.
 */
import type { Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { mysqlMigrations, sqliteMigrations } from './migrations/index.ts';
import { entities } from './server/data/entities.ts';

export const DEFAULT_DATABASE_URL = 'file:./data/orgs.db';

/** The SQL dialect of the migrations: MySQL and MariaDB share one. */
type Dialect = 'mysql' | 'sqlite';

/** The database engine a URL names. */
export type Engine = 'mariadb' | 'mysql' | 'sqlite';

export function engineOf(databaseUrl: string): Engine {
  if (databaseUrl.startsWith('mariadb://')) return 'mariadb';
  if (databaseUrl.startsWith('mysql://')) return 'mysql';
  if (databaseUrl === ':memory:' || databaseUrl.startsWith('file:')) return 'sqlite';
  throw new Error(
    `DATABASE_URL must start with mysql://, mariadb://, file: or be :memory: (got "${databaseUrl.split(':')[0]}:...")`,
  );
}

export const dialectOf = (databaseUrl: string): Dialect => (engineOf(databaseUrl) === 'sqlite' ? 'sqlite' : 'mysql');

/** The embedded database's file path (or `:memory:`) for a `file:` / `:memory:` URL. */
export function embeddedPath(databaseUrl: string): string {
  return databaseUrl === ':memory:' ? ':memory:' : databaseUrl.replace(/^file:(\/\/)?/, '');
}

export async function createOrmConfig(databaseUrl: string, options: Partial<Options> = {}): Promise<Options> {
  const common: Partial<Options> = {
    entities,
    extensions: [Migrator],
    // Entities are defined with defineEntity: nothing to discover from TypeScript sources.
    discovery: { warnWhenNoEntities: true },
    forceUtcTimezone: true,
    ...options,
  };
  const engine = engineOf(databaseUrl);
  if (engine === 'sqlite') {
    const { LibSqlDriver } = await import('@mikro-orm/libsql');
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
  // The mysql driver's schema diff misreads MariaDB, so mariadb:// gets MariaDB's own driver.
  const driver =
    engine === 'mariadb'
      ? (await import('@mikro-orm/mariadb')).MariaDbDriver
      : (await import('@mikro-orm/mysql')).MySqlDriver;
  return {
    ...common,
    driver,
    clientUrl: databaseUrl.replace(/^mariadb:/, 'mysql:'),
    timezone: '+00:00',
    migrations: { migrationsList: mysqlMigrations, silent: true, snapshot: false, ...common.migrations },
  } as Options;
}
