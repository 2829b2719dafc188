/**
 * The query string as the routes read it, and a malformed one refused (behaviour §5: a malformed
 * URL is 400). Fastify's parser, like Node's, keeps a percent-escape that does not decode
 * (`%ZZ`, `%C3` alone, a lone surrogate's `%ED%A0%80`) as its raw text: `?search=%C3` searched
 * for the three characters `%C3`, where the same escape in a path is refused.
 */
import { parse } from 'node:querystring';
import type { FastifyInstance } from 'fastify';
import { errorPayload } from './error-body.ts';

/** What a query string that does not decode parses to: no parameters, and a mark for the hook below. */
const MALFORMED = Object.freeze({});

/** Whether each percent-escape of `query` decodes, together with its neighbours, to UTF-8 text. */
function decodes(query: string): boolean {
  if (!query.includes('%')) return true;
  try {
    decodeURIComponent(query);
    return true;
  } catch {
    return false;
  }
}

/** Fastify's `routerOptions.querystringParser`. */
export const parseQueryString = (query: string): Record<string, unknown> =>
  query.length === 0 ? {} : decodes(query) ? parse(query) : MALFORMED;

/** Answers 400 to a request whose query string does not decode, before anything else reads it. */
export function refuseMalformedQueryStrings(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.query !== MALFORMED) return done();
    void reply.status(400).send(errorPayload(request.url, 400, 'The URL holds a malformed percent-escape'));
  });
}
