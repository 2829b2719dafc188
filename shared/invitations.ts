/** Invitations (behaviour §8): sent by an organization, answered by the invitee. */
import { z } from 'zod';
import { emailSchema, roleSchema } from './fields.ts';

export const INVITATION_STATUSES = ['pending', 'accepted', 'declined', 'revoked'] as const;

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
