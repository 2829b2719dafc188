/**
 * UUID v7 ids (time-ordered) for organizations, invitations and events. Their random bits come from
 * a buffer of node:crypto's generator refilled every 256 ids: the uuid package's own source asks
 * WebCrypto for 16 bytes per id, a measurable share of a membership change's CPU (docs/performance.md,
 * "Measured choices in the code"). Both are the same cryptographic generator.
 */
import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

const IDS_PER_FILL = 256;
const pool = new Uint8Array(16 * IDS_PER_FILL);
let used = IDS_PER_FILL;

/** 16 fresh random bytes; uuid copies them into the id at once, before the pool is refilled. */
function randomBytesOfId(): Uint8Array {
  if (used === IDS_PER_FILL) {
    randomFillSync(pool);
    used = 0;
  }
  return pool.subarray(16 * used, 16 * ++used);
}

/** A UUID v7 for the millisecond `msecs` (default: now). */
export const newId = (msecs: number = Date.now()): string => uuidv7({ msecs, rng: randomBytesOfId });
