/**
 * The bearer token is checked before the body is read (behaviour §3.2: token first, body last): a
 * caller without a valid token is answered 401 whatever their body holds, and that body is never
 * read, parsed or held against the size limit. The caller is kept on the request, and the
 * procedures' context hands it to them (http/context.ts), so that the token is verified once.
 *
 * `authenticate` is whatever turns an Authorization header into a caller: today the JWT verifier
 * (platform/auth/tokens.ts); bearer secrets of another kind (API keys) would be recognised there.
 * Subscriptions read no body and keep their refusals inside the event stream, as tRPC's client
 * expects them: their procedures verify the token themselves.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { ERROR_STATUS } from '../../shared/errors.ts';
import type { Caller, VerifyToken } from '../platform/auth/tokens.ts';
import { DomainError } from '../platform/errors.ts';
import { errorPayload } from './error-body.ts';
import { callerOf } from './request-caller.ts';

type AuthenticatedRequest = FastifyRequest & { caller: Caller | null };

/** The caller whose token the request's hook verified, if it has one. */
export const verifiedCaller = (request: FastifyRequest): Caller | undefined =>
  (request as AuthenticatedRequest).caller ?? undefined;

function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): void {
  const known = error instanceof DomainError ? error : undefined;
  if (!known) request.log.error({ err: error }, 'request failed');
  const status = known ? ERROR_STATUS[known.code] : 500;
  // The body was not read, so what follows it on the connection cannot be taken for a request.
  if (!request.raw.complete) void reply.header('connection', 'close');
  void reply.status(status).send(errorPayload(request.url, status, known?.message ?? 'Internal server error'));
}

/** A route's `preParsing` hook that lets only a caller whose token verifies on to the body. */
export function authenticateFirst(app: FastifyInstance, authenticate: VerifyToken): preParsingHookHandler {
  if (!app.hasRequestDecorator('caller')) app.decorateRequest('caller', null);
  return (request, reply, payload, done) => {
    callerOf(request, authenticate).then(
      (caller) => {
        (request as AuthenticatedRequest).caller = caller;
        done(null, payload);
      },
      (error: unknown) => refuse(request, reply, error),
    );
  };
}
