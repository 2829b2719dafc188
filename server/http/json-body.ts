/**
 * JSON request bodies, decoded strictly (behaviour §4.4): bytes that are not well-formed UTF-8 are
 * a 400 that names the body, never text with U+FFFD in their place, as Fastify's own parser and
 * tRPC's (which decode with replacement) would store them. The REST scope parses the text with
 * Fastify's own JSON parser, under the instance's rules for `__proto__` and `constructor` keys;
 * the tRPC scope hands it to tRPC, which parses it itself.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';

// `ignoreBOM`: a byte order mark stays in the text, and JSON.parse refuses it as before.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const notUtf8 = (): FastifyError =>
  Object.assign(new Error('The request body is not well-formed UTF-8'), {
    name: 'BodyNotUtf8',
    code: 'ERR_BODY_NOT_UTF8',
    statusCode: 400,
  });

type Parsed = (error: Error | null, body?: unknown) => void;
type JsonParser = (request: FastifyRequest, text: string, done: Parsed) => void;

/** A content type parser (`parseAs: 'buffer'`) that hands `parse` the body as text, decoded strictly. */
export const strictlyDecoded =
  (parse: JsonParser) =>
  (request: FastifyRequest, body: Buffer, done: Parsed): void => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(notUtf8());
      return;
    }
    parse(request, text, done);
  };

/** Replaces the scope's `application/json` parser: `parse` gets the body as text, decoded strictly. */
export function parseJsonBodiesAs(app: FastifyInstance, parse: JsonParser): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, strictlyDecoded(parse));
}

/**
 * Fastify's own JSON parser, with the instance's rules for `__proto__` and `constructor` keys (app.ts).
 * It calls `done`; Fastify's type for it also admits a parser that returns a promise instead.
 */
export const fastifyJsonParser = (app: FastifyInstance) =>
  app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  ) as JsonParser;
