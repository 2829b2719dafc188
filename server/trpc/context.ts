/**
 * What every procedure sees: the database for this request, the token verifier, the settings and
 * the headers the contract reads. Built the same way for tRPC calls and for REST calls.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { VerifyToken } from '../auth/tokens.ts';
import type { Settings } from '../config.ts';
import type { Db } from '../data/transaction.ts';

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
  /** Raw `Idempotency-Key` header; read by change procedures (CONTRACT 10). */
  idempotencyKeyHeader: string | string[] | undefined;
  /** The path the caller asked for (before the /api alias is resolved), for links to it. */
  requestPath: string;
  /** Headers a procedure adds to its REST response (the list `Link`, `Idempotency-Replayed`). */
  responseHeaders: Record<string, string>;
}

const isHandlerTimeout = (reason: unknown) =>
  (reason as { code?: unknown } | undefined)?.code === 'FST_ERR_HANDLER_TIMEOUT';

/**
 * Aborted when the service gives the request up: Fastify's processing limit (handlerTimeout)
 * answered it with 503, or its connection closed before the answer was written. A transaction
 * still running then rolls back instead of committing (data/transaction.ts). Not `request.signal`
 * alone: Fastify also aborts that one when the request body has been read.
 */
function givenUpSignal(req: FastifyRequest, reply: FastifyReply | undefined): AbortSignal {
  const controller = new AbortController();
  const giveUp = () => controller.abort();
  req.signal.addEventListener('abort', () => isHandlerTimeout(req.signal.reason) && giveUp(), { once: true });
  reply?.raw.once('close', () => reply.raw.writableFinished || giveUp());
  return controller.signal;
}

export function contextFactory(services: Services) {
  return ({ req, res }: { req: FastifyRequest; res?: FastifyReply }): Context => ({
    db: services.db.forRequest({ signal: givenUpSignal(req, res) }),
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
