/**
 * The processing limit (behaviour §10): a request still running `limitMs` after it was received
 * whole (its body in, when it has one) is answered 503 (with Retry-After, as every 503), and its
 * `givenUp` signal aborts, so that its transaction rolls back instead of committing later
 * (database/transaction.ts). The signal also aborts when the connection closes before the answer
 * was written. The limit is a backstop, a little past DB_TIMEOUT_MS (config.ts): the data layer
 * ends a request's waits on the database at DB_TIMEOUT_MS itself, so the limit answers what the
 * database's bounds cannot end (a database that answers nothing at all).
 *
 * The wait for a body is not processing: a client that sends its body slowly has until
 * REQUEST_TIMEOUT_MS, and then gets 408 (error-body.ts), whatever the processing limit is. Started
 * at the first hook, the limit answered a body that was still arriving with 503 and kept the
 * connection, whose remaining bytes could then be read as the next request.
 *
 * Why not Fastify's own `handlerTimeout`: in Fastify 5.12 its timer is cleared as soon as a request's
 * body has been read (the raw request's 'close' event is taken for a disconnect; fastify/fastify
 * pull request 6725), so a POST, PUT or DELETE with a body had no limit at all. tests/faults.test.ts
 * found it with a stalled database: the change was answered 200 after the stall, long past the limit.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Answering } from '../platform/requests-in-flight.ts';
import { errorPayload } from './error-body.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route whose answer is a long-lived stream: no processing limit (it bounds itself). */
    streaming?: boolean;
  }
}

interface ProcessingLimit {
  controller: AbortController;
  timer: NodeJS.Timeout | undefined;
  /** Whether a change's COMMIT has gone out (commitSentMarker): then the outcome of a given-up request is unknown. */
  commitSent: boolean;
  /** The request as a change waits for its answer (answeringOf). */
  answering: ResponseAnswering;
}

/** A request's answer, as platform/requests-in-flight.ts waits for it: told by its response's 'close'. */
class ResponseAnswering implements Answering {
  #closed = false;
  #callbacks: Array<() => void> = [];
  #answered: Promise<void> | undefined;

  /** The response has closed, written whole or cut. */
  close(): void {
    this.#closed = true;
    for (const callback of this.#callbacks.splice(0)) callback();
  }

  onAnswered(callback: () => void): void {
    if (this.#closed) callback();
    else this.#callbacks.push(callback);
  }

  answered(): Promise<void> {
    return (this.#answered ??= new Promise((resolve) => this.onAnswered(resolve)));
  }
}

/** A request as this module decorates it: read through givenUpSignal. */
type LimitedRequest = FastifyRequest & { processingLimit: ProcessingLimit | null };

/** Aborted when the service gives the request up: the limit passed, or the client left. */
export const givenUpSignal = (request: FastifyRequest): AbortSignal | undefined =>
  (request as LimitedRequest).processingLimit?.controller.signal;

/** What a change calls as its COMMIT goes out (database/transaction.ts's `onCommitSent`). */
export const commitSentMarker = (request: FastifyRequest): (() => void) | undefined => {
  const limit = (request as LimitedRequest).processingLimit;
  return limit
    ? () => {
        limit.commitSent = true;
      }
    : undefined;
};

/** The request as a change waits for its answer: the same object each time, so a change knows its own. */
export const answeringOf = (request: FastifyRequest): Answering =>
  (request as LimitedRequest).processingLimit?.answering ?? ANSWERED;

/** What a request that no hook saw is: answered, nothing to wait for. */
const ANSWERED: Answering = { answered: () => Promise.resolve(), onAnswered: (callback) => callback() };

const GIVEN_UP_MESSAGE = 'The request took too long and was given up; nothing it asked for was changed';

/**
 * Given up with its COMMIT sent: a database that stalled then commits when it wakes, so the change
 * may have been made. The retry with the same Idempotency-Key answers what happened.
 */
const IN_DOUBT_MESSAGE =
  'The request took too long and was given up while its change was being committed: it may have been made. ' +
  'Send it again with the same Idempotency-Key to learn its outcome';

export function registerProcessingLimit(app: FastifyInstance, limitMs: number): void {
  app.decorateRequest('processingLimit', null);
  // Callback hooks, not async ones: they run on every request (see http/logging.ts).
  app.addHook('onRequest', (request, reply, done) => {
    const limit: ProcessingLimit = {
      controller: new AbortController(),
      timer: undefined,
      commitSent: false,
      answering: new ResponseAnswering(),
    };
    (request as LimitedRequest).processingLimit = limit;
    reply.raw.once('close', () => {
      limit.answering.close();
      clearTimeout(limit.timer);
      if (!reply.raw.writableFinished) limit.controller.abort();
    });
    done();
  });
  // Once the request is in, body parsed: what runs from here on is processing.
  app.addHook('preHandler', (request, reply, done) => {
    const limit = (request as LimitedRequest).processingLimit;
    if (limit && !request.routeOptions.config.streaming) {
      limit.timer = setTimeout(() => {
        limit.controller.abort();
        if (reply.sent || reply.raw.headersSent) return;
        const message = limit.commitSent ? IN_DOUBT_MESSAGE : GIVEN_UP_MESSAGE;
        void reply.status(503).send(errorPayload(request.url, 503, message));
        // The handler still runs and will answer too (REST or tRPC): that answer goes nowhere,
        // instead of into Fastify's "reply was already sent" warning.
        reply.send = () => reply;
      }, limitMs);
    }
    done();
  });
}
