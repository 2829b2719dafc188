/**
 * The wire contract of the organization lifecycle (behaviour §8): reading, renaming, deleting and
 * handing over an organization, and invitations. Shared by the server's procedures and the typed
 * client, like schemas.ts.
 */
import { z } from 'zod';
import {
  emailSchema,
  INVITATION_STATUSES,
  organizationDescriptionSchema,
  organizationIdSchema,
  organizationNameSchema,
  roleSchema,
  userIdSchema,
} from './schemas.ts';

/** `{organization_id}` in a path: the header's rules (behaviour §8), any letter case. */
export const organizationPathInput = z.object({ organization_id: organizationIdSchema.toLowerCase() });

// ---- organizations --------------------------------------------------------------------------

export const organizationDetailsOutput = z.object({
  organization_id: z.string(),
  organization_name: z.string(),
  organization_description: z.string(),
  /** The caller's role in the organization. */
  role: roleSchema,
  member_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OrganizationDetails = z.infer<typeof organizationDetailsOutput>;

export const updateOrganizationInput = z
  .object({
    organization_name: organizationNameSchema.optional(),
    organization_description: organizationDescriptionSchema.optional(),
  })
  .refine((body) => body.organization_name !== undefined || body.organization_description !== undefined, {
    message: 'Give organization_name, organization_description or both',
  });

export const transferOwnershipInput = z.object({ user_id: userIdSchema });

// ---- invitations ----------------------------------------------------------------------------

export const invitationStatusSchema = z.enum(INVITATION_STATUSES);

export const invitationPathInput = z.object({ invitation_id: z.uuid().toLowerCase() });

export const createInvitationInput = z.object({ email: emailSchema, role: roleSchema });

export const invitationOutput = z.object({
  invitation_id: z.string(),
  organization_id: z.string(),
  organization_name: z.string(),
  /** Lower-cased. */
  email: z.string(),
  role: roleSchema,
  status: invitationStatusSchema,
  /** The user id of whoever invited. */
  invited_by: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type InvitationView = z.infer<typeof invitationOutput>;
