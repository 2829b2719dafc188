/** Members of an organization (behaviour §4.3): /organization-user. */
import { z } from 'zod';
import { emailSchema, expiresAtSchema, isoTimestampSchema, roleSchema, userIdSchema } from './fields.ts';
import { metadataSchema } from './metadata.ts';

/** `expires_at`: when the membership ends (behaviour §11); absent, it does not. Not for the role owner. */
export const addMemberInput = z.object({
  email: emailSchema,
  role: roleSchema,
  expires_at: expiresAtSchema.optional(),
});
/** `expires_at`: a new expiry, or null to make the membership last; absent, the expiry stays as it is. */
export const changeRoleInput = z.object({
  user_id: userIdSchema,
  role: roleSchema,
  expires_at: expiresAtSchema.nullable().optional(),
});
export const removeMemberInput = z.object({ user_id: userIdSchema });
export const getMemberInput = z.object({ user_id: userIdSchema });

export const memberOutput = z.object({
  organization_id: z.string(),
  user_id: z.string(),
  role: roleSchema,
  created_at: isoTimestampSchema,
  updated_at: isoTimestampSchema,
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  /** When the membership ends (ISO 8601 UTC), or null when it does not. */
  expires_at: isoTimestampSchema.nullable(),
});
export type Member = z.infer<typeof memberOutput>;

/** An item of GET /organization-user: exactly the interface's fields (behaviour §15: legacy shapes stay). */
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

/** An item of the tRPC member page: the list's, with the membership's expiry and public metadata. */
export const memberPageItemOutput = memberListItemOutput.extend({
  /** When the membership ends (ISO 8601 UTC), or null when it does not. */
  expires_at: z.string().nullable(),
  public_metadata: metadataSchema,
});
export type MemberPageItem = z.infer<typeof memberPageItemOutput>;

/** `{user_id}` in a path: GET /organizations/{organization_id}/members/{user_id}. */
export const memberPathInput = z.object({ user_id: userIdSchema });

/** A member as the newer read shows them (behaviour §15): the member, their public metadata and their teams. */
export const memberDetailsOutput = memberOutput.extend({
  public_metadata: metadataSchema,
  /** The organization's teams they are in, oldest first. */
  teams: z.array(z.object({ team_id: z.string(), name: z.string() })),
});
export type MemberDetails = z.infer<typeof memberDetailsOutput>;
