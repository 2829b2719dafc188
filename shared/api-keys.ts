/** An organization's API keys (behaviour §16): credentials of its own systems, not of a person. */
import { z } from 'zod';
import { expiresAtSchema, roleOtherThanOwnerSchema, roleSchema } from './fields.ts';
import { nameText } from './text.ts';

/** The most keys an organization may have that are neither revoked nor expired. */
export const MAX_LIVE_API_KEYS = 100;

/** `role`: one of the organization's roles but owner, given under the no-escalation rule. */
export const createApiKeyInput = z.object({
  name: nameText(100),
  role: roleOtherThanOwnerSchema,
  expires_at: expiresAtSchema.optional(),
});

export const apiKeyPathInput = z.object({ key_id: z.uuid().toLowerCase() });

export const apiKeyOutput = z.object({
  key_id: z.string(),
  name: z.string(),
  role: roleSchema,
  /** The secret's first characters, to tell keys apart (`oak_` and eight more). */
  prefix: z.string(),
  /** Who made it: a person's user id, or the id of the key that did. */
  created_by: z.string(),
  created_at: z.string(),
  /** Null: it does not expire. */
  expires_at: z.string().nullable(),
  /** To the minute; null: never used. */
  last_used_at: z.string().nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyOutput>;

/** The answer to a creation: the key with its secret, shown this once and kept only as a hash. */
export const createdApiKeyOutput = apiKeyOutput.extend({
  /** `oak_` and 32 random bytes in base64url: send it as `Authorization: Bearer <secret>`. */
  secret: z.string(),
});
