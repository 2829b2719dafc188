/**
 * For the webhook tests (behaviour §13): the REST paths of an organization's webhooks, a way to
 * create one, an organization made through a running instance, the warnings an instance logged
 * about its delivery passes, and a receiver — an HTTP server on 127.0.0.1 that records every
 * request it gets, headers and raw body, and answers each as the test says.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { DeliveryView, WebhookView } from '../../shared/webhooks.ts';
import { uniqueId, type TestUser } from './fixtures.ts';
import type { ServiceProcess } from './process.ts';
import { restCall } from './rest-call.ts';
import type { TestServer } from './server.ts';
import { tokenFor } from './tokens.ts';

export const webhooksPath = (organizationId: string, prefix = '') =>
  `${prefix}/organizations/${organizationId}/webhooks`;
export const webhookPath = (organizationId: string, webhookId: string, prefix = '') =>
  `${webhooksPath(organizationId, prefix)}/${webhookId}`;
export const rotateSecretPath = (organizationId: string, webhookId: string, prefix = '') =>
  `${webhookPath(organizationId, webhookId, prefix)}/rotate-secret`;
export const deliveriesPath = (organizationId: string, webhookId: string, prefix = '') =>
  `${webhookPath(organizationId, webhookId, prefix)}/deliveries`;
export const retryPath = (organizationId: string, webhookId: string, deliveryId: string, prefix = '') =>
  `${deliveriesPath(organizationId, webhookId, prefix)}/${deliveryId}/retry`;

export type CreatedWebhook = WebhookView & { secret: string };

/** Creates an endpoint as `actor`; fails the test unless it is created. */
export async function createWebhook(
  server: TestServer,
  actor: TestUser,
  organizationId: string,
  fields: { url: string; event_types: string[]; description?: string },
): Promise<CreatedWebhook> {
  const created = await server.call('POST', webhooksPath(organizationId), { token: actor.token, body: fields });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** An endpoint's deliveries, newest first, as `viewer` (who holds webhooks:manage) lists them. */
export async function deliveriesOf(
  server: TestServer,
  viewer: TestUser,
  organizationId: string,
  webhookId: string,
): Promise<DeliveryView[]> {
  const listed = await server.call('GET', deliveriesPath(organizationId, webhookId), { token: viewer.token });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body;
}

/** A user who owns a new organization, made through the instance at `baseUrl`. */
export async function ownerOfNewOrganization(baseUrl: string): Promise<{ token: string; organizationId: string }> {
  const id = uniqueId('hooks');
  const token = await tokenFor(id, { role: 'owner' });
  const user = await restCall(baseUrl, 'POST', '/users', token, {
    first_name: 'Hook',
    last_name: 'Owner',
    email: `${id}@example.com`,
  });
  expect(user.status).toBe(201);
  const organization = await restCall(baseUrl, 'POST', '/organizations', token, {
    organization_name: `Organization of ${id}`,
    organization_description: '',
  });
  expect(organization.status).toBe(201);
  return { token, organizationId: organization.body.organization_id };
}

/** The `warn` lines an instance logged about webhook delivery (a pass, or one organization's hand-out, that failed). */
export const deliveryWarnings = (service: ServiceProcess): Record<string, any>[] =>
  service.entries().filter((entry) => entry.level === 40 && String(entry.msg).startsWith('webhooks:'));

export interface ReceivedRequest {
  method: string;
  /** The request's path and query, as sent. */
  path: string;
  /** Names in lower case; a repeated header's values joined by ", ". */
  headers: Record<string, string>;
  /** The body exactly as it arrived (signatures are over these bytes). */
  body: string;
  /** Date.now() when the request's headers had arrived. */
  arrivedAt: number;
  /** The status answered, once the answer is sent. */
  answered?: number;
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * How requests are answered: a function of the request (it may take its time), or a queue whose
 * answers are used one a request, in order, then 200.
 */
export type Responder =
  ((request: ReceivedRequest) => Answer | number | Promise<Answer | number>) | (Answer | number)[];

export interface Receiver {
  /** The URL of `path` on the receiver. */
  url(path?: string): string;
  /** Every request received so far, in order of arrival. */
  readonly requests: ReceivedRequest[];
  /** TCP connections accepted so far, requests or not (a TLS handshake counts too). */
  connections(): number;
  /** The requests received at `path`. */
  at(path: string): ReceivedRequest[];
  /** Answers the requests from now on as `responder` says. */
  respond(responder: Responder): void;
  close(): Promise<void>;
}

const flatHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
  );

function nextAnswer(responder: Responder, request: ReceivedRequest): Answer | number | Promise<Answer | number> {
  if (Array.isArray(responder)) return responder.shift() ?? 200;
  return responder(request);
}

/** Starts a receiver on 127.0.0.1 and a free port; it answers 200 until told otherwise. */
export async function startReceiver(responder: Responder = []): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let current = responder;
  const server = createServer((request, response) => {
    const received: ReceivedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: flatHeaders(request.headers),
      body: '',
      arrivedAt: Date.now(),
    };
    requests.push(received);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    const answerRequest = async () => {
      received.body = Buffer.concat(chunks).toString('utf8');
      const given = await nextAnswer(current, received);
      const answer = typeof given === 'number' ? { status: given } : given;
      // The service may have given up on the request (its timeout) while the answer was coming.
      if (response.destroyed) return;
      received.answered = answer.status;
      response.writeHead(answer.status, answer.headers).end(answer.body);
    };
    // Not awaited by the emitter: a responder that throws is an unhandled rejection, which fails the run.
    request.on('end', () => void answerRequest());
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests,
    connections: () => connections,
    at: (path) => requests.filter((request) => request.path === path),
    respond(responder) {
      current = responder;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The service keeps connections open between attempts.
        server.closeAllConnections();
      }),
  };
}

export interface TricklingReceiver {
  url(path?: string): string;
  /** Requests received so far. */
  requests(): number;
  close(): Promise<void>;
}

/**
 * A receiver on 127.0.0.1 that answers every request at once with `status`, its headers and the
 * first part of its body (`first`), then sends the rest (`rest`) a byte every `everyMs`: an answer
 * whose body is still coming when the sender's time is up.
 */
export async function startTricklingReceiver(
  status: number,
  first: string,
  rest: string,
  everyMs: number,
): Promise<TricklingReceiver> {
  let requests = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((request, response) => {
    requests++;
    request.resume();
    request.on('end', () => {
      response.writeHead(status, { 'content-length': Buffer.byteLength(first + rest) });
      response.write(first);
      let sent = 0;
      const timer = setInterval(() => {
        if (response.destroyed || sent >= rest.length) {
          clearInterval(timer);
          timers.delete(timer);
          response.end();
          return;
        }
        response.write(rest[sent++]);
      }, everyMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface HangingReceiver {
  url(path?: string): string;
  /** Requests received so far. */
  requests(): number;
  /** The most requests it has held open at once (closed by their sender, since it never answers). */
  mostOpen(): number;
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 that accepts every connection and request, and never answers. */
export async function startHangingReceiver(): Promise<HangingReceiver> {
  let requests = 0;
  let open = 0;
  let most = 0;
  const server = createServer((request, response) => {
    requests++;
    most = Math.max(most, ++open);
    request.resume();
    response.on('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests: () => requests,
    mostOpen: () => most,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
