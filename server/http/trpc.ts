/** tRPC over HTTP at /trpc, for the typed client (batching included). */
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { ResponseMetaFn } from '@trpc/server/http';
import type { FastifyInstance } from 'fastify';
import type { AppRouter } from '../routers/index.ts';
import type { contextFactory } from '../trpc/context.ts';

/** `responseMeta`: sees each answered request's calls and results (http/metrics.ts counts them). */
export function trpcPlugin(
  router: AppRouter,
  createContext: ReturnType<typeof contextFactory>,
  responseMeta?: ResponseMetaFn<AppRouter>,
) {
  return async (app: FastifyInstance) => {
    const options: FastifyTRPCPluginOptions<AppRouter> = {
      prefix: '/trpc',
      trpcOptions: { router, createContext, responseMeta },
    };
    // The plugin swaps the JSON parser for a raw-string one in its own scope only.
    await app.register(fastifyTRPCPlugin, options);
  };
}
