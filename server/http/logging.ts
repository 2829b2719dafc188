/**
 * One pino JSON line per request, tagged with a request id that the caller may supply in
 * `x-request-id` and that is echoed back, and with tracing on the id of its trace (http/tracing.ts).
 * Headers are never logged, so tokens never are.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
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
    { level, redact: ['req.headers.authorization', 'headers.authorization'] },
    pino.destination({ sync: false }),
  );
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
        url: request.originalUrl,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        traceId: traceIdOf(request),
      },
      'request',
    );
    done();
  });
}
