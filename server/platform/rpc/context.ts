/**
 * What every procedure sees: the database for this request, the token verifier, the settings and
 * the headers the contract reads. Built the same way for tRPC calls and for REST calls.
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { VerifyToken } from '../auth/tokens.ts';
import type { Settings } from '../config.ts';
import type { Db } from '../data/transaction.ts';
import { givenUpSignal } from '../http/processing-limit.ts';

export interface Services {
  db: Db;
  verifyToken: VerifyToken;
  settings: Settings;
}

export interface Context {
  db: Db;
  verifyToken: VerifyToken;
  settings: Settings;
  log: FastifyBaseLogger;
  authorization: string | undefined;
  /** Raw `organization_id` header; validated by the organization procedures. */
  organizationIdHeader: string | string[] | undefined;
  /** Raw `Idempotency-Key` header; read by change procedures (behaviour §10). */
  idempotencyKeyHeader: string | string[] | undefined;
  /** The path the caller asked for (before the /api alias is resolved), for links to it. */
  requestPath: string;
  /** Headers a procedure adds to its REST response (the list `Link`, `Idempotency-Replayed`). */
  responseHeaders: Record<string, string>;
}

export function contextFactory(services: Services) {
  return ({ req }: { req: FastifyRequest }): Context => ({
    // Aborted when the request is given up (http/processing-limit.ts): its transaction then rolls back.
    db: services.db.forRequest({ signal: givenUpSignal(req) }),
    verifyToken: services.verifyToken,
    settings: services.settings,
    log: req.log,
    authorization: req.headers.authorization,
    organizationIdHeader: req.headers['organization_id'],
    idempotencyKeyHeader: req.headers['idempotency-key'],
    requestPath: req.originalUrl.split('?')[0] ?? '/',
    responseHeaders: {},
  });
}
