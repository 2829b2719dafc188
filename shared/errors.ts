/**
 * Machine-readable error codes of the error body `{code, message, issues?}` (CONTRACT 5). They are
 * tRPC's own code names, so the REST body and a tRPC client's error carry the same word.
 */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_SUPPORTED',
  'TIMEOUT',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'TOO_MANY_REQUESTS',
  'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** One failed field of a request body or header. */
export interface ErrorIssue {
  field: string;
  problem: string;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  issues?: ErrorIssue[];
}
