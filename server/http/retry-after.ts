/**
 * Every 503 tells the client when to try again (behaviour §10): a database outage, a locked
 * organization or a conflict that kept losing are expected to pass, and a client that waits a
 * moment (with jitter of its own) is better served than one that retries at once.
 */
import type { FastifyInstance } from 'fastify';

const RETRY_AFTER_SECONDS = '1';

export function registerRetryAfter(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after'))
      void reply.header('retry-after', RETRY_AFTER_SECONDS);
    done(null, payload);
  });
}
