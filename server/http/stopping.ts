/**
 * Stopping behind a load balancer (CONTRACT 10). From the signal on, `/readyz` fails and every
 * answer carries `Connection: close`, so balancers stop routing here and keep-alive clients open
 * their next connection elsewhere, while requests are still served. Once the listener is closing,
 * a request that still arrives on an open socket is refused with the contract's 503 (and, as every
 * 503, `Retry-After`; Fastify's own 503 for it, without either, is off: `return503OnClosing: false`).
 */
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from '../../shared/errors.ts';

/** `serving` until the signal, `draining` while still serving, `closing` once the listener closes. */
export type StopPhase = 'serving' | 'draining' | 'closing';

export interface Stopping {
  readonly phase: StopPhase;
  /** Readiness fails and answers say `Connection: close`; requests are still served. */
  beginDraining(): void;
}

const REFUSED: ErrorBody = {
  code: 'SERVICE_UNAVAILABLE',
  message: 'The service is stopping: send the request again, another instance will take it',
};

export function registerStopping(app: FastifyInstance): Stopping {
  let phase: StopPhase = 'serving';
  // Callback hooks, not async ones: they run on every request (see http/logging.ts).
  app.addHook('onRequest', (_request, reply, done) => {
    if (phase !== 'closing') return done();
    // Retry-After, as on every 503, comes from http/retry-after.ts.
    void reply.status(503).send(REFUSED);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Node closes the socket after an answer that carries this header.
    if (phase !== 'serving') void reply.header('connection', 'close');
    done(null, payload);
  });
  // Whoever closes the app (the signal handler after the drain, or a test) gets the same refusal.
  app.addHook('preClose', (done) => {
    phase = 'closing';
    done();
  });
  return {
    get phase() {
      return phase;
    },
    beginDraining() {
      if (phase === 'serving') phase = 'draining';
    },
  };
}
