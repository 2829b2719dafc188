/**
 * The organization's directory as its people see it (behaviour §18): what the identity provider
 * provisioned over SCIM, and the default role of the memberships it makes.
 */
import { z } from 'zod';
import { auditEventOutput } from './events.ts';
import { roleOtherThanOwnerSchema, roleSchema } from './fields.ts';

/** The newest changes the identity provider made that the directory's settings show. */
export const DIRECTORY_LAST_CHANGES = 20;

/** `default_role`: a role of the organization other than owner, given under the no-escalation rule. */
export const updateDirectoryInput = z.object({ default_role: roleOtherThanOwnerSchema });

export const directoryOutput = z.object({
  /** The role of a membership the directory makes (behaviour §18). */
  default_role: roleSchema,
  /** Directory users: `active` ones are (or become, once they have a record) members. */
  users: z.object({ active: z.number().int(), inactive: z.number().int() }),
  /** Directory groups: teams the identity provider made. */
  groups: z.number().int(),
  /** The newest events the identity provider's requests recorded (`data.via` "scim"), newest first. */
  last_changes: z.array(auditEventOutput),
});
export type DirectoryView = z.infer<typeof directoryOutput>;

/**
 * `member`: active and a member; `pending`: active, waiting for the person to create their record
 * with that e-mail; `removed`: active, but their membership ended another way (an owner removed
 * them, they left, it expired), until the identity provider's next change of them makes them a
 * member again; `inactive`: deactivated by the identity provider, not a member.
 */
export const DIRECTORY_USER_STATES = ['member', 'pending', 'removed', 'inactive'] as const;

export const directoryUserOutput = z.object({
  directory_user_id: z.string(),
  user_name: z.string(),
  display_name: z.string(),
  active: z.boolean(),
  /** The user record the directory user is, once there is one. */
  user_id: z.string().nullable(),
  state: z.enum(DIRECTORY_USER_STATES),
  created_at: z.string(),
});
export type DirectoryUserView = z.infer<typeof directoryUserOutput>;

export const directoryGroupOutput = z.object({
  team_id: z.string(),
  display_name: z.string(),
  /** Directory users in the group, members of the organization or not. */
  member_count: z.number().int(),
  created_at: z.string(),
});
export type DirectoryGroupView = z.infer<typeof directoryGroupOutput>;
