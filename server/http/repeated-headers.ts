/**
 * Headers a request may give once only, read with every value it gave. Node keeps only the first of
 * several Authorization or Host headers, and joins several Idempotency-Key headers with commas into
 * what reads as one key: here each value is kept, so that a request that gives two is refused
 * (behaviour §5, §10, §16) instead of acting with whichever came first, or with a key nobody sent.
 */
import type { IncomingMessage } from 'node:http';

/** Each value of the header `name` (lower case), in the order given: the raw headers, read only when it is there. */
function valuesOf(request: IncomingMessage, name: string): string[] {
  const { rawHeaders } = request;
  const values: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const header = rawHeaders[index]!;
    if (header.length === name.length && header.toLowerCase() === name) values.push(rawHeaders[index + 1]!);
  }
  return values;
}

/** The Authorization header as the token verifier reads it: several are joined with commas, as HTTP joins a header's values. */
export function authorizationHeader(request: IncomingMessage): string | undefined {
  const first = request.headers.authorization;
  if (first === undefined) return undefined;
  const values = valuesOf(request, 'authorization');
  return values.length > 1 ? values.join(', ') : first;
}

/** The Idempotency-Key header: a list when it was given more than once, which its check refuses. */
export function idempotencyKeyHeader(request: IncomingMessage): string | string[] | undefined {
  const joined = request.headers['idempotency-key'];
  if (joined === undefined) return undefined;
  const values = valuesOf(request, 'idempotency-key');
  return values.length > 1 ? values : joined;
}

/**
 * Whether the request gave Host more than once. Node keeps the first, and what the service builds
 * from the request's host (SCIM's `Location`) would name whichever a client put first: RFC 9112
 * §3.2 has such a request answered 400.
 */
export const repeatsHost = (request: IncomingMessage): boolean =>
  request.headers.host !== undefined && valuesOf(request, 'host').length > 1;
