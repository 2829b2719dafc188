/**
 * The line an operator reads when `npm start`, `npm run migrate` or `npm run token` cannot run
 * because of how it is set up: a bad setting, a database it cannot reach or log in to, a port
 * taken, a directory it may not write. Each says what to fix, without a stack. Any other failure
 * is a bug and keeps its stack.
 */
import { relative, resolve } from 'node:path';
import { inspect } from 'node:util';
import { SettingsError, type Settings } from '../platform/config.ts';
import { ListenError } from '../http/listen.ts';

type SystemError = Error & {
  code?: unknown;
  syscall?: string;
  path?: string;
  hostname?: string;
};

/** What the URL names, without the password. */
function databaseServer(settings: Settings | undefined) {
  try {
    const url = new URL(settings?.DATABASE_URL ?? '');
    return {
      where: `${url.hostname}:${url.port || '3306'}`,
      user: decodeURIComponent(url.username),
      database: decodeURIComponent(url.pathname.slice(1)),
    };
  } catch {
    return { where: 'the database server', user: '', database: '' };
  }
}

/** The setting that chose a path: DATA_DIR when the path lies under it, else DATABASE_URL. */
function settingFor(path: string, settings: Settings | undefined): string {
  if (!settings) return 'the settings';
  const fromDataDir = relative(resolve(settings.DATA_DIR), resolve(path));
  return fromDataDir.startsWith('..') ? 'DATABASE_URL' : 'DATA_DIR';
}

const FILE_PROBLEMS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file stands where a directory should be',
};

/** SQLite's "cannot open" code (14), as libSQL reports a database file it cannot open or create. */
const EMBEDDED_CANNOT_OPEN = /Unable to open connection to local database (.+): 14\b/;

function explainListen(error: ListenError, settings: Settings | undefined): string | undefined {
  const { port, host } = error.listener;
  const cannot = `Cannot listen on ${error.where} for ${port}`;
  const code = (error.cause as SystemError | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      // The metrics listener is bound first: the requests' listener then finds the port taken.
      return port === 'PORT' && settings?.PORT !== 0 && settings?.PORT === settings?.METRICS_PORT
        ? `${cannot}: METRICS_PORT is the same port; set PORT and METRICS_PORT to different ports`
        : `${cannot}: the port is in use by another process; stop it or set ${port}`;
    case 'EACCES':
      return `${cannot}: permission denied; set ${port} to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `${cannot}: not an address of this machine; set ${host}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${cannot}: the host name does not resolve; set ${host}`;
  }
  return undefined;
}

function explainDatabase(error: SystemError, code: string, settings: Settings | undefined): string | undefined {
  const { where, user, database } = databaseServer(settings);
  switch (code) {
    case 'ECONNREFUSED':
      return `Cannot reach the database at ${where}: connection refused; check that it runs and the host and port in DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot reach the database: the host name "${error.hostname}" does not resolve; check the host in DATABASE_URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `Cannot reach the database at ${where}: no answer (${code}); check the host and port in DATABASE_URL and the network between`;
    case 'ER_ACCESS_DENIED_ERROR':
      return `The database at ${where} refused user "${user}": wrong password or unknown user; check them in DATABASE_URL`;
    case 'ER_DBACCESS_DENIED_ERROR':
      return `The database at ${where} refused user "${user}" access to database "${database}": grant it or fix the database name in DATABASE_URL`;
    case 'ER_BAD_DB_ERROR':
      return `The database "${database}" does not exist at ${where}: create it or fix the database name in DATABASE_URL`;
  }
  return undefined;
}

function explainFiles(error: SystemError, code: string, settings: Settings | undefined): string | undefined {
  // A directory that exists but cannot hold the next one (under /proc), or a dangling link
  // (server/platform/make-directory.ts).
  if (code === 'ENOENT' && error.path && (error.syscall === 'mkdir' || error.syscall === 'stat')) {
    return `Cannot make the directory ${error.path}: no such file or directory, and none can be made there; set ${settingFor(error.path, settings)} to a path this user can write`;
  }
  if (error.path && FILE_PROBLEMS[code]) {
    return `Cannot write ${error.path}: ${FILE_PROBLEMS[code]}; make the directory writable by this user, or set ${settingFor(error.path, settings)} to one that is`;
  }
  const cannotOpen = EMBEDDED_CANNOT_OPEN.exec(error.message);
  if (cannotOpen) {
    return `Cannot open or create the embedded database ${cannotOpen[1]}: its directory must exist and be writable by this user; set DATABASE_URL to a file: path that is`;
  }
  // Waited for at the start (DB_TIMEOUT_MS, to put a file made before in WAL mode) and by the
  // migrations (120 s): database/orm.ts.
  if (code.startsWith('SQLITE_BUSY')) {
    const file = settings?.database.file;
    return `The embedded database${file ? ` ${resolve(file)}` : ''} is locked by another process (a sqlite3 shell, a backup, npm run app-key, another instance): try again once it has finished`;
  }
  return undefined;
}

function explainOne(error: SystemError, settings: Settings | undefined): string | undefined {
  if (error instanceof SettingsError) return error.message;
  if (error instanceof ListenError) return explainListen(error, settings);
  const code = typeof error.code === 'string' ? error.code : '';
  return explainDatabase(error, code, settings) ?? explainFiles(error, code, settings);
}

/** The operator's line for a failure caused by the setup, or undefined for anything else. */
export function explainFailure(error: unknown, settings: Settings | undefined): string | undefined {
  // Drivers wrap the socket's error: look down the chain of causes.
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const line = explainOne(cause, settings);
    if (line) return line;
  }
  return undefined;
}

/**
 * The text with the password of every `scheme://user:password@` taken out: a driver's error may
 * quote the URL it was given (DATABASE_URL, REDIS_URL), and a stack must not print its password.
 */
export function withoutPasswords(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)\S*@/gi, '$1***@');
}

/** Prints the operator's line (or, for a bug, the error with its stack) and ends the process. */
export function exitWithFailure(error: unknown, settings: Settings | undefined): never {
  console.error(withoutPasswords(explainFailure(error, settings) ?? inspect(error)));
  process.exit(1);
}
