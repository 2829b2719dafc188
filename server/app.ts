/**
 * Assembles the service: database, token verifier, the HTTP layer (REST, tRPC, OpenAPI, health)
 * and, with METRICS_PORT, the metrics listener. `startService` is what `npm start` and the tests run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createTokenVerifier } from './platform/auth/tokens.ts';
import { isProduction, processingLimitMs, type Settings } from './platform/config.ts';
import { collectStartGarbage } from './platform/start-garbage.ts';
import { KeysInFlight } from './platform/idempotency.ts';
import { isGaleraNode, migrate, openDatabase, pingDatabase, type Orm } from './platform/database/orm.ts';
import { Db } from './platform/database/transaction.ts';
import { startTracing } from './platform/tracing/tracing.ts';
import { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_HEADER_LINES } from '../shared/limits.ts';
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH, registerErrorHandlers } from './http/error-body.ts';
import { healthPlugin } from './http/health.ts';
import { parseQueryString, refuseMalformedQueryStrings } from './http/query-string.ts';
import { listenFor, METRICS_LISTENER, REQUESTS_LISTENER } from './http/listen.ts';
import { createLogger, registerRequestLogging, requestId } from './http/logging.ts';
import { registerRequestTracing } from './http/tracing.ts';
import type { MetricsListener } from './http/metrics.ts';
import { openApiDocumentOnDemand, openApiPlugin } from './http/openapi.ts';
import { registerProtection } from './http/protection.ts';
import { referencePagePlugin } from './http/reference-page.ts';
import { restPlugin } from './http/rest.ts';
import { registerStatusHeaders } from './http/status-headers.ts';
import { registerProcessingLimit } from './http/processing-limit.ts';
import { RequestsInFlight } from './platform/requests-in-flight.ts';
import { registerStopping, StopAwareResponse } from './http/stopping.ts';
import { SCIM_PREFIX, scimPlugin } from './http/scim.ts';
import { trpcPlugin } from './http/trpc.ts';
import { appRouter } from './modules/router.ts';
import { consolePlugin } from './http/console.ts';
import { contextFactory } from './http/context.ts';
import { withoutApiPrefix } from './http/api-alias.ts';
import { startBackgroundJobs } from './background-jobs.ts';

export interface Service {
  app: FastifyInstance;
  orm: Orm;
  logger: Logger;
  /** The migrations this start applied (none when MIGRATE_ON_START is off or none were pending). */
  migrationsApplied: string[];
  /**
   * Stops as behaviour §10 says: readiness fails and answers carry `Connection: close` at once,
   * requests are served for `drainMs`, then the listener closes, the requests still running finish
   * while the background jobs stop (background-jobs.ts), the metrics listener closes, ending its
   * connections at once (http/metrics.ts), the database pool closes, and the spans not yet sent
   * get TRACES_STOP_WAIT_MS at most (platform/tracing/tracing.ts).
   */
  close(drainMs?: number): Promise<void>;
  /** The metrics listener, when METRICS_PORT is set. */
  metrics?: MetricsListener;
}

/**
 * Transactions retried after a lost conflict: attempts at most, the first included. A busy
 * organization on MariaDB is a lost conflict too (organization-changes.ts), retried within
 * DB_TIMEOUT_MS; the pauses between attempts grow to 200 ms.
 */
const MAX_TRANSACTION_ATTEMPTS = 20;

/** Write transactions hold at most this many of the pool's connections; a quarter stays for reads. */
const writeSlots = (poolSize: number) => Math.max(1, poolSize - Math.max(1, Math.floor(poolSize / 4)));

/**
 * Applies pending migrations, on MySQL and MariaDB through an ORM of its own without the serving
 * pool's time bounds (a migration may rightly take longer than a request).
 */
async function migrateOnStart(settings: Settings, serving: Orm): Promise<string[]> {
  if (settings.database.dialect === 'sqlite') return migrate(serving);
  const unbounded = await openDatabase(settings.database);
  try {
    return await migrate(unbounded);
  } finally {
    await unbounded.close();
  }
}

export async function startService(settings: Settings): Promise<Service> {
  const logger = createLogger(settings.LOG_LEVEL);
  const verifyToken = createTokenVerifier(settings, logger);
  // The metrics library is loaded only with METRICS_PORT: it costs start-up time otherwise.
  const metrics = settings.METRICS_PORT === undefined ? undefined : (await import('./http/metrics.ts')).createMetrics();
  // Before the database opens: its connections trace their statements when tracing is on.
  const stopTracing = await startTracing(settings, logger);
  const orm = await openDatabase(
    settings.database,
    { poolSize: settings.DB_POOL_SIZE, timeoutMs: settings.DB_TIMEOUT_MS },
    metrics?.databaseOptions,
  );
  let metricsListener: MetricsListener | undefined;
  try {
    // A wrong URL or password, or a database that does not exist, stops the start here, before
    // the migrator could create it, with one line that says so (cli/failures.ts).
    await pingDatabase(orm);
    // Reported in the start line only (server/start.ts): a start that fails logs nothing else.
    const migrationsApplied = settings.MIGRATE_ON_START ? await migrateOnStart(settings, orm) : [];
    const { engine } = settings.database;
    const db = Db.open(orm.em, engine, {
      timeoutMs: settings.DB_TIMEOUT_MS,
      maxAttempts: MAX_TRANSACTION_ATTEMPTS,
      writeSlots: writeSlots(settings.DB_POOL_SIZE),
      onConflict: metrics?.countConflict,
      statementsTogether: engine !== 'sqlite' && !(await isGaleraNode(orm, settings.database)),
      // The embedded database has one writer at a time: a second change would only wait for it.
      changesPerOrganization: engine === 'sqlite' ? 1 : 2,
    });
    const app = Fastify({
      // The assertion is what makes Fastify infer FastifyBaseLogger for its Logger type parameter,
      // the one the plugins' FastifyInstance takes; the rule sees only the option's constraint.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- see above
      loggerInstance: logger as FastifyBaseLogger,
      // Fastify's two lines per request give way to our one (http/logging.ts).
      logController: new LogController({ disableRequestLogging: true }),
      genReqId: requestId,
      // Forwarding headers believed from these proxies only (docs/operations.md, "Behind a proxy").
      trustProxy: settings.TRUST_PROXY ?? false,
      bodyLimit: MAX_BODY_BYTES,
      // tRPC's advice for Fastify: a batch's procedure list is one path parameter. It also holds a
      // 128-character id percent-encoded (at most 1152 characters); longer is answered 414.
      routerOptions: { maxParamLength: MAX_PARAM_LENGTH, querystringParser: parseQueryString },
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
        // A request without Host is refused with the error body (http/error-body.ts), not by Node
        // with an empty 400.
        requireHostHeader: false,
        connectionsCheckingInterval: Math.min(1_000, settings.REQUEST_TIMEOUT_MS / 4),
        // After the signal every answer says Connection: close, whatever wrote it (http/stopping.ts).
        ServerResponse: StopAwareResponse,
      },
      // A client must send its whole request in time, and idle keep-alive sockets are closed.
      requestTimeout: settings.REQUEST_TIMEOUT_MS,
      // Longer than the processing limit below: a request is answered before its socket is closed.
      connectionTimeout: Math.max(settings.REQUEST_TIMEOUT_MS * 2, processingLimitMs(settings) + 5_000),
      keepAliveTimeout: 5_000,
      rewriteUrl: (request) => withoutApiPrefix(request.url ?? '/'),
      // Refused while closing: the contract's body and Retry-After instead (http/stopping.ts).
      return503OnClosing: false,
    });
    registerRequestLogging(app);
    registerRequestTracing(app);
    const stopping = registerStopping(app);
    // A request still running then is answered 503 and its transaction rolls back; the database's
    // own bounds (DB_TIMEOUT_MS) normally end it well before.
    registerProcessingLimit(app, processingLimitMs(settings));
    metrics?.instrumentRequests(app);
    registerErrorHandlers(app);
    registerStatusHeaders(app);
    await registerProtection(app, settings, verifyToken);
    // After protection's hooks: the refusal carries the security and CORS headers, and counts against the rate limit.
    refuseMalformedQueryStrings(app);
    const createContext = contextFactory({
      db,
      verifyToken,
      settings,
      keysInFlight: new KeysInFlight(),
      // Half the database budget: a revocation is answered well within its own processing limit.
      requestsInFlight: new RequestsInFlight(settings.DB_TIMEOUT_MS / 2),
    });
    await app.register(healthPlugin(orm, stopping));
    const openApiDocument = openApiDocumentOnDemand(appRouter, settings.roles, settings.PUBLIC_URL);
    await app.register(openApiPlugin(openApiDocument));
    await app.register(referencePagePlugin(openApiDocument, settings.PUBLIC_URL));
    if (settings.CONSOLE) await app.register(consolePlugin(settings.PUBLIC_URL));
    // Sibling scopes: the tRPC plugin replaces the JSON parser inside its own scope.
    await app.register(trpcPlugin(appRouter, createContext, verifyToken, metrics?.countProcedureCalls));
    await app.register(restPlugin(appRouter, createContext, verifyToken));
    await app.register(scimPlugin(createContext, verifyToken, settings.PUBLIC_URL), { prefix: SCIM_PREFIX });
    app.server.maxConnections = settings.MAX_CONNECTIONS;
    // Past it Node's parser refuses the request (431), as it does past maxHeaderSize.
    app.server.maxHeadersCount = MAX_HEADER_LINES;
    if (metrics) {
      await metrics.observeDatabasePool(orm, settings.database.engine);
      metricsListener = await listenFor(METRICS_LISTENER, settings, () =>
        metrics.listen(settings.METRICS_HOST, settings.METRICS_PORT!),
      );
    }
    // In production, the start's garbage is collected before the first request (start-garbage.ts).
    if (isProduction(settings)) collectStartGarbage();
    // Fastify logs a line per address it listens on; the start logs one line of its own
    // (server/start.ts). Muting the logger around listen is how Fastify's maintainers suggest it:
    // no request can be logged in between, the 'listening' event and this continuation run first.
    logger.level = 'silent';
    try {
      await listenFor(REQUESTS_LISTENER, settings, () => app.listen({ port: settings.PORT, host: settings.HOST }));
    } finally {
      logger.level = settings.LOG_LEVEL;
    }
    const stopBackgroundJobs = startBackgroundJobs(db, settings, logger, metrics?.webhooks);
    return {
      app,
      orm,
      logger,
      migrationsApplied,
      metrics: metricsListener,
      async close(drainMs = 0) {
        stopping.beginDraining();
        if (drainMs > 0) await sleep(drainMs);
        logger.info('closing the listener: finishing the requests under way');
        // Meanwhile the background jobs stop, none waiting on the database past DB_TIMEOUT_MS.
        await Promise.all([app.close(), stopBackgroundJobs()]);
        await metricsListener?.close();
        await orm.close();
        await stopTracing();
      },
    };
  } catch (error) {
    await metricsListener?.close();
    await orm.close();
    await stopTracing();
    throw error;
  }
}
