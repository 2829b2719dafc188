/**
 * Assembles the service: database, token verifier, and the HTTP layer (REST, tRPC, OpenAPI,
 * health). `startService` is what `npm start` and the tests run.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createTokenVerifier } from './auth/tokens.ts';
import { processingLimitMs, type Settings } from './config.ts';
import { dialectOf } from '../mikro-orm.config.ts';
import { migrate, openDatabase, type Orm } from './data/orm.ts';
import { Db } from './data/transaction.ts';
import { registerErrorHandlers } from './http/error-body.ts';
import { healthPlugin } from './http/health.ts';
import { createLogger, registerRequestLogging, requestId } from './http/logging.ts';
import { openApiPlugin } from './http/openapi.ts';
import { registerProtection } from './http/protection.ts';
import { restPlugin } from './http/rest.ts';
import { trpcPlugin } from './http/trpc.ts';
import { appRouter } from './routers/index.ts';
import { contextFactory } from './trpc/context.ts';

const BODY_LIMIT_BYTES = 64 * 1024;

/** The interface serves the user and organization endpoints under /api as well as without it. */
const API_ALIAS = /^\/api(?=\/(?:users|organizations)(?:[/?#]|$))/i;

export interface Service {
  app: FastifyInstance;
  orm: Orm;
  logger: Logger;
  close(): Promise<void>;
}

/** Transactions retried after a lost conflict: attempts at most, the first included. */
const MAX_TRANSACTION_ATTEMPTS = 5;

/** Write transactions hold at most this many of the pool's connections; a quarter stays for reads. */
const writeSlots = (poolSize: number) => Math.max(1, poolSize - Math.max(1, Math.floor(poolSize / 4)));

/**
 * Applies pending migrations, on MySQL and MariaDB through an ORM of its own without the serving
 * pool's time bounds (a migration may rightly take longer than a request).
 */
async function migrateOnStart(settings: Settings, serving: Orm): Promise<string[]> {
  if (dialectOf(settings.DATABASE_URL) === 'sqlite') return migrate(serving);
  const unbounded = await openDatabase(settings.DATABASE_URL);
  try {
    return await migrate(unbounded);
  } finally {
    await unbounded.close();
  }
}

export async function startService(settings: Settings): Promise<Service> {
  const logger = createLogger(settings.LOG_LEVEL);
  const verifyToken = createTokenVerifier(settings);
  const orm = await openDatabase(settings.DATABASE_URL, {
    poolSize: settings.DB_POOL_SIZE,
    timeoutMs: settings.DB_TIMEOUT_MS,
  });
  try {
    if (settings.MIGRATE_ON_START) {
      const applied = await migrateOnStart(settings, orm);
      if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
    }
    const db = Db.open(orm.em, {
      timeoutMs: settings.DB_TIMEOUT_MS,
      maxAttempts: MAX_TRANSACTION_ATTEMPTS,
      writeSlots: writeSlots(settings.DB_POOL_SIZE),
    });
    const app = Fastify({
      loggerInstance: logger as FastifyBaseLogger,
      // Fastify's two lines per request give way to our one (http/logging.ts).
      logController: new LogController({ disableRequestLogging: true }),
      genReqId: requestId,
      bodyLimit: BODY_LIMIT_BYTES,
      // A client must send its whole request in time, and idle keep-alive sockets are closed. Node
      // checks the request timeout every connectionsCheckingInterval (30 s by default).
      requestTimeout: settings.REQUEST_TIMEOUT_MS,
      http: { connectionsCheckingInterval: Math.min(30_000, Math.ceil(settings.REQUEST_TIMEOUT_MS / 2)) },
      // Longer than the processing limit below: a request is answered before its socket is closed.
      connectionTimeout: Math.max(settings.REQUEST_TIMEOUT_MS * 2, processingLimitMs(settings) + 5_000),
      // The processing limit: a request still running then is answered 503 and its transaction
      // rolls back (trpc/context.ts); the database's own bounds normally end it well before.
      handlerTimeout: processingLimitMs(settings),
      keepAliveTimeout: 5_000,
      rewriteUrl: (request) => (request.url ?? '/').replace(API_ALIAS, ''),
    });
    registerRequestLogging(app);
    registerErrorHandlers(app);
    await registerProtection(app, settings);
    const createContext = contextFactory({ db, verifyToken, settings });
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
