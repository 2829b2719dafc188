/**
 * A span per request when tracing is on (platform/tracing/): started when the request arrives,
 * continuing the trace of its W3C `traceparent`, and ended with its answer, named after its
 * route's template with its status. The route's handler runs in the span's context, so that the
 * procedure's span and its statements' become its children. Without tracing no hook is added.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  endRequestSpan,
  startRequestSpan,
  tracingOn,
  withTrace,
  type RequestTrace,
} from '../platform/tracing/spans.ts';

/**
 * The request's trace, on the request itself: a WeakMap keyed by requests would put every request
 * in an ephemeron table that each young-generation collection walks.
 */
type TracedRequest = FastifyRequest & { requestTrace?: RequestTrace | null };

const traceOf = (request: FastifyRequest) => (request as TracedRequest).requestTrace ?? undefined;

/** The trace id of the request's span, for its log line (http/logging.ts); undefined without tracing. */
export const traceIdOf = (request: FastifyRequest): string | undefined => traceOf(request)?.traceId;

/**
 * The span of a request that no hook sees (http/error-body.ts: those Fastify refuses while routing,
 * and those Node hands to listeners of its own), around its answer: started before `answer`, ended
 * after it with the status it returns. Returns the trace id, for the request's log line.
 */
export function traceAnswer(method: string, headers: IncomingHttpHeaders, answer: () => number): string | undefined {
  const traced = startRequestSpan(method, headers);
  const status = answer();
  if (traced) endRequestSpan(traced, undefined, status);
  return traced?.traceId;
}

export function registerRequestTracing(app: FastifyInstance): void {
  if (!tracingOn()) return;
  app.decorateRequest('requestTrace', null);
  app.addHook('onRequest', (request, _reply, done) => {
    (request as TracedRequest).requestTrace = startRequestSpan(request.method, request.headers) ?? null;
    done();
  });
  // The handler is called from the last preHandler hook's `done`, and the body has been read by
  // then: run from within the span's context, it and all it starts belong to the request's trace.
  // Earlier, the body's stream events would run outside it.
  app.addHook('preHandler', (request, _reply, done) => {
    const traced = traceOf(request);
    if (traced) withTrace(traced, done);
    else done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const traced = traceOf(request);
    if (traced) endRequestSpan(traced, request.routeOptions.url, reply.statusCode);
    done();
  });
}
