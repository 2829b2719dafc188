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

/** Why the URL of an unparsable mysql:// or mariadb:// URL does not parse, without quoting it: it holds a password. */
function unparsableServerUrl(url: string): string {
  if (url.includes('#')) return 'is not a URL: a # in the user name or password must be percent-encoded as %23';
  // The port, after the user and password (up to the last @) and the host (an IPv6 one in brackets).
  const port = /^[^/]*\/\/(?:.*@)?(?:\[[^\]]*\]|[^:/]*):(\d+)/.exec(url)?.[1];
  if (port !== undefined && Number(port) > 65535) return `is not a URL: its port ${port} is out of range (1 to 65535)`;
  return 'is not a URL: check the host (an IPv6 address goes in [brackets]) and percent-encode any @ : / ? # [ ] in the user name or password';
}

/** What keeps a mysql:// or mariadb:// URL from naming a database, or undefined. Never quotes the URL. */
function serverUrlProblem(url: string): string | undefined {
  const parsed = URL.parse(url);
  if (!parsed) return unparsableServerUrl(url);
  if (parsed.hostname === '') return 'names no host: give mysql://user:pass@host:3306/database';
  if (parsed.pathname.length <= 1) return 'names no database: add /<database> after the host';
  return undefined;
}

/** The database DATABASE_URL names; throws a line naming DATABASE_URL and what to fix (behaviour §1). */
export function locateDatabase(url: string): DatabaseLocation {
  const engine = url.startsWith('mariadb://') ? 'mariadb' : url.startsWith('mysql://') ? 'mysql' : undefined;
  if (engine) {
    const problem = serverUrlProblem(url);
    if (problem) throw new Error(`DATABASE_URL ${problem}`);
    return { url, engine, dialect: 'mysql' };
  }
  if (url === ':memory:') return { url, engine: 'sqlite', dialect: 'sqlite', file: ':memory:' };
  if (url.startsWith('file:')) {
    const file = url.replace(/^file:(\/\/)?/, '');
    if (file === '') throw new Error('DATABASE_URL names no file: give file:PATH or :memory:');
    // The driver would take `?mode=ro` as part of the file's name and make that file.
    if (/[?#]/.test(file)) throw new Error('DATABASE_URL file: takes no ?options or #fragment: give file:PATH');
    return { url, engine: 'sqlite', dialect: 'sqlite', file };
  }
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
