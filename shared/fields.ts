/**
 * The fields every domain's schemas share (shared/users.ts, organizations.ts, members.ts,
 * invitations.ts, events.ts): ids, roles, e-mail addresses, timestamps and the short answers. Text
 * rules are in text.ts. The client imports these with the server's router types.
 */
import { z } from 'zod';
import { emailText, plainText } from './text.ts';

export const ROLES = ['owner', 'admin', 'member'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

/** A user id is the token's `sub` claim (behaviour §2). */
export const userIdSchema = plainText().min(1).max(128);
export const organizationIdSchema = z.uuid();
/** An Idempotency-Key header (behaviour §10): 1 to 255 printable ASCII characters. */
export const idempotencyKeySchema = z.string().regex(/^[\x20-\x7e]{1,255}$/);

export const emailSchema = emailText();
/** ISO 8601 UTC with milliseconds, e.g. `2026-11-22T12:34:56.789Z`. */
export const isoTimestampSchema = z.string();

export const successOutput = z.object({ success: z.literal(true), message: z.string() });
export const messageOutput = z.object({ message: z.string() });

/** A membership as the changes that make one answer it (POST /organizations, /organization-user, accept). */
export const membershipOutput = z.object({
  organization_id: z.string(),
  user_id: z.string(),
  role: roleSchema,
});
