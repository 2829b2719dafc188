/**
 * Stopping behind a load balancer (behaviour §10). From the signal on, `/readyz` fails and every
 * answer carries `Connection: close`, so balancers stop routing here and keep-alive clients open
 * their next connection elsewhere, while requests are still served. Once the listener is closing,
 * a request that still arrives on an open socket is refused with the contract's 503 (and, as every
 * 503, `Retry-After`; Fastify's own 503 for it, without either, is off: `return503OnClosing: false`).
 */
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Server, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBodyOf, unavailable } from '../platform/errors.ts';

/** `serving` until the signal, `draining` while still serving, `closing` once the listener closes. */
export type StopPhase = 'serving' | 'draining' | 'closing';

export interface Stopping {
  readonly phase: StopPhase;
  /** Readiness fails and answers say `Connection: close`; requests are still served. */
  beginDraining(): void;
}

type OutgoingHeaders = OutgoingHttpHeaders | OutgoingHttpHeader[];

/** The servers past their signal, which their responses look up as they write their head. */
const stoppingServers = new WeakSet<Server>();

/**
 * The HTTP server's response class (the `ServerResponse` option of Node's `createServer`, given
 * through Fastify's `http` option in server/app.ts): once its server is stopping, its head says
 * `Connection: close`, and Node closes the socket after it. Checked as the head is written, the
 * one step every answer takes, so it holds for requests that were under way at the signal and for
 * answers no Fastify hook sees (the answer to a malformed URL, say).
 */
export class StopAwareResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  // Either form of writeHead, with or without a status message, passes through as it came.
  override writeHead(statusCode: number, ...rest: [string?, OutgoingHeaders?] | [OutgoingHeaders?]): this {
    // `socket.server`: the server that accepted the connection (Node's net docs; not in @types/node).
    const { server } = this.req.socket as Socket & { server?: Server | null };
    if (server && stoppingServers.has(server) && !this.headersSent) this.setHeader('connection', 'close');
    return super.writeHead(statusCode, ...(rest as [string?, OutgoingHeaders?]));
  }
}

const REFUSED = errorBodyOf(
  unavailable('The service is stopping: send the request again, another instance will take it'),
);

/**
 * The connections of `server` that have not sent a byte yet, ended as the listener closes. Node's
 * close ends the idle kept-alive ones, not those: one a browser or a balancer opened ahead of a
 * request (a preconnect, a warm pool) held the close until the socket's time-out, past
 * SHUTDOWN_TIMEOUT_MS (behaviour §10). Ending it loses nothing: it holds no request, and its
 * client opens another, which reaches another instance. A connection that has sent part of a
 * request is kept, to be answered 503 (or 408, at REQUEST_TIMEOUT_MS).
 */
function endConnectionsNotYetUsed(server: Server): () => void {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return () => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  };
}

export function registerStopping(app: FastifyInstance): Stopping {
  let phase: StopPhase = 'serving';
  const endUnused = endConnectionsNotYetUsed(app.server);
  // A callback hook, not an async one: it runs on every request (see http/logging.ts).
  app.addHook('onRequest', (_request, reply, done) => {
    if (phase !== 'closing') return done();
    // Retry-After, as on every 503, comes from http/status-headers.ts.
    void reply.status(503).send(REFUSED);
  });
  // Whoever closes the app (the signal handler after the drain, or a test) gets the same refusal.
  app.addHook('preClose', (done) => {
    phase = 'closing';
    stoppingServers.add(app.server);
    endUnused();
    done();
  });
  return {
    get phase() {
      return phase;
    },
    beginDraining() {
      if (phase !== 'serving') return;
      phase = 'draining';
      stoppingServers.add(app.server);
    },
  };
}
