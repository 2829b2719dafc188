/**
 * What every procedure sees: a request-scoped entity manager, the token verifier, the settings and
 * the two headers the contract reads. Built the same way for tRPC calls and for REST calls.
 */
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { VerifyToken } from '../auth/tokens.ts';
import type { Settings } from '../config.ts';
import type { Orm } from '../data/orm.ts';

export interface Services {
  orm: Orm;
  verifyToken: VerifyToken;
  settings: Settings;
}

export interface Context {
  em: SqlEntityManager;
  verifyToken: VerifyToken;
  settings: Settings;
  log: FastifyBaseLogger;
  authorization: string | undefined;
  /** Raw `organization_id` header; validated by the organization procedures. */
  organizationIdHeader: string | string[] | undefined;
  /** The path the caller asked for (before the /api alias is resolved), for links to it. */
  requestPath: string;
  /** Headers a procedure adds to its REST response (the list `Link`). */
  responseHeaders: Record<string, string>;
}

export function contextFactory(services: Services) {
  return ({ req }: { req: FastifyRequest }): Context => ({
    em: services.orm.em.fork(),
    verifyToken: services.verifyToken,
    settings: services.settings,
    log: req.log,
    authorization: req.headers.authorization,
    organizationIdHeader: req.headers['organization_id'],
    requestPath: req.originalUrl.split('?')[0] ?? '/',
    responseHeaders: {},
  });
}
