/**
 * Traces (docs/operations.md, "Traces"): the bundle, as `npm start` runs it, with
 * OTEL_EXPORTER_OTLP_ENDPOINT set to an OTLP/HTTP receiver this test runs on loopback. Each service
 * is stopped with SIGTERM before its spans are read: the stop sends every span still waiting.
 *
 * The spans arrive as OTLP/JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and are decoded here; the
 * default, protobuf, is shown to arrive as such.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };
import { databaseTargets, type TestDatabase } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';
import { failWithout } from './support/needs.ts';
import { projectRoot, SERVICE_ENTRY, spawnService, type ServiceProcess } from './support/process.ts';
import { rawRequest } from './support/raw-http.ts';
import { restCall } from './support/rest-call.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';
import {
  ownerOfNewOrganization,
  startReceiver,
  webhooksPath,
  type ReceivedRequest,
  type Receiver,
} from './support/webhooks.ts';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
  status?: { code?: number };
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  /** OTLP's status code: 0 unset, 2 error. */
  status: number;
  service: string;
  /** The attributes of the resource that sent it (the service). */
  resource: Record<string, string | number | boolean | undefined>;
}

const valueOf = (value: OtlpValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));

/** Every span of these OTLP/JSON requests, decoded. */
function spansIn(requests: ReceivedRequest[]): Span[] {
  return requests.flatMap((request) => {
    const body = JSON.parse(request.body) as {
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string; value: OtlpValue }> };
        scopeSpans: Array<{ spans: OtlpSpan[] }>;
      }>;
    };
    return body.resourceSpans.flatMap(({ resource, scopeSpans }) => {
      const described = Object.fromEntries(resource.attributes.map(({ key, value }) => [key, valueOf(value)]));
      const service = String(described['service.name']);
      return scopeSpans.flatMap(({ spans }) =>
        spans.map((span) => ({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: Object.fromEntries(span.attributes.map(({ key, value }) => [key, valueOf(value)])),
          status: span.status?.code ?? 0,
          service,
          resource: described,
        })),
      );
    });
  });
}

/** Every span the receiver got as OTLP/JSON, decoded. */
const spansOf = (receiver: Receiver): Span[] => spansIn(receiver.at('/v1/traces'));

/** SpanKind in OTLP: 2 server, 3 client. */
const SERVER = 2;
const CLIENT = 3;
/** A span's status in OTLP. */
const STATUS_ERROR = 2;

const BASE_ENV = { JWT_SECRET: TEST_SECRET, RATE_LIMIT_MAX: '0', LOG_LEVEL: 'info' };

async function stop(service: ServiceProcess): Promise<void> {
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
}

/** The `request` log lines of a service. */
const requestLines = (service: ServiceProcess) => service.entries().filter((entry) => entry.msg === 'request');

for (const target of databaseTargets()) {
  describe(`a traced service on ${target.name}`, () => {
    failWithout(target.missing);
    let collector: Receiver;
    let hooks: Receiver;
    let database: TestDatabase;
    let service: ServiceProcess;
    let spans: Span[] = [];
    /** The cursor of a page sorted by e-mail, which holds an address. */
    let sortedCursor = '';
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const refusedTraceId = randomBytes(16).toString('hex');
    const secrets: string[] = [];
    let organizationId = '';
    let newcomerEmail = '';

    beforeAll(async () => {
      collector = await startReceiver();
      hooks = await startReceiver();
      database = await target.create();
      service = await spawnService({
        ...BASE_ENV,
        DATABASE_URL: database.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url('/'),
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: `orgs-traced-${target.name}`,
        // Percent-encoded as OpenTelemetry asks; the service's own version is not to be changed.
        OTEL_RESOURCE_ATTRIBUTES:
          'deployment.environment.name=test, service.namespace=orgs%2Ctest,service.version=9.9.9',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '50',
      });
      try {
        const owner = await ownerOfNewOrganization(service.baseUrl);
        organizationId = owner.organizationId;
        secrets.push(owner.token);
        const hook = await restCall(service.baseUrl, 'POST', webhooksPath(organizationId), owner.token, {
          url: hooks.url('/hook'),
          event_types: ['member.added'],
        });
        expect(hook.status).toBe(201);
        secrets.push(hook.body.secret);

        const newcomerId = uniqueId('traced');
        newcomerEmail = `${newcomerId}@example.com`;
        const newcomerToken = await tokenFor(newcomerId, { role: 'owner' });
        secrets.push(newcomerToken);
        const user = await restCall(service.baseUrl, 'POST', '/users', newcomerToken, {
          first_name: 'Traced',
          last_name: 'Newcomer',
          email: newcomerEmail,
        });
        expect(user.status).toBe(201);
        // Another person's account with the same address: the database's unique index refuses it.
        const twinToken = await tokenFor(uniqueId('twin'), { role: 'owner' });
        secrets.push(twinToken);
        const twin = await fetch(`${service.baseUrl}/users`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${twinToken}`,
            'content-type': 'application/json',
            traceparent: `00-${refusedTraceId}-${callerSpanId}-01`,
          },
          body: JSON.stringify({ first_name: 'Twin', last_name: 'Newcomer', email: newcomerEmail }),
        });
        expect(twin.status).toBe(409);

        // The one request whose trace is followed: it continues the caller's trace.
        const added = await fetch(`${service.baseUrl}/organization-user`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${owner.token}`,
            'content-type': 'application/json',
            organization_id: organizationId,
            traceparent: `00-${traceId}-${callerSpanId}-01`,
          },
          body: JSON.stringify({ email: newcomerEmail, role: 'member' }),
        });
        expect(added.status).toBe(201);
        // The member.added event reaches the endpoint: one attempt.
        for (let waited = 0; hooks.at('/hook').length === 0 && waited < 20_000; waited += 50) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(hooks.at('/hook')).toHaveLength(1);

        // Searches by the newcomer's address, over REST, tRPC and SCIM: neither a log line nor a
        // span may keep it. Written unescaped where a URL may hold it so, as a person would type it.
        const key = await restCall(service.baseUrl, 'POST', `/organizations/${organizationId}/api-keys`, owner.token, {
          name: 'Directory sync',
          role: 'admin',
        });
        expect(key.status).toBe(201);
        secrets.push(key.body.secret);
        const input = encodeURIComponent(JSON.stringify({ search: newcomerEmail, limit: 5 }));
        for (const [path, token] of [
          [`/organization-user?search=${newcomerEmail}&limit=5`, owner.token],
          [`/trpc/members.page?input=${input}`, owner.token],
          [`/scim/v2/Users?filter=userName eq "${newcomerEmail}"&count=5`, key.body.secret],
        ] as const) {
          const search = await restCall(service.baseUrl, 'GET', path, token, undefined, organizationId);
          expect(search.status, path).toBe(200);
        }
        // A page sorted by e-mail, followed by its cursor, which holds the last member's address.
        const sorted = await fetch(`${service.baseUrl}/organization-user?sort=email&limit=1`, {
          headers: { authorization: `Bearer ${owner.token}`, organization_id: organizationId },
        });
        expect(sorted.status).toBe(200);
        const next = /<([^>]+)>; rel="next"/.exec(sorted.headers.get('link') ?? '')?.[1];
        expect(next).toMatch(/^\/organization-user\?sort=email&limit=1&cursor=[\w-]+$/);
        sortedCursor = next!.split('cursor=')[1]!;
        expect((await restCall(service.baseUrl, 'GET', next!, owner.token, undefined, organizationId)).status).toBe(
          200,
        );
      } finally {
        await stop(service);
      }
      spans = spansOf(collector);
    }, 60_000);

    afterAll(async () => {
      service?.kill();
      await collector?.close();
      await hooks?.close();
      await database?.drop();
    });

    it('continues an incoming traceparent: request → procedure → statements, with the route, status and organization', () => {
      const inTrace = spans.filter((span) => span.traceId === traceId);
      const request = inTrace.find((span) => span.kind === SERVER)!;
      expect(request).toMatchObject({
        parentSpanId: callerSpanId,
        name: 'POST /organization-user',
        service: `orgs-traced-${target.name}`,
      });
      expect(request.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/organization-user',
        'http.response.status_code': 201,
        'organization.id': organizationId,
      });

      const procedure = inTrace.find((span) => span.parentSpanId === request.spanId)!;
      expect(procedure.name).toBe('procedure members.add');
      expect(procedure.attributes).toMatchObject({ 'rpc.method': 'members.add', 'organization.id': organizationId });

      // Every other span of the trace is a statement under the procedure.
      const statements = inTrace.filter((span) => span !== request && span !== procedure);
      expect(statements.length).toBeGreaterThan(0);
      for (const statement of statements) {
        expect(statement.parentSpanId).toBe(procedure.spanId);
        expect(statement.kind).toBe(CLIENT);
        expect(statement.attributes['db.system.name']).toBe(target.name === 'embedded' ? 'sqlite' : 'mariadb');
        expect(statement.name).toBe(statement.attributes['db.query.summary']);
        expect(statement.name).toMatch(/^[a-z]+( [a-z_]+)?(; [a-z]+( [a-z_]+)?)*$/);
      }
      // The membership is written, and its table named.
      expect(statements.map((statement) => statement.name).join('; ')).toMatch(/insert organization_users/);
    });

    it('marks the statement the database refused as failed, and not the request answered 409', () => {
      const inTrace = spans.filter((span) => span.traceId === refusedTraceId);
      const request = inTrace.find((span) => span.kind === SERVER)!;
      expect(request.attributes['http.response.status_code']).toBe(409);
      expect(request.status).toBe(0);
      const refused = inTrace.filter((span) => span.kind === CLIENT && span.status === STATUS_ERROR);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.name).toMatch(/insert users/);
      expect(refused[0]!.attributes['error.type']).toEqual(expect.any(String));
      // The statements before it went through.
      expect(inTrace.filter((span) => span.kind === CLIENT && span.status === 0).length).toBeGreaterThan(0);
    });

    it('describes the service by OTEL_SERVICE_NAME, its version and OTEL_RESOURCE_ATTRIBUTES', () => {
      expect(spans.length).toBeGreaterThan(0);
      for (const span of spans) {
        expect(span.resource).toMatchObject({
          'service.name': `orgs-traced-${target.name}`,
          'service.version': packageJson.version,
          'deployment.environment.name': 'test',
          'service.namespace': 'orgs,test',
        });
      }
    });

    it('puts the trace id in the log line of the request', () => {
      const line = requestLines(service).find((entry) => entry.url === '/organization-user');
      expect(line).toMatchObject({ status: 201, traceId });
      // Every request of a traced service has one, each its own unless continued.
      const ids = requestLines(service).map((entry) => entry.traceId as string);
      expect(ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('logs no value a caller searched by, and the other parameters of the query as they came (docs/operations.md, "Logs")', () => {
      const logs = `${service.lines.join('\n')}\n${service.stderr()}`;
      for (const searched of [newcomerEmail, encodeURIComponent(newcomerEmail), sortedCursor]) {
        expect(logs).not.toContain(searched);
      }
      const urls = requestLines(service).map((entry) => entry.url as string);
      expect(urls).toEqual(
        expect.arrayContaining([
          '/organization-user?search=[Redacted]&limit=5',
          '/trpc/members.page?input=[Redacted]',
          '/scim/v2/Users?filter=[Redacted]&count=5',
          '/organization-user?sort=email&limit=1&cursor=[Redacted]',
        ]),
      );
    });

    it('makes a span per webhook attempt, whose trace the receiver is told', () => {
      const [delivery] = hooks.at('/hook');
      const [, attemptTrace, attemptSpan] = delivery!.headers.traceparent!.split('-');
      const attempt = spans.find((span) => span.spanId === attemptSpan)!;
      expect(attempt).toMatchObject({ traceId: attemptTrace, name: 'webhook attempt', kind: CLIENT, parentSpanId: '' });
      expect(attempt.attributes).toMatchObject({
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'http.response.status_code': 200,
      });
    });

    it('carries no token, key, secret or e-mail address in any span', () => {
      expect(spans.length).toBeGreaterThan(0);
      const shown = JSON.stringify(spans);
      for (const secret of [...secrets, newcomerEmail]) expect(shown).not.toContain(secret);
      expect(shown).not.toMatch(/@example\.com|Bearer|eyJ|whsec_|oak_|sak_/);
    });
  });
}

describe('sampling and protocol', () => {
  let collector: Receiver;
  let database: TestDatabase;

  beforeAll(async () => {
    collector = await startReceiver();
  });
  afterAll(async () => {
    await collector?.close();
    await database?.drop();
  });

  /** A service on the embedded database with these settings, asked `GET /healthz` `count` times, then stopped. */
  async function tracedRequests(env: Record<string, string>, count: number): Promise<ServiceProcess> {
    database = await databaseTargets()[0]!.create();
    const service = await spawnService({
      ...BASE_ENV,
      DATABASE_URL: database.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url('/'),
      ...env,
    });
    try {
      for (let sent = 0; sent < count; sent++) expect((await fetch(`${service.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await stop(service);
    }
    return service;
  }

  it('keeps no trace with OTEL_TRACES_SAMPLER=always_off, and still logs the trace id of each request', async () => {
    const service = await tracedRequests(
      { OTEL_TRACES_SAMPLER: 'always_off', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'orgs-off' },
      20,
    );
    expect(spansOf(collector).filter((span) => span.service === 'orgs-off')).toEqual([]);
    const ids = requestLines(service).map((entry) => entry.traceId as string);
    expect(ids).toHaveLength(20);
    expect(ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
  }, 60_000);

  it('keeps about the OTEL_TRACES_SAMPLER_ARG share of traces with traceidratio, the logged ones', async () => {
    const service = await tracedRequests(
      {
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'orgs-tenth',
      },
      300,
    );
    const kept = spansOf(collector).filter((span) => span.service === 'orgs-tenth');
    // 300 requests at 0.1: 30 expected; fewer than 10 or more than 60 has a chance under one in 10^6.
    expect(kept.length).toBeGreaterThanOrEqual(10);
    expect(kept.length).toBeLessThanOrEqual(60);
    const logged = new Set(requestLines(service).map((entry) => entry.traceId as string));
    for (const span of kept) {
      expect(span.name).toBe('GET /healthz');
      expect(logged.has(span.traceId)).toBe(true);
    }
  }, 60_000);

  it('sends to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is given, before OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    await tracedRequests(
      {
        // Nothing listens on the discard port: the traces' own endpoint must win.
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url('/collector/traces'),
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'orgs-own-endpoint',
      },
      2,
    );
    const kept = spansIn(collector.at('/collector/traces')).filter((span) => span.service === 'orgs-own-endpoint');
    expect(kept.map((span) => span.name)).toEqual(['GET /healthz', 'GET /healthz']);
  }, 60_000);

  it('traces nothing with OTEL_SDK_DISABLED=true, whatever the endpoint', async () => {
    const service = await tracedRequests(
      { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'orgs-disabled' },
      3,
    );
    expect(collector.requests.filter((request) => request.body.includes('orgs-disabled'))).toEqual([]);
    // No SDK, so no trace id to log.
    const lines = requestLines(service);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.traceId).toBeUndefined();
  }, 60_000);

  it('sends protobuf by default (OTEL_EXPORTER_OTLP_PROTOCOL unset), named by OTEL_SERVICE_NAME', async () => {
    await tracedRequests({ OTEL_SERVICE_NAME: 'orgs-protobuf' }, 1);
    const sent = collector.at('/v1/traces').filter((request) => request.body.includes('orgs-protobuf'));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers['content-type']).toBe('application/x-protobuf');
    // Protobuf keeps strings as they are: the span's name is in the bytes.
    expect(sent[0]!.body).toContain('GET /healthz');
  }, 60_000);
});

describe('the log line of a refused request', () => {
  let collector: Receiver;
  let database: TestDatabase;
  let service: ServiceProcess;

  beforeAll(async () => {
    collector = await startReceiver();
    database = await databaseTargets()[0]!.create();
    service = await spawnService({
      ...BASE_ENV,
      DATABASE_URL: database.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url('/'),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
  });
  afterAll(async () => {
    service?.kill();
    await collector?.close();
    await database?.drop();
  });

  it('carries the trace its traceparent names, however it is refused: while routing, by Node, or by a hook', async () => {
    const auth = `Authorization: Bearer ${await tokenFor(uniqueId('refused'), { role: 'owner' })}`;
    const json = 'Content-Type: application/json';
    const bigBody = JSON.stringify({ first_name: 'Big', padding: 'x'.repeat(70 * 1024) });
    const refusals: Array<{ name: string; status: number; head: string[]; body?: string }> = [
      // Answered while routing, before any hook runs (Fastify's frameworkErrors).
      { name: 'malformed-escape', status: 400, head: ['GET /users/%E0%A4%A HTTP/1.1'] },
      { name: 'long-parameter', status: 414, head: [`GET /organization-user/${'a'.repeat(5001)} HTTP/1.1`] },
      // Answered by listeners of Node's server, which Fastify never sees.
      { name: 'expectation', status: 417, head: ['GET /users HTTP/1.1', auth, 'Expect: teapot'] },
      { name: 'connect', status: 405, head: ['CONNECT example.com:443 HTTP/1.1'] },
      // Answered by the hooks, the body's parser or the router's 404.
      { name: 'unknown-path', status: 404, head: ['GET /nowhere HTTP/1.1'] },
      { name: 'method-not-served', status: 405, head: ['DELETE /healthz HTTP/1.1'] },
      { name: 'two-hosts', status: 400, head: ['GET /users HTTP/1.1', auth, 'Host: other.example'] },
      {
        name: 'body-too-large',
        status: 413,
        head: ['PUT /users HTTP/1.1', auth, json, `Content-Length: ${bigBody.length}`],
        body: bigBody,
      },
      {
        name: 'malformed-json',
        status: 400,
        head: ['PUT /users HTTP/1.1', auth, json, 'Content-Length: 14'],
        body: '{"first_name":',
      },
      {
        name: 'not-json',
        status: 415,
        head: ['PUT /users HTTP/1.1', auth, 'Content-Type: text/plain', 'Content-Length: 1'],
        body: 'x',
      },
    ];
    const traceIds = new Map<string, string>();
    for (const { name, status, head, body } of refusals) {
      const traceId = randomBytes(16).toString('hex');
      traceIds.set(name, traceId);
      const [requestLine, ...headers] = head;
      const sent = [
        requestLine,
        'Host: 127.0.0.1',
        ...headers,
        `traceparent: 00-${traceId}-${randomBytes(8).toString('hex')}-01`,
        `x-request-id: refused-${name}`,
      ];
      expect((await rawRequest(service.baseUrl, sent.join('\r\n'), { body })).status, name).toBe(status);
    }
    await stop(service);

    const lines = requestLines(service);
    const spans = spansOf(collector);
    for (const { name, status } of refusals) {
      const line = lines.find((entry) => entry.reqId === `refused-${name}`);
      expect(line, name).toMatchObject({ status, traceId: traceIds.get(name) });
      // The trace holds the request's span, as every request's does.
      const span = spans.find((each) => each.traceId === traceIds.get(name) && each.kind === SERVER);
      expect(span?.attributes['http.response.status_code'], name).toBe(status);
    }
  }, 60_000);
});

describe("batches (OTEL_BSP_*) and the SDK's warnings", () => {
  let database: TestDatabase | undefined;
  let collector: Receiver | undefined;
  let service: ServiceProcess | undefined;

  afterEach(async () => {
    service?.kill();
    await collector?.close();
    await database?.drop();
  });

  /** A service on the embedded database exporting to `to` as OTLP/JSON, with these batch settings. */
  async function tracedService(to: Receiver, env: Record<string, string>): Promise<ServiceProcess> {
    database = await databaseTargets()[0]!.create();
    return spawnService({
      ...BASE_ENV,
      DATABASE_URL: database.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: to.url('/'),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      ...env,
    });
  }

  /**
   * A service that sends each span as a batch of its own, within 50 ms, with `env` besides, to a
   * collector that answers nothing until the function returned is called, then everything at once.
   */
  async function batchesOfOneHeld(env: Record<string, string>): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<number>((resolve) => (release = () => resolve(200)));
    collector = await startReceiver(() => released);
    service = await tracedService(collector, {
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
      ...env,
    });
    return release;
  }

  /** `GET /healthz` `count` times, `pauseMs` apart. */
  async function healthChecks(count: number, pauseMs = 0): Promise<void> {
    for (let sent = 0; sent < count; sent++) {
      expect((await fetch(`${service!.baseUrl}/healthz`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  const tracingWarnings = () =>
    service!.entries().filter((entry) => entry.level === 40 && String(entry.msg).startsWith('tracing: '));

  /** Waits for `done` to hold, checking every 20 ms for at most `ms`; whether it held. */
  async function eventually(done: () => boolean, ms: number): Promise<boolean> {
    for (const deadline = Date.now() + ms; !done() && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return done();
  }

  it('sends ended spans within OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_EXPORT_BATCH_SIZE at most a batch', async () => {
    collector = await startReceiver();
    service = await tracedService(collector, { OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2' });
    await healthChecks(5);
    // All five while the service runs: the fifth waits for the delay alone, 5 s by default.
    expect(await eventually(() => spansOf(collector!).length === 5, 3000)).toBe(true);
    const batches = collector.at('/v1/traces').map((request) => spansIn([request]));
    expect(batches.length).toBeGreaterThanOrEqual(3);
    for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(2);
    await stop(service);
  }, 60_000);

  it('keeps at most OTEL_BSP_MAX_QUEUE_SIZE spans waiting while a batch is under way, and drops the rest', async () => {
    const release = await batchesOfOneHeld({ OTEL_BSP_MAX_QUEUE_SIZE: '3' });
    // The first span goes out at once and is held; of the nine after it, three wait and six are dropped.
    await healthChecks(10);
    expect(await eventually(() => collector!.at('/v1/traces').length === 1, 5000)).toBe(true);
    release();
    expect(await eventually(() => spansOf(collector!).length === 4, 5000)).toBe(true);
    await stop(service!);
    expect(spansOf(collector!)).toHaveLength(4);
  }, 60_000);

  it('gives a batch up after OTEL_BSP_EXPORT_TIMEOUT and sends the next', async () => {
    const release = await batchesOfOneHeld({ OTEL_BSP_EXPORT_TIMEOUT: '300' });
    await healthChecks(2);
    // The second batch goes while the first is still unanswered: by default it would wait 30 s.
    expect(await eventually(() => collector!.at('/v1/traces').length === 2, 5000)).toBe(true);
    expect(collector!.at('/v1/traces').map((request) => request.answered)).toEqual([undefined, undefined]);
    release();
    await stop(service!);
  }, 60_000);

  it('logs a batch the collector refused, one warning in ten seconds at most', async () => {
    collector = await startReceiver(() => 400);
    service = await tracedService(collector, { OTEL_BSP_SCHEDULE_DELAY: '50' });
    await healthChecks(5, 100);
    // Several batches refused within a second or so: one line says so.
    expect(await eventually(() => collector!.at('/v1/traces').length >= 3, 5000)).toBe(true);
    expect(tracingWarnings()).toHaveLength(1);
    expect(JSON.stringify(tracingWarnings()[0])).toMatch(/400|Bad Request/);
    await stop(service);
  }, 60_000);

  it('says OTEL_RESOURCE_ATTRIBUTES does not parse, and traces without it', async () => {
    collector = await startReceiver();
    service = await tracedService(collector, {
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name',
      OTEL_SERVICE_NAME: 'orgs-plain',
    });
    await healthChecks(1);
    await stop(service);
    expect(tracingWarnings().map((entry) => entry.msg)).toEqual([
      expect.stringMatching(/^tracing: OTEL_RESOURCE_ATTRIBUTES does not parse/),
    ]);
    const [span] = spansOf(collector);
    expect(span!.resource).toMatchObject({ 'service.name': 'orgs-plain', 'service.version': packageJson.version });
    expect(Object.keys(span!.resource)).not.toContain('deployment.environment.name');
  }, 60_000);
});

describe('the bundle without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  /** The SDK's packages, as esbuild names their modules in the chunks. */
  const SDK = /\/\/ node_modules\/@opentelemetry\/(sdk-trace|context-async-hooks|exporter-trace-otlp-\w+|resources)\//;

  it('never loads the OpenTelemetry SDK: only a dynamic import reaches it', () => {
    const folder = join(projectRoot, dirname(SERVICE_ENTRY));
    const source = (file: string) => readFileSync(join(folder, file), 'utf8');
    // What loads at every start: the entry, the start it imports at once, and their static imports.
    const start = readdirSync(folder).find((file) => /^start-\w+\.js$/.test(file))!;
    const loaded = new Set<string>();
    const pending = ['main.js', start];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (loaded.has(file)) continue;
      loaded.add(file);
      for (const [, imported] of source(file).matchAll(/(?:from|import) "\.\/([\w-]+\.js)"/g)) pending.push(imported!);
    }
    expect([...loaded].filter((file) => SDK.test(source(file)))).toEqual([]);
    // The SDK is in the bundle, in a chunk that start's dynamic import names.
    const sdkChunks = readdirSync(folder).filter((file) => file.endsWith('.js') && SDK.test(source(file)));
    expect(sdkChunks.length).toBeGreaterThan(0);
    expect(source(start)).toMatch(/import\("\.\/sdk-\w+\.js"\)/);
  });
});
