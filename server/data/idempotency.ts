/**
 * Idempotency keys (CONTRACT 10, after the IETF Idempotency-Key draft and Stripe's practice). A
 * change request with a key first claims it in a statement of its own, so a second request with
 * the same key sees it at once (409 while the first runs); the first request's answer is stored in
 * its own transaction (transaction.ts), so the key is answered if and only if the change committed.
 * A request that fails releases its claim: nothing changed, and the same key may be tried again.
 *
 * Claims left behind by a process that died mid-request become stale after `staleAfterMs` and may
 * then be taken over: by then that request's transaction can no longer commit (the HTTP layer's
 * processing limit is shorter). Answers are kept for `keepForMs` (at least 24 hours).
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../errors.ts';
import type { DbTimestamp } from './database.ts';
import { toDate } from './timestamps.ts';
import type { Db, Tx } from './transaction.ts';

export interface IdempotentRequest {
  /** The token's subject: keys are per caller. */
  callerId: string;
  key: string;
  /** SHA-256 of what makes two requests the same one (see fingerprint). */
  fingerprint: string;
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

const keyInUse = () =>
  new DomainError('CONFLICT', 'A request with this Idempotency-Key is still being processed; retry later');
const keyReused = () =>
  new DomainError(
    'UNPROCESSABLE_CONTENT',
    'This Idempotency-Key was used with a different request (method, path, organization or body)',
  );

/** Claims the key for this request, or tells what to answer instead (a replay, 409 or 422). */
export async function claimKey(db: Db, request: IdempotentRequest): Promise<Claim> {
  const now = new Date();
  try {
    await db.sql
      .insertInto('idempotency_keys')
      .values({
        caller_id: request.callerId,
        idempotency_key: request.key,
        fingerprint: request.fingerprint,
        response_body: null,
        created_at: db.timestamp(now),
      })
      .execute();
    return { replay: false };
  } catch (error) {
    if (!db.isUniqueViolation(error)) throw error;
  }
  const existing = await db.sql
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'response_body', 'created_at'])
    .where('caller_id', '=', request.callerId)
    .where('idempotency_key', '=', request.key)
    .executeTakeFirst();
  if (!existing) return claimKey(db, request); // released meanwhile: claim it now
  const age = now.getTime() - toDate(existing.created_at).getTime();
  const answered = existing.response_body !== null;
  if (age > (answered ? request.keepForMs : request.staleAfterMs)) {
    return takeOver(db, request, existing.created_at, now);
  }
  if (existing.fingerprint !== request.fingerprint) throw keyReused();
  if (!answered) throw keyInUse();
  return { replay: true, answer: JSON.parse(existing.response_body as string) };
}

/** Takes an expired or stale key for this request, unless another request took it first. */
async function takeOver(db: Db, request: IdempotentRequest, seenCreatedAt: DbTimestamp, now: Date): Promise<Claim> {
  const taken = await db.sql
    .updateTable('idempotency_keys')
    .set({ fingerprint: request.fingerprint, response_body: null, created_at: db.timestamp(now) })
    .where('caller_id', '=', request.callerId)
    .where('idempotency_key', '=', request.key)
    .where('created_at', '=', seenCreatedAt)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) !== 1) throw keyInUse();
  return { replay: false };
}

/** Stores the answer with the change: queued in its transaction, to go out with COMMIT. */
export function completeKey(tx: Tx, request: IdempotentRequest, answer: unknown): void {
  tx.later(
    tx.sql
      .updateTable('idempotency_keys')
      .set({ response_body: JSON.stringify(answer ?? null) })
      .where('caller_id', '=', request.callerId)
      .where('idempotency_key', '=', request.key),
  );
}

/** Gives the key back after a failed request (nothing changed). */
export async function releaseKey(db: Db, request: IdempotentRequest): Promise<void> {
  await db.sql
    .deleteFrom('idempotency_keys')
    .where('caller_id', '=', request.callerId)
    .where('idempotency_key', '=', request.key)
    .where('response_body', 'is', null)
    .execute();
}

/** Keys are answered for at least 24 hours (CONTRACT 10); expired rows are deleted after that. */
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
    running = db.sql
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', db.timestamp(new Date(Date.now() - KEYS_KEPT_MS)))
      .execute()
      .catch(onFailure);
  };
  purge();
  const timer = setInterval(purge, PURGE_EVERY_MS).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
