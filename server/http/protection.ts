/**
 * Protection every route gets: security headers (helmet), CORS for the origins in CORS_ORIGINS,
 * and a rate limit per caller with 429 and Retry-After.
 */
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { decodeJwt } from 'jose';
import type { Settings } from '../config.ts';

/**
 * The caller a request counts against: the token's subject, else the client address. The token
 * is only decoded here, not verified: a forged subject buys nothing but 401s, and verifying
 * before the limit would spend the work the limit is there to save.
 */
function callerKey(request: FastifyRequest): string {
  const token = /^Bearer +(\S+)/i.exec(request.headers.authorization ?? '')?.[1];
  if (token) {
    try {
      const { sub } = decodeJwt(token);
      if (typeof sub === 'string' && sub.length <= 128) return `sub:${sub}`;
    } catch {
      // Not a JWT: counted by address.
    }
  }
  return `ip:${request.ip}`;
}

const UNLIMITED_PATHS = new Set(['/healthz', '/readyz']);

export async function registerProtection(app: FastifyInstance, settings: Settings): Promise<void> {
  // helmet itself, built once: @fastify/helmet rebuilds the middleware (and parses the CSP) on every
  // request, which cost about 6 % of a request's CPU in `npm run bench`. Swagger UI needs its own
  // CSP hashes; @fastify/swagger-ui sets them on its routes (staticCSP), over this one.
  const securityHeaders = helmet();
  app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, () => done()));
  // Without allowed origins there is nothing for CORS to say: browsers get no Access-Control headers.
  if (settings.CORS_ORIGINS.length > 0) {
    await app.register(cors, {
      origin: settings.CORS_ORIGINS,
      allowedHeaders: ['authorization', 'content-type', 'organization_id', 'x-request-id', 'trpc-accept'],
      exposedHeaders: ['link', 'x-request-id', 'retry-after'],
      maxAge: 600,
    });
  }
  if (settings.RATE_LIMIT_MAX > 0) {
    await app.register(rateLimit, {
      max: settings.RATE_LIMIT_MAX,
      timeWindow: settings.RATE_LIMIT_WINDOW_MS,
      keyGenerator: callerKey,
      allowList: (request) => UNLIMITED_PATHS.has(request.url),
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        code: 'TOO_MANY_REQUESTS',
        message: `Too many requests: retry in ${context.after}`,
      }),
    });
  }
}
