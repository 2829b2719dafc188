/**
 * Request limits the server enforces and the typed client keeps to, in one place, so that the
 * client never builds a request the server refuses.
 */

/** The largest request body (behaviour §5): larger is answered 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Arrays and objects a JSON body may open inside each other (behaviour §5). */
export const MAX_JSON_DEPTH = 64;

/**
 * The request line and headers together (Node's default, made explicit): larger is answered 431,
 * or 414 when the URL alone is over it.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The most header lines a request may have (Node's default, made explicit): more is answered 431. */
export const MAX_HEADER_LINES = 1000;

/**
 * The most calls one tRPC batch may carry; more are refused (400) as a whole. Ten, because the
 * rate limit counts HTTP requests, so a batch multiplies what one request may ask of the database
 * at most tenfold; because ten calls at once fit the default pool of ten database connections
 * without one batch queueing behind itself; and because a page of fifty queries still goes out as
 * five requests, within the six connections a browser opens to one host.
 */
export const MAX_BATCH_ITEMS = 10;
