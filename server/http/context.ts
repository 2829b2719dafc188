/**
 * The procedures' context (platform/rpc/context.ts) read off a Fastify request, for tRPC and REST
 * alike. A request whose token its route verified before reading the body (authentication.ts) hands
 * the procedure that caller, instead of having the token verified again.
 */
import type { FastifyRequest } from 'fastify';
import { publicPath } from '../platform/config.ts';
import { createContext, type Context, type Services } from '../platform/rpc/context.ts';
import { verifiedCaller } from './authentication.ts';
import { authorizationHeader, idempotencyKeyHeader } from './repeated-headers.ts';
import { answeringOf, commitSentMarker, givenUpSignal } from './processing-limit.ts';

export function contextFactory(services: Services) {
  // The path the proxy strips (PUBLIC_URL's), before the one that reached the service: the path the caller asked for.
  const prefix = publicPath(services.settings.PUBLIC_URL);
  return ({ req }: { req: FastifyRequest }): Context => {
    return createContext(services, {
      log: req.log,
      authorization: authorizationHeader(req.raw),
      verifiedCaller: verifiedCaller(req),
      organizationIdHeader: req.headers['organization_id'],
      idempotencyKeyHeader: idempotencyKeyHeader(req.raw),
      requestPath: prefix + (req.originalUrl.split('?')[0] ?? '/'),
      signal: givenUpSignal(req),
      onCommitSent: commitSentMarker(req),
      answering: answeringOf(req),
    });
  };
}
