/**
 * Public and private metadata (behaviour §15, §16): a JSON object an application keeps on an
 * organization or a membership, changed by JSON Merge Patch (RFC 7396), within limits.
 */
import { z } from 'zod';
import { userIdSchema } from './fields.ts';

/** The most a metadata object may take, serialized as JSON (UTF-8 bytes). */
export const MAX_METADATA_BYTES = 8 * 1024;
/** The deepest a metadata object may nest: the object itself is level 1. */
export const MAX_METADATA_DEPTH = 10;

/** A metadata object as it is stored and shown. */
export const metadataSchema = z.record(z.string(), z.unknown());
export type Metadata = z.infer<typeof metadataSchema>;

/**
 * The first thing a patch may not hold, walked without recursion (a body of 64 KiB can nest
 * thousands of levels): a level deeper than MAX_METADATA_DEPTH (each of the patch's levels is one
 * of the result's, so such a patch could only give a result over the limit), a key or string
 * that is not well-formed Unicode (a lone surrogate, which no stored text can hold), or a number
 * the body's JSON gave as Infinity (1e400: JSON cannot write it back, and it would be stored as null).
 */
function patchProblem(patch: object): { path: PropertyKey[]; message: string } | undefined {
  const pending: Array<{ value: unknown; depth: number; path: PropertyKey[] }> = [{ value: patch, depth: 1, path: [] }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value, depth, path } = item;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return { path, message: 'Must be well-formed Unicode text (no lone surrogates)' };
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path, message: 'Must be a number a double can hold (1e400 is not)' };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_METADATA_DEPTH) return { path, message: `Must nest at most ${MAX_METADATA_DEPTH} levels deep` };
    for (const [key, member] of Object.entries(value)) {
      if (!key.isWellFormed()) return { path, message: 'Keys must be well-formed Unicode text (no lone surrogates)' };
      pending.push({ value: member, depth: depth + 1, path: [...path, Array.isArray(value) ? Number(key) : key] });
    }
  }
  return undefined;
}

/**
 * A merge patch of a metadata object: an object (a patch of another kind would replace the whole
 * object with something that is not one). Its size is bounded by the body's.
 */
const metadataPatchSchema = z.record(z.string(), z.unknown()).superRefine((patch, context) => {
  const problem = patchProblem(patch);
  if (problem) context.addIssue({ code: 'custom', path: problem.path, message: problem.message });
});

export const updateOrganizationMetadataInput = z
  .object({
    public_metadata: metadataPatchSchema.optional(),
    /** With an application key only (`metadata:private`). */
    private_metadata: metadataPatchSchema.optional(),
  })
  .refine((body) => body.public_metadata !== undefined || body.private_metadata !== undefined, {
    message: 'Give public_metadata, private_metadata or both',
  });

export const updateMemberMetadataInput = z.object({
  user_id: userIdSchema,
  public_metadata: metadataPatchSchema,
});

/** The metadata after the patch; `private_metadata` only when the patch changed it (an application key). */
export const metadataOutput = z.object({
  public_metadata: metadataSchema,
  private_metadata: metadataSchema.optional(),
});
