/**
 * JSON request bodies, decoded strictly (behaviour §4.4): bytes that are not well-formed UTF-8 are
 * a 400 that names the body, never text with U+FFFD in their place, as Fastify's own parser and
 * tRPC's (which decode with replacement) would store them. The REST scope parses the text with
 * Fastify's own JSON parser, under the instance's rules for `__proto__` and `constructor` keys;
 * the tRPC scope hands it to tRPC, which parses it itself. A body nested deeper than any operation
 * takes is a 400 before it is parsed, and one with a Content-Encoding (gzip, …) a 415.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_JSON_DEPTH } from '../../shared/limits.ts';

// `ignoreBOM`: a byte order mark stays in the text, and JSON.parse refuses it as before.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const notUtf8 = (): FastifyError =>
  Object.assign(new Error('The request body is not well-formed UTF-8'), {
    name: 'BodyNotUtf8',
    code: 'ERR_BODY_NOT_UTF8',
    statusCode: 400,
  });

const nestedTooDeeply = (): FastifyError =>
  Object.assign(new Error(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`), {
    name: 'BodyNestedTooDeeply',
    code: 'ERR_BODY_NESTED_TOO_DEEPLY',
    statusCode: 400,
  });

/**
 * Whether JSON text opens more than MAX_JSON_DEPTH arrays and objects inside each other, found by
 * counting brackets outside strings, before anything parses it: no body any operation takes comes
 * near (metadata, the deepest, stops at 10 levels), and one deep enough would exhaust the stack of
 * whatever walks it recursively (JSON.stringify, a schema's check) and answer 500.
 */
function nestedDeeperThanAllowed(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

const unsupportedCoding = (coding: string): FastifyError =>
  Object.assign(
    new Error(
      `The body's Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not supported: send it uncompressed`,
    ),
    { name: 'BodyEncoded', code: 'ERR_BODY_ENCODED', statusCode: 415 },
  );

/** Whether the request announces body bytes: a chunked body, or a Content-Length above 0. */
export const announcesBody = ({ headers }: FastifyRequest): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

type Parsed = (error: Error | null, body?: unknown) => void;
type JsonParser = (request: FastifyRequest, text: string, done: Parsed) => void;

/** A content type parser (`parseAs: 'buffer'`) that hands `parse` the body as text, decoded strictly. */
export const strictlyDecoded =
  (parse: JsonParser) =>
  (request: FastifyRequest, body: Buffer, done: Parsed): void => {
    // Read as it came, a compressed body would be refused as not UTF-8, or taken as plain text.
    const coding = request.headers['content-encoding'];
    if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') {
      done(unsupportedCoding(coding));
      return;
    }
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(notUtf8());
      return;
    }
    if (nestedDeeperThanAllowed(text)) {
      done(nestedTooDeeply());
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
