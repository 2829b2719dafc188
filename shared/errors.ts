/**
 * Machine-readable error codes of the error body `{code, message, issues?}` (behaviour §5) and the
 * HTTP status of each: the one map REST and tRPC answers both follow. The codes are tRPC's own
 * names where tRPC has one, so a tRPC client's `error.data.code` and the REST body carry the same
 * word; GONE (410) is the service's own, for invitations that are no longer pending, and so are
 * the conflicts that a caller may act on: MEMBER_LIMIT (the seat limit, behaviour §16),
 * DOMAIN_NOT_VERIFIED and DOMAIN_TAKEN (behaviour §17), WEBHOOK_DISABLED (a test event to a
 * disabled endpoint, behaviour §13).
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  TIMEOUT: 408,
  CONFLICT: 409,
  WEBHOOK_DISABLED: 409,
  MEMBER_LIMIT: 409,
  DOMAIN_NOT_VERIFIED: 409,
  DOMAIN_TAKEN: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * The message of the 409 answered to a repeat of a change whose first request with the same
 * Idempotency-Key is still being carried out (behaviour §10): the one conflict a caller should ask
 * again after, which the client tells apart by it (`isKeyInUse`).
 */
export const KEY_IN_USE_MESSAGE = 'A request with this Idempotency-Key is still being processed; retry later';

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
