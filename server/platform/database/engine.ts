/**
 * Which database a `DATABASE_URL` names (behaviour §1), worked out once: its engine (the driver),
 * its SQL dialect (the migrations' folder and the few statements that differ) and, for the
 * embedded database, its file. The settings carry the result (`settings.database`), so nothing
 * parses the URL again.
 */
import { resolve } from 'node:path';

export const DEFAULT_DATABASE_URL = 'file:./data/orgs.db';

/** The database engine a URL names. */
export type Engine = 'mariadb' | 'mysql' | 'sqlite';

/** The SQL dialect of the migrations: MySQL and MariaDB share one. */
export type Dialect = 'mysql' | 'sqlite';

export interface DatabaseLocation {
  url: string;
  engine: Engine;
  dialect: Dialect;
  /** The embedded database's file path, or `:memory:`; undefined for MySQL and MariaDB. */
  file?: string;
}

export function locateDatabase(url: string): DatabaseLocation {
  if (url.startsWith('mariadb://')) return { url, engine: 'mariadb', dialect: 'mysql' };
  if (url.startsWith('mysql://')) return { url, engine: 'mysql', dialect: 'mysql' };
  if (url === ':memory:') return { url, engine: 'sqlite', dialect: 'sqlite', file: ':memory:' };
  if (url.startsWith('file:'))
    return { url, engine: 'sqlite', dialect: 'sqlite', file: url.replace(/^file:(\/\/)?/, '') };
  throw new Error(
    `DATABASE_URL must start with mysql://, mariadb://, file: or be :memory: (got "${url.split(':')[0]}:...")`,
  );
}

/** The database as a log line may show it: no password, no query string. */
export function describeDatabase({ url, file }: DatabaseLocation): string {
  if (file !== undefined) return file === ':memory:' ? file : `file:${resolve(file)}`;
  const shown = new URL(url);
  shown.password = '';
  shown.search = '';
  return shown.href;
}
