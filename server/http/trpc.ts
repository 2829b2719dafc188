/** tRPC over HTTP at /trpc, for the typed client (batching included). */
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import type { AppRouter } from '../routers/index.ts';
import type { contextFactory } from '../trpc/context.ts';

export function trpcPlugin(router: AppRouter, createContext: ReturnType<typeof contextFactory>) {
  return async (app: FastifyInstance) => {
    const options: FastifyTRPCPluginOptions<AppRouter> = {
      prefix: '/trpc',
      trpcOptions: { router, createContext },
    };
    // The plugin swaps the JSON parser for a raw-string one in its own scope only.
    await app.register(fastifyTRPCPlugin, options);
  };
}
