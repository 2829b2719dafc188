/** Organizations (behaviour §4.2, §8): creating, listing, reading, renaming, deleting, handing over. */
import { z } from 'zod';
import { isoTimestampSchema, organizationIdSchema, roleSchema, userIdSchema } from './fields.ts';
import { descriptionText, nameText } from './text.ts';

export const organizationNameSchema = nameText(100);
export const organizationDescriptionSchema = descriptionText(1000);

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

/** `{organization_id}` in a path: the header's rules (behaviour §8), any letter case. */
export const organizationPathInput = z.object({ organization_id: organizationIdSchema.toLowerCase() });

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
