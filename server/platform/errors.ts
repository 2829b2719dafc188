/**
 * The service's errors, below both transports: the one error type it raises on purpose
 * (DomainError, thrown by every layer), and the one map from any failure to what callers see, on
 * REST as the whole body (http/error-body.ts, http/rest.ts) and on tRPC inside its error shape
 * (rpc/init.ts): a DomainError keeps its code, status and message, a database outage is 503,
 * anything else is an internal error whose details never leave the process. shared/errors.ts maps
 * each code to its status.
 */
import type { TRPCError, TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { z, ZodError } from 'zod';
import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorIssue } from '../../shared/errors.ts';
import { serviceProblem } from '../../shared/problems.ts';
import { isDatabaseTimeout, isDatabaseUnavailable } from './database/failures.ts';

export class DomainError extends Error {
  override name = 'DomainError';
  readonly code: ErrorCode;
  readonly issues: ErrorIssue[] | undefined;

  constructor(code: ErrorCode, message: string, issues?: ErrorIssue[]) {
    super(message);
    this.code = code;
    this.issues = issues;
  }
}

export const unauthorized = (message = 'Missing or invalid bearer token') => new DomainError('UNAUTHORIZED', message);
export const forbidden = (message: string) => new DomainError('FORBIDDEN', message);
export const notFound = (message: string) => new DomainError('NOT_FOUND', message);
export const conflict = (message: string) => new DomainError('CONFLICT', message);
export const gone = (message: string) => new DomainError('GONE', message);
export const badRequest = (message: string, issues?: ErrorIssue[]) => new DomainError('BAD_REQUEST', message, issues);
/** The body of an error the service raised itself, as REST answers it (health, stopping). */
export const errorBodyOf = ({ code, message, issues }: DomainError): ErrorBody => ({
  code,
  message,
  ...(issues?.length && { issues }),
});

/** The database cannot serve the request now; the HTTP layer adds Retry-After to every 503. */
export const unavailable = (message = 'The database is unavailable, try again later') =>
  new DomainError('SERVICE_UNAVAILABLE', message);

/** The database is there but did not serve the request within its DB_TIMEOUT_MS: busy or slow (behaviour §10). */
export const notInTime = () => unavailable('The database did not answer in time, try again later');

// Every input is refused in the service's words, the checks zod makes itself included (behaviour §5).
z.config({ customError: serviceProblem });

const zodIssues = (error: ZodError): ErrorIssue[] =>
  error.issues.map((issue) => ({ field: issue.path.join('.') || '(body)', problem: issue.message }));

/** tRPC's refusal of a procedure's input: its zod schema did not parse. */
const isInputError = (error: TRPCError): boolean => error.code === 'BAD_REQUEST' && error.cause instanceof ZodError;

/** A failure's DomainError: thrown by the service itself, or a database outage (503). */
function domainErrorOf(error: TRPCError): DomainError | undefined {
  if (error.cause instanceof DomainError) return error.cause;
  if (isDatabaseTimeout(error.cause)) return notInTime();
  if (isDatabaseUnavailable(error.cause)) return unavailable();
  return undefined;
}

function issuesOf(error: TRPCError): ErrorIssue[] | undefined {
  if (error.cause instanceof ZodError) return zodIssues(error.cause);
  return domainErrorOf(error)?.issues;
}

function publicMessage(error: TRPCError): string {
  const domainError = domainErrorOf(error);
  if (domainError) return domainError.message;
  // Internals (SQL, stack, driver messages) never leave the process.
  if (error.code === 'INTERNAL_SERVER_ERROR') return 'Internal server error';
  // One message for every refused input, on both transports; the issues say what was wrong.
  if (isInputError(error)) return 'Input validation failed';
  return error.message;
}

/** The service's code for an error: the DomainError's own, else tRPC's. */
const serviceCode = (error: TRPCError): ErrorCode => domainErrorOf(error)?.code ?? (error.code as ErrorCode);

/** A refusal of the request as bad (400): its input did not parse, or the service found a value wrong (a cursor). */
export const isBadRequest = (error: TRPCError): boolean => serviceCode(error) === 'BAD_REQUEST';

/** Logs a failure that is the service's or the database's fault; a refusal of the caller is not logged. */
export function logFailure(error: TRPCError, log: { error(details: object, message: string): void }): void {
  if (isDatabaseUnavailable(error.cause)) log.error({ err: error.cause }, 'database unavailable');
  else if (serviceCode(error) === 'INTERNAL_SERVER_ERROR') log.error({ err: error.cause ?? error }, 'request failed');
}

/** The HTTP status of an error, from the one map in shared/errors.ts. */
export const httpStatusOf = (error: TRPCError): number => ERROR_STATUS[serviceCode(error)] ?? 500;

/** An error as callers see it, on REST as the whole body and on tRPC inside the error shape. */
export function publicErrorBody(error: TRPCError): ErrorBody {
  const issues = issuesOf(error);
  return { code: serviceCode(error), message: publicMessage(error), ...(issues?.length && { issues }) };
}

/**
 * The tRPC code whose JSON-RPC number an error's shape carries. tRPC has no GONE: a 410 carries
 * NOT_FOUND's number, with the service's own code and status in the shape's data.
 */
export function trpcCarrierCode(code: ErrorCode): TRPC_ERROR_CODE_KEY {
  if (code === 'GONE') return 'NOT_FOUND';
  const serviceConflict =
    code === 'MEMBER_LIMIT' || code === 'DOMAIN_NOT_VERIFIED' || code === 'DOMAIN_TAKEN' || code === 'WEBHOOK_DISABLED';
  if (serviceConflict) return 'CONFLICT';
  return code;
}
