/**
 * The REST face of a procedure (its trpc-to-openapi meta) in one call: path, success status, the
 * error statuses it can answer with, and the headers it reads or sets, so the OpenAPI document
 * states what the REST layer really does.
 */
import { z } from 'zod';
import { idempotencyKeySchema, organizationIdSchema } from '../../../shared/fields.ts';
import type { Meta } from './init.ts';
import { nextLinkHeader } from './lists.ts';

/** What each error status means, in the OpenAPI document (server/http/openapi.ts). */
export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid body, query, header, path parameter or URL',
  401: 'Bearer token missing or invalid',
  403: "The caller may not do this: not a member, without the permission it needs, or an API key on a person's own operations",
  404: 'Not found',
  408: 'The request was not received within the request timeout',
  409: 'Conflicts with the current state',
  410: 'The invitation is no longer pending or has expired',
  413: 'Request body over 64 KiB',
  414: 'URL over 16 KiB, or a path parameter over 5000 characters',
  415: 'Request body is not JSON (Content-Type: application/json)',
  422: 'The Idempotency-Key was used before for another request',
  429: 'Too many requests from this caller: retry after Retry-After seconds',
  431: 'Request line and headers over 16 KiB, or over 1000 header lines',
  500: 'The operation failed: a bug, whose details the answer never shows',
  503: 'The database or the token keys cannot serve now, or the instance is stopping: retry after Retry-After',
};

/**
 * Every endpoint can meet these: a malformed URL or header, no token, a slow or oversized request,
 * the rate limit, a failure, the database away.
 */
const ALWAYS = [400, 401, 408, 414, 429, 431, 500, 503];
/**
 * Endpoints that take a JSON body, and POSTs and DELETEs that take none: a body sent to them anyway
 * is still read first, so it can be too large (413) or not JSON (415). 400 is in ALWAYS.
 */
export const BODY_ERRORS = [413, 415];
/**
 * Every change may carry an Idempotency-Key (behaviour §10): a repeat while the first is under way
 * is 409, the key reused for another request 422.
 */
const IDEMPOTENCY_ERRORS = [409, 422];

const idempotencyHeader = z.object({
  'Idempotency-Key': idempotencyKeySchema.optional().meta({
    description:
      'Makes the change at most once: a repeat with the same key gets the stored answer (`Idempotency-Replayed: true`); 1 to 255 printable ASCII characters',
  }),
});

const organizationHeader = z.object({
  organization_id: organizationIdSchema.meta({ description: 'The organization the request acts on' }),
});

/** A change acting in an organization reads both; made once, not for each of those endpoints. */
const organizationAndIdempotencyHeaders = organizationHeader.extend(idempotencyHeader.shape);

const linkHeader = nextLinkHeader('With ?limit=N, when more items follow: `<path?limit=N&cursor=…>; rel="next"`');

interface RestEndpoint {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: `/${string}`;
  summary: string;
  tags: string[];
  errors: number[];
  successStatus?: 201 | 202;
  /** A success may also be 202 (Accepted), when the procedure sets `ctx.restStatus` so. */
  alsoAccepted?: true;
  /** Reads the `organization_id` header (the membership endpoints). */
  organizationScoped?: boolean;
  /** A list that pages with ?limit and announces the next page in `Link`. */
  pagedList?: boolean;
  /** A list always read a page at a time, announcing the next in `Link` as this says. */
  nextPageLink?: string;
  /**
   * The body may be left out (no body, no Content-Type), as `{}`: its fields are all optional and
   * none is needed (`role` of a join request's approval). Not so for a change that needs one of
   * its optional fields (PUT /users), whose empty body is refused.
   */
  bodyOptional?: true;
}

export function restEndpoint(endpoint: RestEndpoint): Meta {
  const change = endpoint.method !== 'GET';
  const statuses = [...new Set([...endpoint.errors, ...ALWAYS, ...(change ? IDEMPOTENCY_ERRORS : [])])].sort(
    (a, b) => a - b,
  );
  const organizationScoped = endpoint.organizationScoped === true;
  const requestHeaders = change
    ? organizationScoped
      ? organizationAndIdempotencyHeaders
      : idempotencyHeader
    : organizationScoped
      ? organizationHeader
      : undefined;
  return {
    openapi: {
      method: endpoint.method,
      path: endpoint.path,
      summary: endpoint.summary,
      tags: endpoint.tags,
      errorResponses: Object.fromEntries(statuses.map((status) => [status, ERROR_DESCRIPTIONS[status] ?? 'Error'])),
      ...(requestHeaders && { requestHeaders }),
      ...(endpoint.pagedList && { responseHeaders: linkHeader }),
      ...(endpoint.nextPageLink !== undefined && { responseHeaders: nextLinkHeader(endpoint.nextPageLink) }),
    },
    ...(endpoint.successStatus && { successStatus: endpoint.successStatus }),
    ...(endpoint.alsoAccepted && { alsoAccepted: true }),
    ...(endpoint.pagedList && { wholeListStreamed: true }),
    ...(endpoint.bodyOptional && { bodyOptional: true }),
  };
}
