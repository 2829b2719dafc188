/**
 * The wire contract shared by the server's procedures and the typed client: zod schemas for every
 * input and output, with the field names of interface.md and the limits of CONTRACT.md section 4.
 */
import { z } from 'zod';

export const ROLES = ['owner', 'admin', 'member'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

export const INVITATION_STATUSES = ['pending', 'accepted', 'declined', 'revoked'] as const;

/*
 * Strings are Unicode text (CONTRACT 4): no control characters (U+0000 to U+001F, U+007F) and no
 * lone surrogates (JSON can spell `\udc00`; it is not text, and storing it would replace it
 * silently). Written as patterns, not refinements, so the OpenAPI document states them too.
 * Descriptions are free text and may hold tabs and line breaks.
 */
// Without the u flag these match UTF-16 code units: a surrogate is accepted only as half of a pair.
const PLAIN_TEXT = /^(?:[^\u0000-\u001f\u007f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;
const MULTILINE_TEXT =
  /^(?:[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;
const NOT_PLAIN_TEXT = 'Must be text without control characters or lone surrogates';

/** A single-line text field: a name, an id, an e-mail. */
export const plainText = () => z.string().regex(PLAIN_TEXT, NOT_PLAIN_TEXT);
/** Free text that may span lines (tabs and line breaks allowed). */
export const multilineText = () => z.string().regex(MULTILINE_TEXT, NOT_PLAIN_TEXT);

/** A user id is the token's `sub` claim (CONTRACT 2). */
export const userIdSchema = plainText().min(1).max(128);
export const organizationIdSchema = z.uuid();
/** An Idempotency-Key header (CONTRACT 10): 1 to 255 printable ASCII characters. */
export const idempotencyKeySchema = z.string().regex(/^[\x20-\x7e]{1,255}$/);

const personNameSchema = plainText().trim().min(1).max(100);
export const emailSchema = z.email().max(254).toLowerCase();
/** ISO 8601 UTC with milliseconds, e.g. `2026-11-22T12:34:56.789Z`. */
const isoTimestampSchema = z.string();

// ---- users ----------------------------------------------------------------------------------

export const createUserInput = z.object({
  first_name: personNameSchema,
  last_name: personNameSchema,
  email: emailSchema,
});

export const updateUserInput = z
  .object({ first_name: personNameSchema.optional(), last_name: personNameSchema.optional() })
  .refine((body) => body.first_name !== undefined || body.last_name !== undefined, {
    message: 'Give first_name, last_name or both',
  });

export const userOutput = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  created_at: isoTimestampSchema,
  updated_at: isoTimestampSchema,
});
export type User = z.infer<typeof userOutput>;

export const successOutput = z.object({ success: z.literal(true), message: z.string() });

// ---- organizations --------------------------------------------------------------------------

export const organizationNameSchema = plainText().trim().min(1).max(100);
export const organizationDescriptionSchema = multilineText().max(1000);

export const createOrganizationInput = z.object({
  organization_name: organizationNameSchema,
  organization_description: organizationDescriptionSchema,
});

export const organizationOutput = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  created_by: z.string(),
  created_at: isoTimestampSchema,
});
export type Organization = z.infer<typeof organizationOutput>;

export const membershipOutput = z.object({
  organization_id: z.string(),
  user_id: z.string(),
  role: roleSchema,
});

// ---- organization members -------------------------------------------------------------------

export const addMemberInput = z.object({ email: emailSchema, role: roleSchema });
export const changeRoleInput = z.object({ user_id: userIdSchema, role: roleSchema });
export const removeMemberInput = z.object({ user_id: userIdSchema });
export const getMemberInput = z.object({ user_id: userIdSchema });

export const messageOutput = z.object({ message: z.string() });

export const memberOutput = z.object({
  organization_id: z.string(),
  user_id: z.string(),
  role: roleSchema,
  created_at: isoTimestampSchema,
  updated_at: isoTimestampSchema,
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
});
export type Member = z.infer<typeof memberOutput>;

export const memberListItemOutput = z.object({
  user_id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role: roleSchema,
  email: z.string(),
  /** `YYYY-MM-DD hh:mm:ss`, UTC, as legacy clients of the member list expect. */
  created_at: z.string(),
});
export type MemberListItem = z.infer<typeof memberListItemOutput>;
