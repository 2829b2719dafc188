/**
 * Assembles the service: database, token verifier, and the HTTP layer (REST, tRPC, OpenAPI,
 * health). `startService` is what `npm start` and the tests run.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createTokenVerifier } from './auth/tokens.ts';
import type { Settings } from './config.ts';
import { migrate, openDatabase, type Orm } from './data/orm.ts';
import { MAX_BODY_BYTES, MAX_HEADER_BYTES } from '../shared/limits.ts';
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH, registerErrorHandlers } from './http/error-body.ts';
import { healthPlugin } from './http/health.ts';
import { createLogger, registerRequestLogging, requestId } from './http/logging.ts';
import { openApiPlugin } from './http/openapi.ts';
import { registerProtection } from './http/protection.ts';
import { restPlugin } from './http/rest.ts';
import { trpcPlugin } from './http/trpc.ts';
import { appRouter } from './routers/index.ts';
import { contextFactory } from './trpc/context.ts';

/** The interface serves the user and organization endpoints under /api as well as without it. */
const API_ALIAS = /^\/api(?=\/(?:users|organizations)(?:[/?#]|$))/i;

export interface Service {
  app: FastifyInstance;
  orm: Orm;
  logger: Logger;
  close(): Promise<void>;
}

export async function startService(settings: Settings): Promise<Service> {
  const logger = createLogger(settings.LOG_LEVEL);
  const verifyToken = createTokenVerifier(settings);
  const orm = await openDatabase(settings.DATABASE_URL);
  try {
    if (settings.MIGRATE_ON_START) {
      const applied = await migrate(orm);
      if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
    }
    const app = Fastify({
      loggerInstance: logger as FastifyBaseLogger,
      // Fastify's two lines per request give way to our one (http/logging.ts).
      logController: new LogController({ disableRequestLogging: true }),
      genReqId: requestId,
      bodyLimit: MAX_BODY_BYTES,
      // tRPC's advice for Fastify: a batch's procedure list is one path parameter. It also holds a
      // 128-character id percent-encoded (at most 1152 characters); longer is answered 414.
      routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
      // Well-formed JSON with `__proto__` or `constructor.prototype` keys: the keys are dropped
      // (unknown fields are ignored), never merged, and the request is not refused.
      onProtoPoisoning: 'remove',
      onConstructorPoisoning: 'remove',
      // Errors raised before a route runs get the contract's body too (http/error-body.ts).
      frameworkErrors: answerFrameworkError,
      clientErrorHandler: answerClientError,
      // Slow senders are looked for often enough (Node's default: every 30 s) that they get their
      // 408 well before the connection timeout closes their socket without an answer.
      http: {
        maxHeaderSize: MAX_HEADER_BYTES,
        connectionsCheckingInterval: Math.min(1_000, settings.REQUEST_TIMEOUT_MS / 4),
      },
      // A client must send its whole request in time, and idle keep-alive sockets are closed.
      requestTimeout: settings.REQUEST_TIMEOUT_MS,
      connectionTimeout: settings.REQUEST_TIMEOUT_MS * 2,
      keepAliveTimeout: 5_000,
      rewriteUrl: (request) => (request.url ?? '/').replace(API_ALIAS, ''),
    });
    registerRequestLogging(app);
    registerErrorHandlers(app);
    await registerProtection(app, settings);
    const createContext = contextFactory({ orm, verifyToken, settings });
    await app.register(healthPlugin(orm));
    await app.register(openApiPlugin(appRouter));
    // Sibling scopes: the tRPC plugin replaces the JSON parser inside its own scope.
    await app.register(trpcPlugin(appRouter, createContext));
    await app.register(restPlugin(appRouter, createContext));
    app.server.maxConnections = settings.MAX_CONNECTIONS;
    await app.listen({ port: settings.PORT, host: settings.HOST });
    return {
      app,
      orm,
      logger,
      async close() {
        await app.close();
        await orm.close();
      },
    };
  } catch (error) {
    await orm.close();
    throw error;
  }
}
