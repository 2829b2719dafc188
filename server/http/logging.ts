/**
 * One pino JSON line per request, tagged with a request id that the caller may supply in
 * `x-request-id` and that is echoed back, and with tracing on the id of its trace (http/tracing.ts).
 * Headers are never logged, so tokens never are; nor is what a caller searched for (`loggedUrl`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { unescape } from 'node:querystring';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { traceIdOf } from './tracing.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function requestId(request: IncomingMessage): string {
  const supplied = request.headers['x-request-id'];
  return typeof supplied === 'string' && REQUEST_ID.test(supplied) ? supplied : randomUUID();
}

/**
 * Log lines are buffered and written asynchronously (sonic-boom), so that under load several go
 * out in one write instead of one blocking write per request (docs/performance.md, "Measured
 * choices in the code"). pino flushes what is pending when the process exits.
 */
export function createLogger(level: string): Logger {
  return pino(
    { level, redact: ['req.headers.authorization', 'headers.authorization'], serializers: { err: errorWithoutValues } },
    pino.destination({ sync: false }),
  );
}

/** What a driver's error carries of the statement it failed: the SQL with its values, and those values. */
const STATEMENT_FIELDS = ['sql', 'sqlMessage', 'values', 'parameters'] as const;

/** A quoted literal in a driver's message, unless it names a key, column, table or constraint. */
const QUOTED_VALUE = /(?<!\b(?:key|column|table|constraint|database|index) )'(?:[^'\\]|\\.)*'/gi;

/**
 * An error as a log line shows it: pino's own serializer, without the statement a database error
 * carries, whose values are the callers' data (webhook secrets, key hashes, private metadata,
 * e-mail addresses; behaviour §16), and with the values quoted in its message (`Duplicate entry
 * '...' for key 'users_email_unique'`) left out. Also for the causes it nests.
 */
function errorWithoutValues(error: Error): Record<string, unknown> {
  return withoutValues(pino.stdSerializers.err(error));
}

function withoutValues(serialized: Record<string, unknown>): Record<string, unknown> {
  if (STATEMENT_FIELDS.some((field) => field in serialized)) {
    for (const field of STATEMENT_FIELDS) delete serialized[field];
    for (const text of ['message', 'stack'] as const) {
      const value = serialized[text];
      if (typeof value === 'string') serialized[text] = value.replace(QUOTED_VALUE, "'...'");
    }
  }
  const { cause } = serialized;
  if (cause !== null && typeof cause === 'object') withoutValues(cause as Record<string, unknown>);
  return serialized;
}

/**
 * The query parameters whose values a log line shows: sizes, positions, orders and kinds, in the
 * service's own terms. Any other value may be what a person typed (`search`, SCIM's `filter`, the
 * input of a tRPC query, which holds its search) and is personal data an operator's logs must not
 * collect (docs/operations.md, "Logs").
 */
const SHOWN_VALUES = new Set([
  'limit',
  'role',
  'sort',
  'after',
  'type',
  'startIndex',
  'count',
  'excludedAttributes',
  'batch',
  'lastEventId',
]);

/**
 * The parameters the service reads whose values are hidden: their names are still shown. A member
 * list's cursor holds its last member's sort key, an e-mail or a name under those sorts.
 */
const HIDDEN_VALUES = new Set(['search', 'filter', 'input', 'cursor']);

const HIDDEN = '[Redacted]';

/** A `name=value` pair of a query string as logged: whole, its value hidden, or, an unknown name, all of it hidden. */
function loggedParameter(pair: string): string {
  const equals = pair.indexOf('=');
  const name = unescape((equals === -1 ? pair : pair.slice(0, equals)).replaceAll('+', ' '));
  if (SHOWN_VALUES.has(name)) return pair;
  return HIDDEN_VALUES.has(name) ? `${name}=${HIDDEN}` : HIDDEN;
}

/** The URL a request's log line shows: its path, and its query string with no value a person typed. */
export function loggedUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => (pair === '' ? pair : loggedParameter(pair)));
  return `${url.slice(0, start + 1)}${query.join('&')}`;
}

export function registerRequestLogging(app: FastifyInstance): void {
  // Callback hooks, not async ones: they run on every request, and a promise each is measurable.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: loggedUrl(request.originalUrl),
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        traceId: traceIdOf(request),
      },
      'request',
    );
    done();
  });
}
