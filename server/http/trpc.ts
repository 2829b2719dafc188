/** tRPC over HTTP at /trpc, for the typed client (batching included), and its subscriptions. */
import { fastifyRequestHandler, fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { EventFeed } from '../data/event-feed.ts';
import { STREAM_MAX_DURATION_MS } from '../routers/events-stream.ts';
import type { AppRouter } from '../routers/index.ts';
import type { contextFactory } from '../trpc/context.ts';
import { SSE_PING_INTERVAL_MS } from '../trpc/init.ts';

type CreateContext = ReturnType<typeof contextFactory>;

/** Dotted paths of the router's subscriptions ('events.watch'), from tRPC's flat procedure table. */
const subscriptionPaths = (router: { _def: { procedures: object } }) =>
  Object.entries(router._def.procedures as Record<string, { _def: { type: string } }>)
    .filter(([, procedure]) => procedure._def.type === 'subscription')
    .map(([path]) => path);

/**
 * Each subscription on a GET route of its own: a stream lives far longer than the processing limit
 * of other requests (Fastify's handlerTimeout, which a route can raise but not switch off), so it
 * gets the stream's longest life plus a margin (the stream ends itself first), and its socket an
 * idle limit of its own. Its context carries the instance's event feed, made on the first
 * subscription, and a way to drop the connection.
 * When the service stops, open streams are dropped: their clients reconnect to another instance.
 */
function subscriptionRoutes(router: AppRouter, createContext: CreateContext) {
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
        handlerTimeout: STREAM_MAX_DURATION_MS + 30_000,
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
            createContext: (options) => {
              const ctx = createContext(options);
              feed ??= new EventFeed(
                ctx.db.sql,
                {
                  pollIntervalMs: ctx.settings.EVENTS_POLL_INTERVAL_MS,
                  backlog: ctx.settings.EVENTS_SUBSCRIBER_BACKLOG,
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

export function trpcPlugin(router: AppRouter, createContext: CreateContext) {
  return async (app: FastifyInstance) => {
    const options: FastifyTRPCPluginOptions<AppRouter> = {
      prefix: '/trpc',
      trpcOptions: { router, createContext },
    };
    // The plugin swaps the JSON parser for a raw-string one in its own scope only.
    await app.register(fastifyTRPCPlugin, options);
    await app.register(subscriptionRoutes(router, createContext));
  };
}
