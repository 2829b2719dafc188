/**
 * The pause before a transaction's next attempt (transaction.ts), in its own module so that the
 * bench's baseline retries as the service does without loading the service's database layer.
 */
const FIRST_PAUSE_MS = 5;
const MAX_PAUSE_MS = 200;

/** Exponential backoff with full jitter: racing transactions do not collide again in step. */
export const pauseBefore = (attempt: number) =>
  Math.random() * Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempt - 1));
