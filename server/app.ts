/**
 * Assembles the service: database, token verifier, the HTTP layer (REST, tRPC, OpenAPI, health)
 * and, with METRICS_PORT, the metrics listener. `startService` is what `npm start` and the tests run.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createTokenVerifier } from './auth/tokens.ts';
import type { Settings } from './config.ts';
import { migrate, openDatabase, type Orm } from './data/orm.ts';
import { registerErrorHandlers } from './http/error-body.ts';
import { healthPlugin } from './http/health.ts';
import { createLogger, registerRequestLogging, requestId } from './http/logging.ts';
import { createMetrics, type MetricsListener } from './http/metrics.ts';
import { buildOpenApiDocument, openApiPlugin } from './http/openapi.ts';
import { registerProtection } from './http/protection.ts';
import { referencePagePlugin } from './http/reference-page.ts';
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
  /** The metrics listener, when METRICS_PORT is set. */
  metrics?: MetricsListener;
  close(): Promise<void>;
}

export async function startService(settings: Settings): Promise<Service> {
  const logger = createLogger(settings.LOG_LEVEL);
  const verifyToken = createTokenVerifier(settings);
  const metrics = settings.METRICS_PORT === undefined ? undefined : createMetrics();
  const orm = await openDatabase(settings.DATABASE_URL, metrics?.databaseOptions);
  let metricsListener: MetricsListener | undefined;
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
      bodyLimit: BODY_LIMIT_BYTES,
      // A client must send its whole request in time, and idle keep-alive sockets are closed.
      requestTimeout: settings.REQUEST_TIMEOUT_MS,
      connectionTimeout: settings.REQUEST_TIMEOUT_MS * 2,
      keepAliveTimeout: 5_000,
      rewriteUrl: (request) => (request.url ?? '/').replace(API_ALIAS, ''),
    });
    registerRequestLogging(app);
    metrics?.instrumentRequests(app);
    registerErrorHandlers(app);
    await registerProtection(app, settings);
    const createContext = contextFactory({ orm, verifyToken, settings });
    await app.register(healthPlugin(orm));
    const openApiDocument = buildOpenApiDocument(appRouter);
    await app.register(openApiPlugin(openApiDocument));
    await app.register(referencePagePlugin(openApiDocument));
    // Sibling scopes: the tRPC plugin replaces the JSON parser inside its own scope.
    await app.register(trpcPlugin(appRouter, createContext, metrics?.countProcedureCalls));
    await app.register(restPlugin(appRouter, createContext));
    app.server.maxConnections = settings.MAX_CONNECTIONS;
    if (metrics) {
      await metrics.observeDatabasePool(orm);
      metricsListener = await metrics.listen(settings.METRICS_HOST, settings.METRICS_PORT!);
    }
    await app.listen({ port: settings.PORT, host: settings.HOST });
    return {
      app,
      orm,
      logger,
      metrics: metricsListener,
      async close() {
        await app.close();
        await metricsListener?.close();
        await orm.close();
      },
    };
  } catch (error) {
    await metricsListener?.close();
    await orm.close();
    throw error;
  }
}
