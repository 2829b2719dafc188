/**
 * What a database error means for the request. Driver errors are classified by MikroORM's own
 * exception converters (MySQL error numbers, SQLite messages), plus the few conditions they do not
 * name: statement timeouts, a Galera node that is not ready, our own pool acquire timeout, and an
 * embedded database's file held by another process.
 */
import {
  ConnectionException,
  DeadlockException,
  DriverException,
  LockWaitTimeoutException,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';

/** No connection of the pool became free within DB_TIMEOUT_MS. */
export class PoolAcquireTimeoutError extends Error {
  override name = 'PoolAcquireTimeoutError';
  readonly code = 'POOL_ACQUIRE_TIMEOUT';
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  // The database refuses the service's login (a password changed, a grant or the database dropped):
  // an outage for the operator to mend, as /readyz says, not a failure of the request.
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  'POOL_ACQUIRE_TIMEOUT',
]);

/** A statement ended by its time bound (DB_TIMEOUT_MS): the database is there, but busy or slow. */
const TIMEOUT_ERRNOS = new Set([
  1969, // MariaDB ER_STATEMENT_TIMEOUT: max_statement_time (DB_TIMEOUT_MS) exceeded
  3024, // MySQL ER_QUERY_TIMEOUT: max_execution_time exceeded
]);

const UNAVAILABLE_ERRNOS = new Set([
  ...TIMEOUT_ERRNOS,
  1047, // WSREP has not yet prepared node for application use (a Galera node out of the cluster)
  1180, // Got error during COMMIT (a Galera node losing quorum mid-commit)
]);

/**
 * The embedded database's file is held by another process: SQLite's SQLITE_BUSY, or one of its
 * extended codes (SQLITE_BUSY_SNAPSHOT: another process wrote since this transaction began
 * reading), which libSQL gives as the error's `code`. The statement changed nothing; sent again
 * once the lock is gone, it goes through (statements.ts, transaction.ts).
 */
const isBusyCode = (cause: Error): boolean => {
  const { code } = cause as { code?: unknown };
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

/**
 * The embedded database's file cannot be read or written (SQLITE_IOERR, SQLITE_READONLY,
 * SQLITE_CANTOPEN, SQLITE_FULL and their extended codes: a disk full or failing, a file or folder
 * made read-only or taken away): the operator's to mend, an outage as a database gone is.
 */
const FILE_FAILURE_CODES = /^SQLITE_(?:IOERR|READONLY|CANTOPEN|FULL)(?:_|$)/;
const isFileFailureCode = (cause: Error): boolean => {
  const { code } = cause as { code?: unknown };
  return typeof code === 'string' && FILE_FAILURE_CODES.test(code);
};

/** Whether the driver's error number (MySQL's and MariaDB's `errno`) is one of `errnos`. */
const hasErrno = (cause: Error, errnos: ReadonlySet<number>): boolean => {
  const { errno } = cause as { errno?: unknown };
  return typeof errno === 'number' && errnos.has(errno);
};

/** The error converted to MikroORM's exception classes, where the driver's error is one of them. */
function toDriverException(em: SqlEntityManager, error: unknown): unknown {
  if (error instanceof DriverException || !(error instanceof Error)) return error;
  return em.getPlatform().getExceptionConverter().convertException(error);
}

function causes(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let cause = error; cause instanceof Error && chain.length < 5; cause = cause.cause) chain.push(cause);
  return chain;
}

/**
 * Another process holds the embedded database's file: a writer, or (when the file is not in WAL
 * mode) a reader too. Tried again after a pause while the request's budget lasts; past it, a
 * timeout (isDatabaseTimeout).
 */
export const isFileBusy = (error: unknown): boolean => causes(error).some(isBusyCode);

/**
 * Thrown by a transaction's work when what it read moved under it in a way that only a new attempt
 * can see: a row its write needs was deleted by a transaction that committed meanwhile (the user of
 * a membership being made, behaviour §15). A lost conflict: tried again, where the work reads afresh.
 */
export class ReadMoved extends Error {
  override name = 'ReadMoved';
}

/**
 * A transaction that lost to another: a deadlock, a lock wait past the limit, or (on Galera) a
 * certification failure, which MariaDB reports as a deadlock, or what its work found moved
 * (ReadMoved). Running it again may succeed.
 */
export function isLostConflict(em: SqlEntityManager, error: unknown): boolean {
  if (error instanceof ReadMoved) return true;
  const converted = toDriverException(em, error);
  return converted instanceof DeadlockException || converted instanceof LockWaitTimeoutException;
}

export const isUniqueViolation = (em: SqlEntityManager, error: unknown): boolean =>
  toDriverException(em, error) instanceof UniqueConstraintViolationException;

/** MySQL's and MariaDB's ER_NO_REFERENCED_ROW_2: a row written refers to one that is not there. */
const MISSING_REFERENCE_ERRNOS = new Set([1452]);

/**
 * The driver's own error (not converted: a statement's failure, unit-of-work.ts) for a row written
 * whose foreign key `constraint` refers to a row that is not there. MySQL and MariaDB name the
 * constraint; SQLite names none, so there any foreign key's failure is taken for it (the embedded
 * database sends statements one by one: the statement that failed is known).
 */
export function isMissingReference(error: unknown, constraint: string): boolean {
  return causes(error).some((cause) =>
    hasErrno(cause, MISSING_REFERENCE_ERRNOS)
      ? cause.message.includes(`\`${constraint}\``)
      : cause.message.includes('FOREIGN KEY constraint failed'),
  );
}

/**
 * The database cannot serve the request now (gone, unreachable, over its time bound, or out of
 * its cluster): answered 503 with Retry-After, and the service recovers by itself when it returns.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return causes(error).some((cause) => {
    if (cause instanceof ConnectionException) return true;
    // mysql2 marks the errors after which a connection is dead (with or without a code) as fatal.
    const { code, fatal } = cause as { code?: unknown; fatal?: unknown };
    return (
      fatal === true ||
      (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) ||
      hasErrno(cause, UNAVAILABLE_ERRNOS) ||
      isBusyCode(cause) ||
      isFileFailureCode(cause)
    );
  });
}

/**
 * Of those, a statement the database ended at its time bound, or an embedded database's file still
 * held by another process when the statement's time was up: it is there, but busy.
 */
export const isDatabaseTimeout = (error: unknown): boolean =>
  causes(error).some((cause) => hasErrno(cause, TIMEOUT_ERRNOS) || isBusyCode(cause));
