/** The application's lists across the service (behaviour §16): with an application key only. */
import { z } from 'zod';
import { isoTimestampSchema, roleSchema, userIdSchema } from './fields.ts';

export const adminOrganizationOutput = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  created_by: z.string(),
  created_at: isoTimestampSchema,
  member_count: z.number().int(),
});
export type AdminOrganization = z.infer<typeof adminOrganizationOutput>;

export const adminUserOutput = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  created_at: isoTimestampSchema,
  updated_at: isoTimestampSchema,
});
export type AdminUser = z.infer<typeof adminUserOutput>;

export const userPathInput = z.object({ user_id: userIdSchema });

export const adminMembershipOutput = z.object({
  organization_id: z.string(),
  organization_name: z.string(),
  organization_slug: z.string(),
  role: roleSchema,
  created_at: isoTimestampSchema,
  /** When the membership ends (ISO 8601 UTC), or null when it does not. */
  expires_at: isoTimestampSchema.nullable(),
});
export type AdminMembership = z.infer<typeof adminMembershipOutput>;
