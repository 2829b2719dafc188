/**
 * Protection every route gets: security headers (helmet), CORS for the origins in CORS_ORIGINS,
 * and a rate limit per caller with 429 and Retry-After, counted in Redis (shared by every instance)
 * when REDIS_URL is set, else in each instance's memory.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import cors from '@fastify/cors';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { Redis } from 'ioredis';
import type { VerifyToken } from '../platform/auth/tokens.ts';
import type { Settings } from '../platform/config.ts';
import { callerOf } from './request-caller.ts';

/** A JWT's shape: three base64url parts. API keys and anything else are counted by address. */
const JWT_SHAPE = /^Bearer +[\w-]+\.[\w-]+\.[\w-]+$/i;

/**
 * The caller a request counts against: the subject of a token that verifies, else the client
 * address. Verified first, so that a token forged with another person's subject counts against
 * the sender's address, not against that person. A token's verification costs microseconds and
 * is kept (platform/auth/tokens.ts); an API key, whose verification reads the database, is counted
 * by address without it, so that past the limit a flood of made-up keys reads nothing.
 */
function callerKey(authenticate: VerifyToken) {
  return async (request: FastifyRequest): Promise<string> => {
    if (JWT_SHAPE.test(request.headers.authorization ?? '')) {
      const caller = await callerOf(request, authenticate).catch(() => undefined);
      if (caller?.kind === 'person') return `sub:${caller.userId}`;
    }
    return `ip:${request.ip}`;
  };
}

/**
 * The security headers of a JSON API (the OWASP REST Security Cheat Sheet's set), from helmet: an
 * answer loads nothing and no page may frame it (`default-src 'none'; frame-ancestors 'none'`,
 * `X-Frame-Options: DENY`), is never sniffed as another type, never cached (it holds personal
 * data), and its HTTPS origin is remembered (HSTS). helmet's other defaults only mean something
 * for HTML documents (COOP, Origin-Agent-Cluster, X-XSS-Protection, X-Download-Options…) and
 * were half of every answer's bytes; the one HTML page, `/docs`, sets its own policy
 * (reference-page.ts).
 *
 * Worked out once, since they are the same on every answer: @fastify/helmet rebuilds helmet (and
 * parses the CSP) per request, a visible share of a request's CPU in `npm run bench`, and helmet's own
 * middleware sets each header on the raw response, which puts Node's writeHead on its slow path.
 * Here they go out with Fastify's own headers, in one writeHead.
 */
function apiSecurityHeaders(): Record<string, string> {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  const recorder = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: () => undefined, // X-Powered-By, which Fastify never sends
  };
  const apiHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
  apiHeaders({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return headers;
}

/** On every answer, those written before there is a request or a route too (http/error-body.ts). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = apiSecurityHeaders();

const UNLIMITED_PATHS = new Set(['/healthz', '/readyz']);

/** How long a request waits for Redis before it is counted by this instance instead. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
const REDIS_CONNECT_TIMEOUT_MS = 1000;

type Counter = Pick<FastifyRateLimitStore, 'incr'>;
// @fastify/rate-limit's own two stores, the Redis one and the in-memory one, reused as they are for
// the fallback below (the package declares no types for them).
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  keyPrefix: string,
) => Counter;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
) => Counter;

/**
 * Counts in Redis, and while Redis does not answer (down, unreachable, or slower than
 * REDIS_COMMAND_TIMEOUT_MS), in this instance's memory: the limit then holds per instance, as
 * without REDIS_URL. Failing closed would turn a Redis outage into an outage of the whole API, and
 * failing open (the plugin's `skipOnError`) would lift the limit exactly while nobody watches it.
 * Redis is back in use with the first command it answers; one log line marks each change.
 */
function sharedCounters(
  { redis, connected }: RedisConnection,
  keyPrefix: string,
  log: FastifyBaseLogger,
): FastifyRateLimitStoreCtor {
  const warning = 'rate limit: Redis does not answer, counting per instance';
  let redisAnswers = connected;
  if (!connected) log.warn(warning);
  const failed = (error: Error) => {
    if (redisAnswers) log.warn({ err: error }, warning);
    redisAnswers = false;
  };
  const answered = () => {
    if (!redisAnswers) log.info('rate limit: Redis answers again, counting across instances');
    redisAnswers = true;
  };
  redis.on('error', failed);
  return class SharedCounters implements FastifyRateLimitStore {
    readonly #shared: Counter;
    readonly #local: Counter;

    constructor(options: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const continueExceeding = options.continueExceeding ?? false;
      const exponentialBackoff = options.exponentialBackoff ?? false;
      this.#shared = new RedisStore(continueExceeding, exponentialBackoff, redis, keyPrefix);
      this.#local = new LocalStore(continueExceeding, exponentialBackoff);
    }

    incr(key: string, callback: Parameters<Counter['incr']>[1], timeWindow: number, max: number): void {
      this.#shared.incr(
        key,
        (error, result) => {
          if (!error) {
            answered();
            callback(null, result);
            return;
          }
          failed(error);
          this.#local.incr(key, callback, timeWindow, max);
        },
        timeWindow,
        max,
      );
    }

    child(): FastifyRateLimitStore {
      throw new Error('No route sets a rate limit of its own: one limit per caller covers them all');
    }
  };
}

interface RedisConnection {
  redis: Redis;
  connected: boolean;
}

/**
 * A Redis client that fails fast: no queue of commands while disconnected, short timeouts, reconnects
 * by itself. ioredis is loaded only when REDIS_URL is set: it costs start-up time otherwise.
 */
async function connectRedis(url: string): Promise<RedisConnection> {
  // Read through the default export: ioredis is CommonJS, and in the bundle `npm start` runs, esbuild
  // puts a dynamically imported CommonJS module in a chunk whose one export is `default`, its
  // module.exports (esbuild issue #3245). `import('ioredis')`'s named `Redis` was undefined there,
  // and every start with REDIS_URL failed with "Redis is not a constructor" while the sources ran.
  // Under Node and in the bundle alike, `default` is module.exports, which carries `Redis`.
  const { Redis } = (await import('ioredis')).default;
  const redis = new Redis(url, {
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  // The start waits a moment for the first connection, so that the first requests count in Redis;
  // without it the service starts anyway and counts per instance until Redis answers.
  const connected = await Promise.race([
    once(redis, 'ready').then(
      () => true,
      () => false, // an 'error' event came first
    ),
    new Promise<boolean>((resolve) => setTimeout(resolve, REDIS_CONNECT_TIMEOUT_MS, false).unref()),
  ]);
  return { redis, connected };
}

export async function registerProtection(
  app: FastifyInstance,
  settings: Settings,
  authenticate: VerifyToken,
): Promise<void> {
  // Swagger UI needs its own CSP hashes; @fastify/swagger-ui sets them on its routes (staticCSP),
  // over this one.
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(SECURITY_HEADERS);
    done();
  });
  // Without allowed origins there is nothing for CORS to say: browsers get no Access-Control headers.
  if (settings.CORS_ORIGINS.length > 0) {
    await app.register(cors, {
      origin: settings.CORS_ORIGINS,
      // Every method the REST paths take: the plugin's default (GET, HEAD, POST) left a browser no
      // change but creations.
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      // What the typed client sends and reads (tests/browser-client.test.ts checks them in Chromium).
      allowedHeaders: [
        'authorization',
        'content-type',
        'organization_id',
        'idempotency-key',
        'x-request-id',
        'trpc-accept',
        'last-event-id',
      ],
      exposedHeaders: ['link', 'x-request-id', 'retry-after', 'idempotency-replayed'],
      maxAge: 600,
    });
  }
  if (settings.RATE_LIMIT_MAX > 0) {
    let store: FastifyRateLimitStoreCtor | undefined;
    if (settings.REDIS_URL) {
      const connection = await connectRedis(settings.REDIS_URL);
      app.addHook('onClose', (_instance, done) => {
        connection.redis.disconnect();
        done();
      });
      store = sharedCounters(connection, `${settings.REDIS_KEY_PREFIX}rate-limit:`, app.log);
    }
    await app.register(rateLimit, {
      store,
      max: settings.RATE_LIMIT_MAX,
      timeWindow: settings.RATE_LIMIT_WINDOW_MS,
      keyGenerator: callerKey(authenticate),
      allowList: (request) => UNLIMITED_PATHS.has(request.url),
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        code: 'TOO_MANY_REQUESTS',
        message: `Too many requests: retry in ${context.after}`,
      }),
    });
  }
}
