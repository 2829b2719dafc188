/**
 * The wire contract shared by the server's procedures and the typed client: zod schemas for every
 * input and output, with the field names of the legacy REST interface and the rules of docs/behaviour.md (§4).
 */
import { z } from 'zod';
import { emailText, multilineText, plainText } from './text.ts';

export const ROLES = ['owner', 'admin', 'member'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

export const INVITATION_STATUSES = ['pending', 'accepted', 'declined', 'revoked'] as const;

/** A user id is the token's `sub` claim (behaviour §2). */
export const userIdSchema = plainText().min(1).max(128);
export const organizationIdSchema = z.uuid();
/** An Idempotency-Key header (behaviour §10): 1 to 255 printable ASCII characters. */
export const idempotencyKeySchema = z.string().regex(/^[\x20-\x7e]{1,255}$/);

const personNameSchema = plainText({ trimmed: true }).min(1).max(100);
export const emailSchema = emailText();
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

export const organizationNameSchema = plainText({ trimmed: true }).min(1).max(100);
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
