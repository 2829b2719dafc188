/**
 * Metadata objects (behaviour §15): JSON Merge Patch (RFC 7396) and the limits a result must keep.
 *
 * The merge is written here rather than taken from the `json-merge-patch` package: that package
 * stops at a key named `__proto__`, `constructor` or `prototype` and silently drops the rest of the
 * patch, and calls `target.hasOwnProperty(…)`, which a stored key of that name turns into a crash.
 * The RFC's algorithm is the ten lines below; objects are made without a prototype, and the keys
 * `__proto__` and `constructor` are dropped, as a body's are.
 */
import { MAX_METADATA_BYTES, type Metadata } from '../../shared/metadata.ts';
import { badRequest } from './errors.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Keys a patch never sets, at any depth (behaviour §5): a body's `__proto__` and `constructor` are
 * dropped, and tRPC, which parses its bodies itself, hands them on as keys.
 */
const DROPPED_KEYS = new Set(['__proto__', 'constructor']);

/** A value as it is stored: its objects' (and its arrays' objects') dropped keys left out, nothing else changed. */
function withoutDroppedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDroppedKeys);
  if (!isObject(value)) return value;
  const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) if (!DROPPED_KEYS.has(key)) result[key] = withoutDroppedKeys(value[key]);
  return result;
}

/** RFC 7396 §2 MergePatch(target, patch): `null` deletes a key, an array or a scalar replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return withoutDroppedKeys(patch);
  const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  if (isObject(target)) for (const key of Object.keys(target)) result[key] = target[key];
  for (const key of Object.keys(patch)) {
    if (DROPPED_KEYS.has(key)) continue;
    if (patch[key] === null) delete result[key];
    else result[key] = mergePatch(result[key], patch[key]);
  }
  return result;
}

/** A stored metadata object (a column of JSON text). */
export const parseMetadata = (stored: string): Metadata => JSON.parse(stored) as Metadata;

/**
 * The patch applied to the stored object, serialized, or 400 when the result is over 8 KiB
 * serialized. `field` names the body's field in the refusal. Its depth needs no check here: the
 * input's schema refuses a patch deeper than the limit (shared/metadata.ts), and a merge nests no
 * deeper than the deeper of the stored object and the patch, so the recursion above is bounded too.
 */
export function patchedMetadata(stored: string, patch: Record<string, unknown>, field: string): string {
  const serialized = JSON.stringify(mergePatch(parseMetadata(stored), patch));
  const bytes = Buffer.byteLength(serialized, 'utf8');
  if (bytes > MAX_METADATA_BYTES) {
    throw badRequest(`The resulting ${field} takes ${bytes} bytes, more than ${MAX_METADATA_BYTES}`, [
      { field, problem: `Must take at most ${MAX_METADATA_BYTES} bytes serialized as JSON` },
    ]);
  }
  return serialized;
}

/** The top-level keys whose value differs between two serialized metadata objects (for events). */
export function changedKeys(before: string, after: string): string[] {
  const from = parseMetadata(before);
  const to = parseMetadata(after);
  const keys = new Set([...Object.keys(from), ...Object.keys(to)]);
  return [...keys].filter((key) => JSON.stringify(from[key]) !== JSON.stringify(to[key])).sort();
}
