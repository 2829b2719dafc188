/**
 * Idempotency keys (behaviour §10, after the IETF Idempotency-Key draft and Stripe's practice). A
 * change request with a key claims it in the change's own transaction, as that transaction's first
 * statement, and stores its answer there too (transaction.ts): the key row commits with the change
 * or not at all. So a request that fails, whatever the failure (an error, a database that died, a
 * process that died, a request given up), holds its key no longer: its transaction rolled back, and
 * the same key carries the change out next time. A second request with the key meanwhile either
 * waits in the database for the first one's transaction to end (then gets its answer, or carries
 * the change out itself) or, while this process runs the first one, is answered 409 at once
 * (KeysInFlight).
 *
 * Answers are kept for `keepForMs` (at least 24 hours).
 */
import { createHash } from 'node:crypto';
import { KEY_IN_USE_MESSAGE } from '../../shared/errors.ts';
import { DomainError } from './errors.ts';
import type { DbTimestamp } from './database/schema.ts';
import { toDate } from './database/timestamps.ts';
import type { ChangeHook, Db, Tx } from './database/transaction.ts';

export interface IdempotentRequest {
  /** The token's subject: keys are per caller. */
  callerId: string;
  key: string;
  /** SHA-256 of what makes two requests the same one (see fingerprint). */
  fingerprint: string;
  /**
   * A key row without an answer was claimed apart from its change, by a version of the service
   * before this one; past this age, the request that claimed it can no longer commit.
   */
  staleAfterMs: number;
  keepForMs: number;
}

/** The same procedure (REST method and path), organization and body: the same request. */
export function fingerprint(parts: { procedure: string; organizationId: string | undefined; body: unknown }) {
  return createHash('sha256')
    .update(JSON.stringify([parts.procedure, parts.organizationId ?? null, parts.body ?? null]))
    .digest('hex');
}

export type Claim = { replay: false } | { replay: true; answer: unknown };

const keyInUse = () => new DomainError('CONFLICT', KEY_IN_USE_MESSAGE);
const keyReused = () =>
  new DomainError(
    'UNPROCESSABLE_CONTENT',
    'This Idempotency-Key was used with a different request (method, path, organization or body)',
  );

/**
 * The keys of the requests this process is running. A repeat of one meanwhile is answered 409 at
 * once (422 if it is another request), without waiting for the first in the database. A request
 * that is given up (its signal aborts: the processing limit passed, or its client left) leaves at
 * once, even while its transaction is still waiting for the database: it can no longer commit, so
 * a repeat is carried out (in the database it waits for the given-up transaction's rollback).
 */
export class KeysInFlight {
  readonly #running = new Map<string, { fingerprint: string }>();

  /** Enters the request, or throws what to answer instead; returns the function that leaves. */
  enter(request: IdempotentRequest, signal: AbortSignal | undefined): () => void {
    const id = JSON.stringify([request.callerId, request.key]);
    const running = this.#running.get(id);
    if (running) throw running.fingerprint === request.fingerprint ? keyInUse() : keyReused();
    const entry = { fingerprint: request.fingerprint };
    this.#running.set(id, entry);
    // Only its own entry: after a give-up, a repeat of the request may have entered meanwhile.
    const leave = () => {
      if (this.#running.get(id) === entry) this.#running.delete(id);
    };
    signal?.addEventListener('abort', leave, { once: true });
    return () => {
      signal?.removeEventListener('abort', leave);
      leave();
    };
  }
}

/**
 * Claims the key in the change's transaction `tx`, its first statement, or tells what to answer
 * instead (a replay, 409 or 422). Where another transaction holds the key, the insert waits for it
 * to end (within the request's time): committed, its answer is replayed; rolled back, the key is
 * this request's.
 */
export async function claimKey(
  tx: Tx,
  request: IdempotentRequest,
  isUniqueViolation: (error: unknown) => boolean,
): Promise<Claim> {
  try {
    await tx.run(
      tx.sql.insertInto('idempotency_keys').values({
        caller_id: request.callerId,
        idempotency_key: request.key,
        fingerprint: request.fingerprint,
        response_body: null,
        created_at: tx.timestamp(),
      }),
    );
    return { replay: false };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // The failed insert undid only itself: the transaction goes on, and (its first read) sees the row.
  const existing = await tx.first(
    tx.sql
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'response_body', 'created_at'])
      .where('caller_id', '=', request.callerId)
      .where('idempotency_key', '=', request.key),
  );
  if (!existing) return claimKey(tx, request, isUniqueViolation); // purged meanwhile: claim it now
  const age = tx.now.getTime() - toDate(existing.created_at).getTime();
  const answered = existing.response_body !== null;
  if (age > (answered ? request.keepForMs : request.staleAfterMs)) return takeOver(tx, request, existing.created_at);
  if (existing.fingerprint !== request.fingerprint) throw keyReused();
  if (!answered) throw keyInUse();
  const answer: unknown = JSON.parse(existing.response_body as string);
  if (typeof answer === 'object' && answer !== null && SHOWN_ONCE in answer) throw keyShownOnce();
  return { replay: true, answer };
}

/** Takes an expired or stale key for this request, unless another request took it first. */
async function takeOver(tx: Tx, request: IdempotentRequest, seenCreatedAt: DbTimestamp): Promise<Claim> {
  const taken = await tx.run(
    tx.sql
      .updateTable('idempotency_keys')
      .set({ fingerprint: request.fingerprint, response_body: null, created_at: tx.timestamp() })
      .where('caller_id', '=', request.callerId)
      .where('idempotency_key', '=', request.key)
      .where('created_at', '=', seenCreatedAt),
  );
  if (Number(taken.numAffectedRows ?? 0) !== 1) throw keyInUse();
  return { replay: false };
}

/**
 * Answers that hold a secret shown only once (an API key's, a webhook's signing secret, behaviour
 * §10, §16), with the field that holds it. Such an answer is stored without the secret, under
 * SHOWN_ONCE: a key kept only as a hash must not lie in plain text in this table for a day, and a
 * repeat of the request is answered 409 (keyShownOnce) rather than shown the secret again.
 */
const answersShownOnce = new WeakMap<object, string>();
const SHOWN_ONCE = 'secret_shown_once';

/** Marks `answer` as holding, in `field`, a secret shown only in it (answersShownOnce). */
export function withSecretShownOnce<Answer extends object>(answer: Answer, field: keyof Answer & string): Answer {
  answersShownOnce.set(answer, field);
  return answer;
}

const keyShownOnce = () =>
  new DomainError(
    'CONFLICT',
    'The request with this Idempotency-Key was carried out, and its answer held a secret, which is shown only once: it is not answered again',
  );

/** The answer as stored: without a secret shown once (answersShownOnce). */
function storedAnswer(answer: unknown): unknown {
  const field = typeof answer === 'object' && answer !== null ? answersShownOnce.get(answer) : undefined;
  if (field === undefined) return answer ?? null;
  const stored: Record<string, unknown> = { ...(answer as Record<string, unknown>), [SHOWN_ONCE]: true };
  delete stored[field];
  return stored;
}

/** Stores the answer with the change: queued in its transaction, to go out with COMMIT. */
export function completeKey(tx: Tx, request: IdempotentRequest, answer: unknown): void {
  tx.later(
    tx.sql
      .updateTable('idempotency_keys')
      .set({ response_body: JSON.stringify(storedAnswer(answer)) })
      .where('caller_id', '=', request.callerId)
      .where('idempotency_key', '=', request.key),
  );
}

/** Keys are answered for at least 24 hours (behaviour §10); expired rows are deleted after that. */
export const KEYS_KEPT_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Deletes the keys of each instance's database older than KEYS_KEPT_MS: once at start, then every
 * hour (instances started together purge together; the deletes are idempotent, so that is only
 * wasted work). Nothing depends on its timing: an expired key is taken over by its next request
 * anyway (claimKey); the purge only keeps the table from growing. Returns the function that stops
 * it, which waits for a purge under way (so that the database closes after it).
 */
export function purgeExpiredKeysHourly(db: Db, onFailure: (error: unknown) => void): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const purge = () => {
    running = db
      .run(
        db.sql
          .deleteFrom('idempotency_keys')
          .where('created_at', '<', db.timestamp(new Date(Date.now() - KEYS_KEPT_MS))),
      )
      .catch(onFailure);
  };
  purge();
  const timer = setInterval(purge, PURGE_EVERY_MS).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/**
 * The key's part in its change's transaction (database/transaction.ts runs it): claimed as the
 * first statement, its answer stored with the change, the request in flight meanwhile.
 */
export function idempotencyHook(request: IdempotentRequest, keysInFlight: KeysInFlight): ChangeHook {
  return {
    enter: (signal) => keysInFlight.enter(request, signal),
    async begin(tx, isUniqueViolation) {
      const claim = await claimKey(tx, request, isUniqueViolation);
      return claim.replay ? { answer: claim.answer } : undefined;
    },
    complete: (tx, answer) => completeKey(tx, request, answer),
  };
}
