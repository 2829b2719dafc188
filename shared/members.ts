/** Members of an organization (behaviour §4.3): /organization-user. */
import { z } from 'zod';
import { emailSchema, isoTimestampSchema, roleSchema, userIdSchema } from './fields.ts';

export const addMemberInput = z.object({ email: emailSchema, role: roleSchema });
export const changeRoleInput = z.object({ user_id: userIdSchema, role: roleSchema });
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
