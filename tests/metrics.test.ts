/**
 * Prometheus metrics on their own listener: a scrape parses as the Prometheus text format, and the
 * counters move with the traffic that should move them (requests by route template, 429s, tRPC
 * calls, database queries and their failures, the mysql2 pool), on each database.
 */
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { databaseTarget, describeOnEachDatabase } from './support/databases.ts';
import mysql from 'mysql2/promise';
import { createOrganization, registerUser, uniqueId } from './support/fixtures.ts';
import { QUIET_WEBHOOKS, useServer, type TestServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

/** A metric family as parse-prometheus-text-format returns it (the package ships no types). */
interface MetricFamily {
  name: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Array<{ labels?: Record<string, string>; value?: string }>;
}
const parsePrometheusText = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => MetricFamily[];

interface Sample {
  name: string;
  labels: Partial<Record<string, string | number>>;
  value: number;
}

const RATE_LIMIT_MAX = 5;

/** GET /metrics, parsed: a line out of the format throws. */
async function scrape(server: TestServer): Promise<Map<string, MetricFamily>> {
  const response = await fetch(server.service.metrics!.url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return new Map(parsePrometheusText(await response.text()).map((family) => [family.name, family]));
}

/**
 * The samples the scrape is written from, from the registry the listener serves. Read there since
 * parse-prometheus-text-format folds all the series of a labelled histogram into one.
 */
async function samples(server: TestServer): Promise<Sample[]> {
  const metrics = await server.service.metrics!.registry.getMetricsAsJSON();
  return metrics.flatMap((metric) =>
    // A histogram's samples are named `_bucket`, `_sum` and `_count`.
    metric.values.map((sample: { metricName?: string; labels?: Sample['labels']; value: number }) => ({
      name: sample.metricName ?? metric.name,
      labels: sample.labels ?? {},
      value: sample.value,
    })),
  );
}

/** The sum of the samples of `name` whose labels include `labels` (a histogram's `_count` counts requests). */
function total(from: Sample[], name: string, labels: Record<string, string> = {}): number {
  return from
    .filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => String(sample.labels[key]) === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

describeOnEachDatabase('metrics', (target) => {
  const server = useServer(target, {
    METRICS_PORT: '0',
    RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
    WEBHOOK_POLL_INTERVAL_MS: QUIET_WEBHOOKS,
  });

  it('serves a scrape in the Prometheus text format on its own loopback listener, not on the service port', async () => {
    expect(server().service.metrics!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await server().call('GET', '/metrics')).status).toBe(404);
    // Anything else on the metrics listener: the service's error body.
    const elsewhere = await fetch(server().service.metrics!.url.replace(/\/metrics$/, '/other'));
    expect([elsewhere.status, await elsewhere.json()]).toEqual([
      404,
      { code: 'NOT_FOUND', message: 'No route for GET /other: only GET /metrics' },
    ]);
    const user = await registerUser(server());
    await fetch(`${server().baseUrl}/trpc/users.me?batch=1&input=${encodeURIComponent('{}')}`, {
      headers: { authorization: `Bearer ${user.token}` },
    });

    const families = await scrape(server());
    const types = Object.fromEntries([...families.values()].map((family) => [family.name, family.type]));
    expect(types).toMatchObject({
      http_request_duration_seconds: 'HISTOGRAM',
      http_requests_in_flight: 'GAUGE',
      http_requests_rate_limited_total: 'COUNTER',
      trpc_procedure_calls_total: 'COUNTER',
      db_query_duration_seconds: 'HISTOGRAM',
      db_query_errors_total: 'COUNTER',
      process_cpu_seconds_total: 'COUNTER',
      process_resident_memory_bytes: 'GAUGE',
      nodejs_eventloop_lag_p99_seconds: 'GAUGE',
      nodejs_gc_duration_seconds: 'HISTOGRAM',
    });
    const pool = {
      db_pool_connections: 'GAUGE',
      db_pool_max_connections: 'GAUGE',
      db_pool_waiting_acquisitions: 'GAUGE',
      db_pool_queued_acquisitions_total: 'COUNTER',
    };
    // mysql2's pool is observable; the embedded database has one connection and no pool.
    if (target.name === 'mariadb') expect(types).toMatchObject(pool);
    else for (const name of Object.keys(pool)) expect(types).not.toHaveProperty(name);

    // The text says what the registry holds.
    const calls = families.get('trpc_procedure_calls_total')!.metrics;
    expect(calls).toContainEqual({ labels: { procedure: 'users.me', outcome: 'ok' }, value: '1' });
  });

  it('counts requests by route template and status, unknown paths under one label', async () => {
    const user = await registerUser(server());
    const before = await samples(server());
    const memberIds = [uniqueId('member'), uniqueId('member')];
    const madeUpPaths = [`/${uniqueId('nowhere')}`, `/users/${uniqueId('deeper')}/x`];
    for (const id of memberIds) {
      await server().call('GET', `/organization-user/${id}`, { token: user.token });
    }
    for (const path of madeUpPaths) expect((await server().call('GET', path)).status).toBe(404);
    expect((await server().call('GET', '/api/users', { token: user.token })).status).toBe(200);
    const after = await samples(server());

    const moved = (labels: Record<string, string>) =>
      total(after, 'http_request_duration_seconds_count', labels) -
      total(before, 'http_request_duration_seconds_count', labels);
    // Without organization_id: 400 from the member route, counted under its template.
    expect(moved({ method: 'GET', route: '/organization-user/:user_id', status_code: '400' })).toBe(2);
    expect(moved({ method: 'GET', route: 'unmatched', status_code: '404' })).toBe(2);
    // /api/users is /users with another name: one route.
    expect(moved({ method: 'GET', route: '/users', status_code: '200' })).toBe(1);
    const routes = after.map((sample) => String(sample.labels.route ?? ''));
    for (const raw of [...memberIds, ...madeUpPaths]) {
      expect(routes.some((route) => route.includes(raw.replace(/^\//, '')))).toBe(false);
    }
    // The scrape goes to the metrics listener: nothing is in flight on the service.
    expect(total(after, 'http_requests_in_flight')).toBe(0);
  });

  it('counts the rate limit refusals (429)', async () => {
    const caller = await tokenFor(uniqueId('flood'));
    const before = await samples(server());
    let refused = 0;
    for (let index = 0; index < RATE_LIMIT_MAX + 3; index++) {
      if ((await server().call('GET', '/organizations', { token: caller })).status === 429) refused++;
    }
    expect(refused).toBe(3);
    const after = await samples(server());
    const moved = (name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);
    expect(moved('http_requests_rate_limited_total')).toBe(3);
    expect(moved('http_request_duration_seconds_count', { route: '/organizations', status_code: '429' })).toBe(3);
  });

  it('counts each procedure of a tRPC batch by outcome, unknown procedures under one label', async () => {
    const user = await registerUser(server());
    const before = await samples(server());
    const madeUp = `${uniqueId('nothing')}.here`;
    const response = await fetch(
      `${server().baseUrl}/trpc/users.me,members.list,${madeUp}?batch=1&input=${encodeURIComponent('{}')}`,
      { headers: { authorization: `Bearer ${user.token}` } },
    );
    const results = (await response.json()) as Array<{ error?: { data: { code: string } } }>;
    expect(results.map((result) => result.error?.data.code ?? 'ok')).toEqual(['ok', 'BAD_REQUEST', 'NOT_FOUND']);
    const after = await samples(server());

    const moved = (labels: Record<string, string>) =>
      total(after, 'trpc_procedure_calls_total', labels) - total(before, 'trpc_procedure_calls_total', labels);
    expect(moved({ procedure: 'users.me', outcome: 'ok' })).toBe(1);
    expect(moved({ procedure: 'members.list', outcome: 'BAD_REQUEST' })).toBe(1);
    expect(moved({ procedure: 'unknown', outcome: 'NOT_FOUND' })).toBe(1);
    expect(after.map((sample) => sample.labels.procedure)).not.toContain(madeUp);
  });

  it('times every database statement, through MikroORM and through Kysely, and counts failures', async () => {
    const { orm } = server().service;
    const before = await samples(server());
    await orm.em.getConnection().execute('select 1 as one');
    await orm.em.fork().getKysely<{ users: { id: string } }>().selectFrom('users').select('id').limit(1).execute();
    await expect(orm.em.getConnection().execute('select * from no_such_table')).rejects.toThrow();
    const after = await samples(server());

    const moved = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(moved('db_query_duration_seconds_count', { operation: 'select' })).toBe(3);
    const missingTable = target.name === 'mariadb' ? 'ER_NO_SUCH_TABLE' : 'SQLITE_ERROR';
    expect(moved('db_query_errors_total', { operation: 'select', code: missingTable })).toBe(1);

    // And a request's statements are counted too.
    await registerUser(server());
    const afterRequest = await samples(server());
    expect(total(afterRequest, 'db_query_duration_seconds_count', { operation: 'insert' })).toBeGreaterThan(
      total(after, 'db_query_duration_seconds_count', { operation: 'insert' }),
    );
  });

  // Only mysql2 has a pool to show (the first test checks that the embedded database shows none).
  if (target.name === 'mariadb')
    it('shows the pool: connections, and acquisitions that had to wait', async () => {
      const { orm } = server().service;
      const before = await samples(server());
      const max = total(before, 'db_pool_max_connections');
      expect(max).toBeGreaterThan(0);
      // More statements at once than the pool has connections, each holding its connection a second.
      const holding = Array.from({ length: max + 3 }, () => orm.em.fork().getConnection().execute('select sleep(1)'));
      await vi.waitFor(async () => {
        const during = await samples(server());
        expect(total(during, 'db_pool_connections', { state: 'in_use' })).toBe(max);
        expect(total(during, 'db_pool_waiting_acquisitions')).toBe(3);
      });
      await Promise.all(holding);
      const after = await samples(server());

      expect(
        total(after, 'db_pool_queued_acquisitions_total') - total(before, 'db_pool_queued_acquisitions_total'),
      ).toBe(3);
      expect(total(after, 'db_pool_waiting_acquisitions')).toBe(0);
      expect(total(after, 'db_pool_connections', { state: 'idle' })).toBeGreaterThan(0);
    });

  // Only MariaDB lets another session hold an organization's row.
  if (target.name === 'mariadb')
    it('counts the conflicts a change retried, and answers it once the organization is free', async () => {
      const owner = await registerUser(server());
      const newcomer = await registerUser(server());
      const organizationId = await createOrganization(server(), owner);
      const before = await samples(server());
      const blocker = await mysql.createConnection({ uri: server().databaseUrl.replace(/^mariadb:/, 'mysql:') });
      try {
        await blocker.query('begin');
        await blocker.query('select id from organizations where id = ? for update', [organizationId]);
        const change = server().call('POST', '/organization-user', {
          token: owner.token,
          organizationId,
          body: { email: newcomer.email, role: 'member' },
        });
        await vi.waitFor(async () =>
          expect(
            total(await samples(server()), 'db_transaction_conflicts_total', { outcome: 'retried' }),
          ).toBeGreaterThan(total(before, 'db_transaction_conflicts_total', { outcome: 'retried' })),
        );
        await blocker.query('rollback');
        expect((await change).status).toBe(201);
      } finally {
        await blocker.end();
      }
    });
});

describe('metrics off by default', () => {
  const embedded = databaseTarget('embedded');
  const server = useServer(embedded);

  it('has no metrics listener and no /metrics route without METRICS_PORT', async () => {
    expect(server().service.metrics).toBeUndefined();
    expect((await server().call('GET', '/metrics')).status).toBe(404);
  });
});
