/** Invitations (behaviour §8): sent by an organization, answered by the invitee. */
import { z } from 'zod';
import { emailSchema, expiresAtSchema, roleSchema } from './fields.ts';

export const INVITATION_STATUSES = ['pending', 'accepted', 'declined', 'revoked'] as const;

export const invitationStatusSchema = z.enum(INVITATION_STATUSES);

export const invitationPathInput = z.object({ invitation_id: z.uuid().toLowerCase() });

/** `expires_at`: when the membership that accepting makes ends (behaviour §11); not for the role owner. */
export const createInvitationInput = z.object({
  email: emailSchema,
  role: roleSchema,
  expires_at: expiresAtSchema.optional(),
});

export const invitationOutput = z.object({
  invitation_id: z.string(),
  organization_id: z.string(),
  organization_name: z.string(),
  /** Lower-cased. */
  email: z.string(),
  role: roleSchema,
  status: invitationStatusSchema,
  /** The user id of whoever invited; null when a key did, or their record was deleted since. */
  invited_by: z.string().nullable(),
  /** The key that invited (behaviour §16); null when a person did. */
  invited_by_key_id: z.string().nullable(),
  created_at: z.string(),
  /** When the invitation itself expires (INVITATION_TTL_HOURS after it was made). */
  expires_at: z.string(),
  /** When the membership that accepting makes ends, or null when it does not. */
  membership_expires_at: z.string().nullable(),
});
export type InvitationView = z.infer<typeof invitationOutput>;
