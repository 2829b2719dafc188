/**
 * The fields every domain's schemas share (shared/users.ts, organizations.ts, members.ts,
 * invitations.ts, events.ts): ids, roles, e-mail addresses, timestamps and the short answers. Text
 * rules are in text.ts. The client imports these with the server's router types.
 */
import { z } from 'zod';
import { emailText, plainText } from './text.ts';

/** The roles every organization has (behaviour §3). */
export const ROLES = ['owner', 'admin', 'member'] as const;
export const builtInRoleSchema = z.enum(ROLES);
export type BuiltInRole = z.infer<typeof builtInRoleSchema>;

/** A role's name: a lower-case letter and up to 63 more of `a-z`, `0-9`, `_`, `-`. */
export const ROLE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
export const ROLE_NAME_MAX_LENGTH = 64;
/**
 * A role in a membership, an invitation or a team: a built-in role, one every organization of
 * the deployment has (its roles file), or one of the organization's own (behaviour §11). Whether
 * the organization has it is the service's to say (400 otherwise).
 */
export const roleSchema = z.string().regex(ROLE_NAME, {
  error: 'Must be a role name: a lower-case letter and up to 63 more of a-z, 0-9, _ and -',
});
export type Role = string;

/** A role other than owner: an API key's, and the memberships a directory or a domain makes (behaviour §16-18). */
export const roleOtherThanOwnerSchema = roleSchema
  .refine((role) => role !== 'owner', { error: 'Must be a role of the organization other than owner' })
  .meta({ override: { not: { const: 'owner' } } });

/** The longest a membership may be given before it expires. */
export const MAX_MEMBERSHIP_YEARS = 10;
const MAX_MEMBERSHIP_MS = MAX_MEMBERSHIP_YEARS * 365.25 * 24 * 3600 * 1000;
/**
 * When a membership expires (behaviour §11): an ISO 8601 date and time with a `Z` or an offset, in
 * the future and at most ten years ahead. Normalised to `…Z` with milliseconds.
 */
export const expiresAtSchema = z.iso
  .datetime({ offset: true, error: 'Must be an ISO 8601 date and time, e.g. 2030-01-31T12:00:00Z' })
  .transform((text) => new Date(text))
  .refine((date) => date.getTime() > Date.now(), { error: 'Must be in the future' })
  .refine((date) => date.getTime() <= Date.now() + MAX_MEMBERSHIP_MS, {
    error: `Must be at most ${MAX_MEMBERSHIP_YEARS} years ahead`,
  })
  .transform((date) => date.toISOString());

/** A user id is the token's `sub` claim (behaviour §2). */
export const userIdSchema = plainText({ min: 1, max: 128 });
export const organizationIdSchema = z.uuid();
/**
 * An Idempotency-Key header (behaviour §10): 1 to 255 printable ASCII characters, neither first nor
 * last a space (HTTP trims a header's value: a key sent with one arrives as another).
 */
export const idempotencyKeySchema = z.string().regex(/^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/);

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
