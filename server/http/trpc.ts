/**
 * tRPC over HTTP at /trpc, for the typed client: batches of at most MAX_BATCH_ITEMS calls, queries
 * over POST too (the client sends an input too long for a URL in a body), and subscriptions.
 *
 * Served through tRPC's own `fastifyRequestHandler` on a GET and POST route rather than through
 * `fastifyTRPCPlugin`, which registers its route for every method: a TRACE there reached tRPC and
 * failed with a 500, where HTTP's answer is 405 with `Allow` (http/error-body.ts gives it).
 */
import type { TRPCError } from '@trpc/server';
import { fastifyRequestHandler } from '@trpc/server/adapters/fastify';
import type { ResponseMetaFn } from '@trpc/server/http';
import type { FastifyInstance, FastifyReply, preParsingHookHandler } from 'fastify';
import { MAX_BATCH_ITEMS } from '../../shared/limits.ts';
import { EventFeed } from '../modules/events/event-feed.ts';
import type { AppRouter } from '../modules/router.ts';
import type { VerifyToken } from '../platform/auth/tokens.ts';
import { authenticateFirst } from './authentication.ts';
import type { contextFactory } from './context.ts';
import { MALFORMED_JSON_BODY } from './error-body.ts';
import { logFailure } from '../platform/errors.ts';
import { parseJsonBodiesAs } from './json-body.ts';
import { SSE_PING_INTERVAL_MS } from '../platform/rpc/init.ts';

type CreateContext = ReturnType<typeof contextFactory>;

/** Dotted paths of the router's subscriptions ('events.watch'), from tRPC's flat procedure table. */
const subscriptionPaths = (router: { _def: { procedures: object } }) =>
  Object.entries(router._def.procedures as Record<string, { _def: { type: string } }>)
    .filter(([, procedure]) => procedure._def.type === 'subscription')
    .map(([path]) => path);

/**
 * Input that is not well-formed JSON, as tRPC refuses it: BAD_REQUEST with `JSON.parse`'s own
 * message (the SyntaxError as its cause) where REST says it in the service's words. tRPC reads the
 * input (the body; a GET's `input` parameter) only once a procedure asks for it, so it is
 * refused there, and only tRPC's `onError`, called before the error is shaped, knows the method.
 */
function inServiceWords(error: TRPCError, method: string): void {
  if (error.code !== 'BAD_REQUEST' || !(error.cause instanceof SyntaxError)) return;
  error.message = method === 'GET' ? 'Malformed JSON in the input query parameter' : MALFORMED_JSON_BODY;
}

/**
 * Each subscription on a GET route of its own: a stream lives far longer than the processing limit
 * of other requests, so it has none (it ends itself after STREAM_MAX_DURATION_MS), and its socket
 * an idle limit of its own. Its context carries the instance's event feed, made on the first
 * subscription, and a way to drop the connection.
 * When the service stops, open streams are dropped: their clients reconnect to another instance.
 */
function subscriptionRoutes(router: AppRouter, createContext: CreateContext) {
  // eslint-disable-next-line @typescript-eslint/require-await -- a Fastify plugin: its promise tells Fastify it is done
  return async (app: FastifyInstance) => {
    let feed: EventFeed | undefined;
    const open = new Set<FastifyReply>();
    app.addHook('preClose', (done) => {
      for (const reply of open) reply.raw.destroy();
      done();
    });
    for (const path of subscriptionPaths(router)) {
      app.route({
        method: 'GET',
        url: `/trpc/${path}`,
        exposeHeadRoute: false,
        config: { streaming: true },
        handler: async (request, reply) => {
          // Pings keep the socket busy, whatever idle limit other requests have (connectionTimeout);
          // a client that reads nothing for three pings' time is cut off.
          request.raw.setTimeout(3 * SSE_PING_INTERVAL_MS);
          open.add(reply);
          reply.raw.once('close', () => open.delete(reply));
          await fastifyRequestHandler({
            router,
            req: request,
            res: reply,
            path,
            onError: ({ error }) => {
              inServiceWords(error, 'GET');
              logFailure(error, request.log);
            },
            createContext: (options) => {
              const ctx = createContext(options);
              feed ??= new EventFeed(
                ctx.db,
                {
                  pollIntervalMs: ctx.settings.EVENTS_POLL_INTERVAL_MS,
                  backlog: ctx.settings.EVENTS_SUBSCRIBER_BACKLOG,
                  roles: ctx.settings.roles,
                },
                app.log,
              );
              return { ...ctx, eventStream: { feed, disconnect: () => reply.raw.destroy() } };
            },
          });
        },
      });
    }
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `Idempotency-Replayed` on a tRPC answer too, as on REST (behaviour §10). A request with an
 * Idempotency-Key holds one call (the typed client sends it alone), so the header is that call's.
 */
const withReplayHeader =
  (responseMeta: ResponseMetaFn<AppRouter> | undefined): ResponseMetaFn<AppRouter> =>
  (options) => {
    const meta = responseMeta?.(options) ?? {};
    const replayed = options.ctx?.responseHeaders['idempotency-replayed'];
    if (!replayed) return meta;
    if (!(meta.headers instanceof Headers))
      return { ...meta, headers: { ...meta.headers, 'idempotency-replayed': replayed } };
    meta.headers.set('idempotency-replayed', replayed);
    return meta;
  };

/** `responseMeta`: sees each answered request's calls and results (http/metrics.ts counts them). */
export function trpcPlugin(
  router: AppRouter,
  createContext: CreateContext,
  authenticate: VerifyToken,
  responseMeta?: ResponseMetaFn<AppRouter>,
) {
  return async (app: FastifyInstance) => {
    // Only a POST carries a body to keep from the unauthenticated; a GET's procedure verifies the
    // token itself, after tRPC has refused a mutation asked for by GET (405), as paths are refused.
    const authenticated = authenticateFirst(app, authenticate, (request) => createContext({ req: request }).db);
    const authenticatedPost: preParsingHookHandler = (request, reply, payload, done) =>
      request.method === 'POST' ? authenticated.call(app, request, reply, payload, done) : done(null, payload);
    // tRPC parses the JSON body itself, so it gets the text (as its Fastify plugin arranges): handed
    // an object, it would stringify it again, and a number past a double's range (parsed as
    // Infinity) would reach the procedure as null. Keys named `__proto__` and `constructor` reach
    // the procedures, whose schemas drop unknown fields; metadata drops them itself (metadata.ts).
    parseJsonBodiesAs(app, (_request, text, done) => done(null, text));
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
      preParsing: authenticatedPost,
      handler: (request, reply) =>
        fastifyRequestHandler({
          router,
          createContext,
          req: request,
          res: reply,
          path: (request.params as { path: string }).path,
          maxBatchSize: MAX_BATCH_ITEMS,
          allowMethodOverride: true,
          onError: ({ error, req }) => {
            inServiceWords(error, req.method);
            logFailure(error, request.log);
          },
          responseMeta: withReplayHeader(responseMeta),
        }),
    });
    await app.register(subscriptionRoutes(router, createContext));
  };
}
