/**
 * Headers some statuses carry whatever answered them (a route, a hook, the error handler):
 * - 503 tells the client when to try again (behaviour §10): a database outage, a locked
 *   organization or a conflict that kept losing are expected to pass, and a client that waits a
 *   moment (with jitter of its own) is better served than one that retries at once.
 * - 401 names the scheme that authenticates (RFC 9110 §11.6.1 requires the challenge): a bearer
 *   token or key (behaviour §2).
 */
import type { FastifyInstance } from 'fastify';

const RETRY_AFTER_SECONDS = '1';
const BEARER_CHALLENGE = 'Bearer';

export function registerStatusHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    // tRPC's answers are a Response whose status Fastify applies only after this hook. The other
    // routes' JSON is a string by now, told apart first: the global Response loads undici, the
    // fetch implementation, which a service that answers no tRPC call need not load.
    const status = typeof payload !== 'string' && payload instanceof Response ? payload.status : reply.statusCode;
    if (status === 503 && !reply.hasHeader('retry-after')) void reply.header('retry-after', RETRY_AFTER_SECONDS);
    else if (status === 401 && !reply.hasHeader('www-authenticate'))
      void reply.header('www-authenticate', BEARER_CHALLENGE);
    done(null, payload);
  });
}
