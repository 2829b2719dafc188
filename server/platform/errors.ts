/**
 * The one error type the service raises on purpose. Every layer throws it; `trpc/init.ts` turns it
 * into the tRPC error of the same code, so tRPC and REST answer with the same status and body
 * (shared/errors.ts maps each code to its status).
 */
import type { ErrorCode, ErrorIssue } from '../shared/errors.ts';

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
/** The database cannot serve the request now; the HTTP layer adds Retry-After to every 503. */
export const unavailable = (message = 'The database is unavailable, try again later') =>
  new DomainError('SERVICE_UNAVAILABLE', message);
