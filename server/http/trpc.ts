/**
 * tRPC over HTTP at /trpc, for the typed client: batches of at most MAX_BATCH_ITEMS calls, and
 * queries over POST too (the client sends an input too long for a URL in a body).
 *
 * Served through tRPC's own `fastifyRequestHandler` on a GET and POST route rather than through
 * `fastifyTRPCPlugin`, which registers its route for every method: a TRACE there reached tRPC and
 * failed with a 500, where HTTP's answer is 405 with `Allow` (http/error-body.ts gives it).
 */
import { fastifyRequestHandler } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import { MAX_BATCH_ITEMS } from '../../shared/limits.ts';
import type { AppRouter } from '../routers/index.ts';
import type { contextFactory } from '../trpc/context.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

export function trpcPlugin(router: AppRouter, createContext: ReturnType<typeof contextFactory>) {
  return async (app: FastifyInstance) => {
    // tRPC parses the JSON body itself, so it gets the raw text (as its Fastify plugin arranges).
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    // tRPC sends some errors (415, a refused batch) without a content type, which fetch's Response
    // then calls text/plain: every tRPC answer but a stream is JSON.
    app.addHook('onSend', (_request, _reply, payload, done) => {
      if (payload instanceof Response) {
        const type = payload.headers.get('content-type');
        if (type === null || type === 'application/json' || type.startsWith('text/plain')) {
          payload.headers.set('content-type', JSON_TYPE);
        }
      }
      done(null, payload);
    });
    app.route({
      method: ['GET', 'POST'],
      url: '/trpc/:path',
      // tRPC answers HEAD with an empty 204 whatever the path: not a method it serves.
      exposeHeadRoute: false,
      handler: (request, reply) =>
        fastifyRequestHandler({
          router,
          createContext,
          req: request,
          res: reply,
          path: (request.params as { path: string }).path,
          maxBatchSize: MAX_BATCH_ITEMS,
          allowMethodOverride: true,
        }),
    });
  };
}
