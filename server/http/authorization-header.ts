/**
 * The request's Authorization header as the token verifier reads it. Node keeps only the first of
 * several Authorization headers; here they are all kept, joined with commas as HTTP joins a
 * header's values, so that a request with a token and a key is refused (behaviour §16) instead of
 * acting with whichever came first.
 */
import type { IncomingMessage } from 'node:http';

export function authorizationHeader(request: IncomingMessage): string | undefined {
  const first = request.headers.authorization;
  if (first === undefined) return undefined;
  const { rawHeaders } = request;
  let values: string[] | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.toLowerCase() === 'authorization') (values ??= []).push(rawHeaders[index + 1]!);
  }
  return values && values.length > 1 ? values.join(', ') : first;
}
