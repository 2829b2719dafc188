/**
 * Prometheus metrics, served at GET /metrics on a listener of their own (METRICS_PORT, METRICS_HOST)
 * so that they are never public by accident. Each service has its own registry: nothing is kept in
 * @prometheus-io/client's global one, so several services in one process (the tests) stay apart.
 *
 * What is measured, and where:
 * - HTTP requests: two Fastify hooks. Labels are the route template (never the raw URL, so ids do
 *   not multiply the series; unmatched paths share one label), the method and the status. The
 *   duration is Fastify's own `reply.elapsedTime`. fastify-metrics would add a summary per request,
 *   skip unmatched paths and keep its metrics in the global registry, and has no in-flight gauge.
 * - tRPC procedures: /trpc answers several procedures in one request, so each call of a batch is
 *   counted by procedure and outcome, from tRPC's `responseMeta` hook.
 * - Database queries: every query passes through a connection's `executeQuery`, Kysely's
 *   (MikroORM's own queries and `em.getKysely()` alike) or statements.ts's (the requests' on MySQL
 *   and MariaDB); it is timed from when the connection is made, as Kysely's own `log` option does. MikroORM's logger would miss the queries run through
 *   `em.getKysely()` and only measures whole milliseconds.
 * - The mysql2 pool (MySQL, MariaDB): connections in use and idle, acquisitions waiting. The
 *   embedded libSQL database is one connection used from the event loop: it has no pool to show,
 *   and waiting for it shows as request duration and event-loop delay.
 * - The process: @prometheus-io/client's defaults (CPU, memory, heap, GC, handles, event-loop
 *   delay and utilisation).
 */
import type { AddressInfo } from 'node:net';
import type { Options } from '@mikro-orm/core';
import type { MySqlConnection } from '@mikro-orm/mysql';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from '@prometheus-io/client';
import type { DeliveryObserver } from '../modules/webhooks/dispatcher.ts';
import type { ResponseMetaFn } from '@trpc/server/http';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Engine } from '../platform/database/engine.ts';
import type { Orm } from '../platform/database/orm.ts';
import type { AppRouter } from '../modules/router.ts';
import { errorPayload } from './error-body.ts';

/** The label of requests that matched no route: any path a caller makes up shares it. */
const UNMATCHED_ROUTE = 'unmatched';
/** The label of tRPC calls naming no procedure. */
const UNKNOWN_PROCEDURE = 'unknown';

const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** The first word of a statement, as a label; anything else is `other`. */
const SQL_OPERATIONS = new Set([
  'select',
  'insert',
  'update',
  'delete',
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'release',
]);
/**
 * A query's first statement word, past a leading BEGIN (a transaction sends its first statements
 * with it in one round trip: database/unit-of-work.ts) and past MariaDB's per-statement settings
 * (`set statement … for update …`).
 */
const FIRST_WORD = /^\s*(?:begin\s*;\s*)?(?:set\s+statement\s+.*?\s+for\s+)?([a-z]+)/is;

function operationOf(sql: string): string {
  const word = FIRST_WORD.exec(sql)?.[1]?.toLowerCase();
  return word && SQL_OPERATIONS.has(word) ? word : 'other';
}

/** The driver's error code (`ER_DUP_ENTRY`, `SQLITE_CONSTRAINT_UNIQUE`, `ECONNRESET`): a bounded set. */
function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : 'other';
}

/** What Kysely's drivers (and statements.ts, alike) hand to `onCreateConnection`: a connection's `executeQuery`. */
interface QueryConnection {
  executeQuery(query: { sql: string }, ...rest: unknown[]): Promise<unknown>;
}

/**
 * mysql2 has no public getters for its pool's connection counts: they are read from its queues at
 * scrape time only (tests/metrics.test.ts checks them on MariaDB, so an upgrade that renames them shows).
 */
interface Mysql2PoolQueues {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

export interface MetricsListener {
  /** Where Prometheus scrapes: `http://host:port/metrics`. */
  url: string;
  /** What the listener serves. */
  registry: Registry;
  close(): Promise<void>;
}

export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({
    register: registry,
    // The client's defaults sample event-loop delay every 10 ms and utilisation every 100 ms, a
    // steady cost with no traffic at all; every 50 ms and every second costs a third of it, and
    // still gives hundreds of samples between two scrapes.
    eventLoopMonitoringPrecision: 50,
    eventLoopUtilizationTimeout: 1000,
  });

  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status, from arrival to the last byte sent',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const requestsInFlight = new Gauge({
    name: 'http_requests_in_flight',
    help: 'HTTP requests received and not yet answered',
    registers,
  });
  const rateLimited = new Counter({
    name: 'http_requests_rate_limited_total',
    help: 'Requests refused with 429 because their caller went over RATE_LIMIT_MAX',
    registers,
  });
  const procedureCalls = new Counter({
    name: 'trpc_procedure_calls_total',
    help: 'tRPC procedure calls at /trpc (each call of a batch), by procedure and outcome (ok or the error code)',
    labelNames: ['procedure', 'outcome'] as const,
    registers,
  });
  const queryDuration = new Histogram({
    name: 'db_query_duration_seconds',
    help: 'Database statements by first SQL word, from sending to the last row received (failed ones too)',
    labelNames: ['operation'] as const,
    buckets: QUERY_BUCKETS,
    registers,
  });
  const transactionConflicts = new Counter({
    name: 'db_transaction_conflicts_total',
    help: 'Transactions that lost a conflict (deadlock, lock wait, Galera certification, busy organization): retried, or given up with 503',
    labelNames: ['outcome'] as const,
    registers,
  });
  const queryErrors = new Counter({
    name: 'db_query_errors_total',
    help: "Database statements that failed, by first SQL word and the driver's error code",
    labelNames: ['operation', 'code'] as const,
    registers,
  });

  const finishRequest = () => requestsInFlight.dec();

  function timeQueries(connection: QueryConnection): void {
    const execute = connection.executeQuery.bind(connection);
    connection.executeQuery = async (query, ...rest) => {
      const operation = operationOf(query.sql);
      const started = performance.now();
      try {
        return await execute(query, ...rest);
      } catch (error) {
        queryErrors.inc({ operation, code: errorCodeOf(error) });
        throw error;
      } finally {
        queryDuration.observe({ operation }, (performance.now() - started) / 1000);
      }
    };
  }

  const webhookAttempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt scheduled), failed (for good)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const webhookLag = new Histogram({
    name: 'webhook_delivery_lag_seconds',
    help: "From an event's commit to the 2xx of its delivery to an endpoint",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200],
    registers,
  });
  const webhookQueue = new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries pending (due, scheduled for a retry, or under way), as last counted',
    registers,
  });

  return {
    registry,

    /** For the webhook dispatcher (modules/webhooks/dispatcher.ts). */
    webhooks: {
      attempted: (outcome) => webhookAttempts.inc({ outcome }),
      delivered: (lagSeconds) => webhookLag.observe(lagSeconds),
      queueDepth: (pending) => webhookQueue.set(pending),
    } satisfies DeliveryObserver,

    /** For the transaction helper: counts each lost conflict, retried or given up. */
    countConflict: (outcome: 'retried' | 'exhausted'): void => {
      transactionConflicts.inc({ outcome });
    },

    /** MikroORM options for openDatabase: every connection the driver creates gets its queries timed. */
    databaseOptions: {
      onCreateConnection: (connection: unknown) => {
        timeQueries(connection as QueryConnection);
        return Promise.resolve();
      },
    } satisfies Partial<Options>,

    /** Request duration, in-flight and 429 hooks; register before the routes and the rate limit. */
    instrumentRequests(app: FastifyInstance): void {
      // Callback hooks, as in http/logging.ts: they run on every request.
      app.addHook('onRequest', (_request, reply, done) => {
        requestsInFlight.inc();
        // 'close' comes after the response or when the client goes away first; onResponse only after one.
        reply.raw.on('close', finishRequest);
        done();
      });
      app.addHook('onResponse', (request, reply, done) => {
        const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
        requestDuration.observe(
          { method: request.method, route, status_code: reply.statusCode },
          reply.elapsedTime / 1000,
        );
        // Only the rate limit answers 429 (http/protection.ts).
        if (reply.statusCode === 429) rateLimited.inc();
        done();
      });
    },

    /** tRPC's `responseMeta`: counts each call of an answered /trpc request; changes nothing in the answer. */
    countProcedureCalls: (({ info, data }) => {
      for (const [index, call] of (info?.calls ?? []).entries()) {
        // One result per call; a request refused as a whole has a single error for all of them.
        const result = data[index] ?? data[0];
        let outcome = 'ok';
        if (!result) outcome = 'streamed';
        else if ('error' in result) outcome = result.error.data?.code ?? 'error';
        procedureCalls.inc({ procedure: call.procedure ? call.path : UNKNOWN_PROCEDURE, outcome });
      }
      return {};
    }) satisfies ResponseMetaFn<AppRouter>,

    /** Pool gauges where the driver has a pool (mysql2, for MySQL and MariaDB). */
    async observeDatabasePool(orm: Orm, engine: Engine): Promise<void> {
      // The embedded database has one connection and no pool.
      if (engine === 'sqlite') return;
      const pool = await (orm.em.getConnection() as unknown as MySqlConnection).getNativeClient();
      const queues = pool as unknown as Mysql2PoolQueues;
      new Gauge({
        name: 'db_pool_connections',
        help: 'Open connections of the database pool, by state (in_use, idle)',
        labelNames: ['state'] as const,
        registers,
        collect() {
          const all = queues._allConnections?.length ?? 0;
          const idle = queues._freeConnections?.length ?? 0;
          this.set({ state: 'in_use' }, all - idle);
          this.set({ state: 'idle' }, idle);
        },
      });
      new Gauge({
        name: 'db_pool_max_connections',
        help: 'Most connections the database pool opens',
        registers,
        collect() {
          this.set(pool.config.connectionLimit ?? 0);
        },
      });
      new Gauge({
        name: 'db_pool_waiting_acquisitions',
        help: 'Requests waiting for a database connection right now, all of the pool being in use',
        registers,
        collect() {
          this.set(queues._connectionQueue?.length ?? 0);
        },
      });
      const queued = new Counter({
        name: 'db_pool_queued_acquisitions_total',
        help: 'Times a request had to wait for a database connection, all of the pool being in use',
        registers,
      });
      pool.on('enqueue', () => queued.inc());
    },

    /** Serves GET /metrics on its own listener (port 0: any free port). */
    async listen(host: string, port: number): Promise<MetricsListener> {
      // Its close ends every connection at once (behaviour §10): a scraper's kept-alive socket, one
      // that has not sent its request yet or sends it slowly would otherwise hold the stop, this
      // listener having no request or connection time-out, until SHUTDOWN_TIMEOUT_MS exits 1. A
      // scrape cut by the stop is only a scrape missed.
      const server = Fastify({ forceCloseConnections: true });
      server.get('/metrics', async (_request, reply) =>
        reply.type(registry.contentType).send(await registry.metrics()),
      );
      // Anything else in the service's error body, as on the service's own listener.
      server.setNotFoundHandler((request, reply) =>
        reply
          .status(404)
          .send(errorPayload(request.url, 404, `No route for ${request.method} ${request.url}: only GET /metrics`)),
      );
      await server.listen({ host, port });
      const { port: boundPort } = server.server.address() as AddressInfo;
      const hostPart = host.includes(':') ? `[${host}]` : host;
      return { url: `http://${hostPart}:${boundPort}/metrics`, registry, close: () => server.close() };
    },
  };
}
