/**
 * What every procedure sees: the database for this request, the token verifier, the settings and
 * the headers the service reads. Transport-free: the HTTP layer (http/context.ts) reads them off a
 * request, for tRPC calls and REST calls alike, and anything else (a test, a job) can build one.
 */
import type { Caller, VerifyToken } from '../auth/tokens.ts';
import type { Settings } from '../config.ts';
import type { Db } from '../database/transaction.ts';
import type { KeysInFlight } from '../idempotency.ts';
import { accessAnswers, type Answering, type RequestsInFlight } from '../requests-in-flight.ts';

export interface Services {
  db: Db;
  verifyToken: VerifyToken;
  settings: Settings;
  /** The Idempotency-Keys of the requests this instance is running. */
  keysInFlight: KeysInFlight;
  /** The requests this instance is answering that a change waits for (requests-in-flight.ts). */
  requestsInFlight: RequestsInFlight;
}

/** A log with the levels the procedures use (pino's, through Fastify's request logger). */
export interface Log {
  error(details: object, message: string): void;
}

/** What a procedure needs to know of the request it serves. */
export interface RequestFacts {
  log: Log;
  authorization: string | undefined;
  /**
   * The caller whose token the HTTP layer verified before it read the body, if it did: the
   * procedures take it rather than verify the token again.
   */
  verifiedCaller: Caller | undefined;
  /** Raw `organization_id` header; validated by the organization procedures. */
  organizationIdHeader: string | string[] | undefined;
  /** Raw `Idempotency-Key` header; read by change procedures (behaviour §10). */
  idempotencyKeyHeader: string | string[] | undefined;
  /**
   * The path the caller asked for, for links to it: before the /api alias is resolved, and after
   * PUBLIC_URL's path, which a proxy serving the service under a path strips before it (behaviour §6).
   */
  requestPath: string;
  /** Aborted when the request is given up (its limit passed, its client left): its transaction then rolls back. */
  signal: AbortSignal | undefined;
  /** Told when a change's COMMIT goes out: given up after it, the request's outcome is unknown. */
  onCommitSent: (() => void) | undefined;
  /** The request as a change waits for its answer (requests-in-flight.ts). */
  answering: Answering;
}

export interface Context extends Omit<RequestFacts, 'signal' | 'onCommitSent'>, Services {
  /** Headers a procedure adds to its REST response (the list `Link`, `Idempotency-Replayed`). */
  responseHeaders: Record<string, string>;
  /**
   * A whole REST list streamed page by page (http/rest.ts): `pageSize`, set by the REST layer, is
   * the size of the pages it reads (larger than a caller may ask for), and after each page
   * restList sets `nextCursor`, null on the last. An object of its own, like responseHeaders,
   * because tRPC hands each middleware's `next` a copy of the context.
   */
  listPaging: { pageSize?: number; nextCursor?: string | null };
  /**
   * The REST status of this success when it is not the procedure's `successStatus` (a join that
   * makes a request, 202, where joining at once is 201); an object of its own, like listPaging.
   */
  restStatus: { value?: 200 | 201 | 202 };
}

export function createContext(services: Services, { signal, onCommitSent, ...request }: RequestFacts): Context {
  return {
    ...request,
    db: services.db.forRequest({
      signal,
      onCommitSent,
      // A change is answered after the answers of who may do what under way in its organizations.
      afterOrganizationChanges: (organizationIds) =>
        services.requestsInFlight.othersAnswered([...organizationIds].map(accessAnswers), request.answering),
    }),
    verifyToken: services.verifyToken,
    settings: services.settings,
    keysInFlight: services.keysInFlight,
    requestsInFlight: services.requestsInFlight,
    responseHeaders: {},
    listPaging: {},
    restStatus: {},
  };
}
