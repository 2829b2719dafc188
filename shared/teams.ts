/**
 * Teams (behaviour §12): groups of an organization's members, each giving its members the
 * permissions of its roles besides their own.
 */
import { z } from 'zod';
import { roleSchema, userIdSchema } from './fields.ts';
import { repeatedName } from './roles.ts';
import { comparableName, descriptionText, nameText } from './text.ts';

/** The most teams one organization may have. */
export const MAX_TEAMS = 1000;
/** The most roles one team may give. */
export const MAX_TEAM_ROLES = 20;
export const MAX_TEAM_NAME = 100;
export const MAX_TEAM_DESCRIPTION = 1000;

/**
 * The form two team names of one organization may not share (409): `comparableName`, so that
 * "Support", "SUPPORT", "Ｓｕｐｐｏｒｔ" and "Sup\u200bport" are one name, and so are "straße",
 * "STRAẞE" and "STRASSE" (behaviour §4.4, §12). The database keeps its digest (server/modules/teams/name-key.ts).
 */
export const teamNameKey = comparableName;

/** The width of the stored key's column: the digest of 43 characters fits (it once held the folded name). */
export const MAX_TEAM_NAME_KEY = 3 * MAX_TEAM_NAME;

export const teamIdSchema = z.uuid().toLowerCase();
export const teamNameSchema = nameText(MAX_TEAM_NAME);
export const teamDescriptionSchema = descriptionText(MAX_TEAM_DESCRIPTION);

/**
 * The roles a team gives: 0 to 20 distinct role names the organization has, never `owner`, which
 * only a membership holds. Whether the organization has each one is the service's to say (400).
 */
export const teamRolesSchema = z
  .array(roleSchema, { error: 'Must be an array of role names' })
  .max(MAX_TEAM_ROLES, `Must name at most ${MAX_TEAM_ROLES} roles`)
  .refine((roles) => !roles.includes('owner'), { error: 'A team cannot give the role owner' })
  .refine((roles) => repeatedName(roles) === undefined, {
    error: (issue) => `Names ${repeatedName(issue.input as string[])} more than once`,
  })
  .meta({ uniqueItems: true, not: { contains: { const: 'owner' } } });

export const teamPathInput = z.object({ team_id: teamIdSchema });

export const createTeamInput = z.object({
  name: teamNameSchema,
  description: teamDescriptionSchema.default(''),
  roles: teamRolesSchema.default([]),
});

export const updateTeamInput = z
  .object({
    team_id: teamIdSchema,
    name: teamNameSchema.optional(),
    description: teamDescriptionSchema.optional(),
    roles: teamRolesSchema.optional(),
  })
  .refine((input) => input.name !== undefined || input.description !== undefined || input.roles !== undefined, {
    error: 'Give a name, a description, roles, or any of them together',
  });

export const teamMemberInput = z.object({ team_id: teamIdSchema, user_id: userIdSchema });

export const teamOutput = z.object({
  team_id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  description: z.string(),
  /** Sorted. */
  roles: z.array(z.string()),
  /** Its members whose membership of the organization has not expired. */
  member_count: z.number().int(),
  /** ISO 8601 UTC with milliseconds. */
  created_at: z.string(),
  updated_at: z.string(),
});
export type TeamView = z.infer<typeof teamOutput>;

export const teamMemberOutput = z.object({
  user_id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  /** When the user joined the team: ISO 8601 UTC with milliseconds. */
  added_at: z.string(),
});
export type TeamMemberView = z.infer<typeof teamMemberOutput>;

/** What adding a member to a team answers. */
export const teamMembershipOutput = z.object({
  team_id: z.string(),
  user_id: z.string(),
  added_at: z.string(),
});
