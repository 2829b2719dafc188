/**
 * Starts the real service on a free port against a fresh database and calls it over HTTP, as its
 * users do. Nothing is mocked: the database, the token checks and the HTTP stack are the real ones.
 */
import { afterAll, beforeAll } from 'vitest';
import { startService, type Service } from '../../server/app.ts';
import { readSettings } from '../../server/platform/config.ts';
import type { DatabaseTarget, TestDatabase } from './databases.ts';
import { TEST_SECRET } from './tokens.ts';

/**
 * WEBHOOK_POLL_INTERVAL_MS for a test that counts the statements a request sends: the webhook
 * machinery looks at the database first a minute after the start, so none of its statements
 * fall between two counts.
 */
export const QUIET_WEBHOOKS = '60000';

export interface RequestOptions {
  token?: string;
  organizationId?: string;
  body?: unknown;
  /** A raw body sent as is (for malformed JSON and such). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  baseUrl: string;
  /** The database the server runs on, for tests that look behind the API or hold its locks. */
  databaseUrl: string;
  service: Service;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** Like request, and parses the JSON body. */
  call<T = any>(
    method: string,
    path: string,
    options?: RequestOptions,
  ): Promise<{ status: number; body: T; headers: Headers }>;
}

/** Requests to the service at `baseUrl`, in process or not. */
export function callerAt(baseUrl: string): Pick<TestServer, 'baseUrl' | 'request' | 'call'> {
  const request = (method: string, path: string, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.organizationId) headers.organization_id = options.organizationId;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const send = () => fetch(`${baseUrl}${path}`, { method, headers, body });
    if (method !== 'GET') return send();
    // A kept-alive socket the service closes (idle past its keep-alive time) as a GET goes out on
    // it is reset; a client may send an idempotent request again (RFC 9112, 9.3.1), as browsers do.
    // In process, the client's own timer that would retire the socket first can be held up by the
    // embedded database's synchronous work, so the race shows here more than it would elsewhere.
    return send().catch((error: unknown) => {
      if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
      return send();
    });
  };
  const call = async (method: string, path: string, options?: RequestOptions) => {
    const response = await request(method, path, options);
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
  return { baseUrl, request, call };
}

export async function startTestServer(databaseUrl: string, env: Record<string, string> = {}): Promise<TestServer> {
  const settings = readSettings({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: TEST_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Tests fire many requests per caller; tests/protection.test.ts covers the limit itself.
    RATE_LIMIT_MAX: '0',
    ...env,
  });
  const service = await startService(settings);
  const address = service.app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no TCP address');
  const baseUrl = `http://127.0.0.1:${address.port}`;

  return { ...callerAt(baseUrl), databaseUrl, service };
}

/**
 * For a describe block: a fresh database of the target and a server on it, both gone afterwards.
 * Returns a getter, since the server exists only once beforeAll has run.
 */
export function useServer(target: DatabaseTarget, env: Record<string, string> = {}): () => TestServer {
  let database: TestDatabase | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    database = await target.create();
    server = await startTestServer(database.url, env);
  });
  afterAll(async () => {
    await server?.service.close();
    await database?.drop();
  });
  return () => {
    if (!server) throw new Error('server not started');
    return server;
  };
}
