/** The procedures' context (platform/rpc/context.ts) read off a Fastify request, for tRPC and REST alike. */
import type { FastifyRequest } from 'fastify';
import { createContext, type Context, type Services } from '../platform/rpc/context.ts';
import { givenUpSignal } from './processing-limit.ts';

export function contextFactory(services: Services) {
  return ({ req }: { req: FastifyRequest }): Context =>
    createContext(services, {
      log: req.log,
      authorization: req.headers.authorization,
      organizationIdHeader: req.headers['organization_id'],
      idempotencyKeyHeader: req.headers['idempotency-key'],
      requestPath: req.originalUrl.split('?')[0] ?? '/',
      signal: givenUpSignal(req),
    });
}
