/**
 * The bearer token is checked before the body is read (behaviour §3.2: token first, body last): a
 * caller without a valid token is answered 401 whatever their body holds, and that body is never
 * read, parsed or held against the size limit. The caller is kept on the request, and the
 * procedures' context hands it to them (http/context.ts), so that the token is verified once.
 *
 * `authenticate` is whatever turns an Authorization header into a caller: the JWT verifier, which
 * takes a key's secret (`oak_…`, `sak_…`) by its shape alone (platform/auth/tokens.ts). Whether
 * such a key exists and is live is read before a body is, as SCIM does (http/scim.ts), so that an
 * unknown, revoked or expired key is 401 whatever the body holds (behaviour §16).
 * Subscriptions read no body and keep their refusals inside the event stream, as tRPC's client
 * expects them: their procedures verify the token themselves.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { TRPCError } from '@trpc/server';
import type { Caller, VerifyToken } from '../platform/auth/tokens.ts';
import { invalidKey, liveKey } from '../platform/authorization/keys.ts';
import type { Reader } from '../platform/database/transaction.ts';
import { httpStatusOf, logFailure, publicErrorBody } from '../platform/errors.ts';
import { errorPayload } from './error-body.ts';
import { announcesBody } from './json-body.ts';
import { callerOf } from './request-caller.ts';

type AuthenticatedRequest = FastifyRequest & { caller: Caller | null };

/** The caller whose token the request's hook verified, if it has one. */
export const verifiedCaller = (request: FastifyRequest): Caller | undefined =>
  (request as AuthenticatedRequest).caller ?? undefined;

/** The refusal in the shape of the request's path; a database that fails the key's read is 503, as anywhere. */
function refuse(request: FastifyRequest, reply: FastifyReply, cause: unknown): void {
  const error = cause instanceof TRPCError ? cause : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause });
  logFailure(error, request.log);
  const status = httpStatusOf(error);
  // The body was not read, so what follows it on the connection cannot be taken for a request.
  if (!request.raw.complete) void reply.header('connection', 'close');
  void reply.status(status).send(errorPayload(request.url, status, publicErrorBody(error).message));
}

/** The database as the request's procedure would read it (its context's, http/context.ts). */
export type DatabaseOf = (request: FastifyRequest) => Reader;

/**
 * A key's row, read before a body is: one indexed read, the same for a missing key as for a wrong
 * one (platform/authorization/keys.ts). It only refuses; the guard reads the key again with the
 * request's first statement, which decides (behaviour §16).
 */
async function refuseDeadKey(
  request: FastifyRequest,
  caller: Exclude<Caller, { kind: 'person' }>,
  databaseOf: DatabaseOf,
): Promise<void> {
  const key = await liveKey(databaseOf(request), caller.kind, caller.secretHash);
  if (key === undefined) throw invalidKey();
}

/**
 * A route's `preParsing` hook that lets only a caller whose token or key verifies on to the body.
 * A key's request without a body has nothing to keep from the key, and is left to the guard's one
 * read; a person's token is verified whole already: neither makes a promise more than the
 * verification's.
 */
export function authenticateFirst(
  app: FastifyInstance,
  authenticate: VerifyToken,
  databaseOf: DatabaseOf,
): preParsingHookHandler {
  if (!app.hasRequestDecorator('caller')) app.decorateRequest('caller', null);
  return (request, reply, payload, done) => {
    const letIn = (caller: Caller) => {
      (request as AuthenticatedRequest).caller = caller;
      done(null, payload);
    };
    const refused = (error: unknown) => refuse(request, reply, error);
    callerOf(request, authenticate).then((caller) => {
      if (caller.kind === 'person' || !announcesBody(request)) return letIn(caller);
      refuseDeadKey(request, caller, databaseOf).then(() => letIn(caller), refused);
    }, refused);
  };
}
