/**
 * The error every failed call rejects with when the service answered: the HTTP status and the
 * contract's code, so callers branch on `error.code === 'FORBIDDEN'` without parsing messages.
 */
import { TRPCClientError } from '@trpc/client';
import { ERROR_CODES, KEY_IN_USE_MESSAGE, type ErrorCode, type ErrorIssue } from '../../shared/errors.ts';

export type { ErrorCode, ErrorIssue };

export class ApiError extends Error {
  override name = 'ApiError';
  /** HTTP status of the answer (400, 401, 403, 404, 409, 413, 500, 503, …). */
  readonly status: number;
  readonly code: ErrorCode;
  /** The fields that failed validation, for 400s of a body or header. */
  readonly issues: ErrorIssue[] | undefined;
  /** tRPC procedure path, for example `members.add`. */
  readonly path: string | undefined;

  constructor(init: {
    message: string;
    status: number;
    code: ErrorCode;
    issues?: ErrorIssue[];
    path?: string;
    cause?: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.issues = init.issues;
    this.path = init.path;
  }
}

/**
 * Whether the service refused a change because an earlier request with its idempotency key is still
 * being carried out (409 CONFLICT): ask again a moment later with the same key, and get that
 * request's answer. Every other conflict is final.
 */
export const isKeyInUse = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.code === 'CONFLICT' && error.message === KEY_IN_USE_MESSAGE;

interface ServerErrorData {
  code?: string;
  httpStatus?: number;
  path?: string;
  issues?: ErrorIssue[];
}

const isErrorCode = (code: unknown): code is ErrorCode => ERROR_CODES.includes(code as ErrorCode);

/** An ApiError for an answer from the service; anything else (a network failure) is returned as it is. */
export function toApiError(error: unknown): unknown {
  if (!(error instanceof TRPCClientError)) return error;
  const data = error.data as ServerErrorData | undefined;
  if (!data?.httpStatus) return error;
  return new ApiError({
    message: error.message,
    status: data.httpStatus,
    code: isErrorCode(data.code) ? data.code : data.httpStatus >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST',
    issues: data.issues,
    path: data.path,
    cause: error,
  });
}
