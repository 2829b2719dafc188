/**
 * The request's credential verified once, however often it is asked for: by the rate limit, which
 * counts a person by the subject of a token only once it verifies (http/protection.ts), and by the
 * routes' hook that lets only a verified caller on to the body (http/authentication.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { Caller, VerifyToken } from '../platform/auth/tokens.ts';
import { authorizationHeader } from './repeated-headers.ts';

const verifications = new WeakMap<FastifyRequest, Promise<Caller>>();

export function callerOf(request: FastifyRequest, authenticate: VerifyToken): Promise<Caller> {
  let verification = verifications.get(request);
  if (!verification) {
    verification = authenticate(authorizationHeader(request.raw));
    verifications.set(request, verification);
  }
  return verification;
}
