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
 * A merge patch of a metadata object: an object (a patch of another kind would replace the whole
 * object with something that is not one). Its size is bounded by the body's.
 */
const metadataPatchSchema = z.record(z.string(), z.unknown());

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
