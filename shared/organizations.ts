/** Organizations (behaviour §4.2, §8): creating, listing, reading, renaming, deleting, handing over. */
import { z } from 'zod';
import { isoTimestampSchema, organizationIdSchema, roleSchema, userIdSchema } from './fields.ts';
import { metadataSchema } from './metadata.ts';
import { SLUG_PATTERN, UUID_SHAPE, UUID_SHAPE_PATTERN } from './slug.ts';
import { descriptionText, nameText } from './text.ts';

export const organizationNameSchema = nameText(100);
export const organizationDescriptionSchema = descriptionText(1000);

/** A slug given by a caller (behaviour §15): 2 to 64 characters, never shaped like a UUID. */
export const organizationSlugSchema = z
  .string()
  .min(2)
  .max(64)
  .regex(SLUG_PATTERN, 'Must be lower-case letters and digits, with single hyphens inside')
  .refine((slug) => !UUID_SHAPE.test(slug), 'Must not be shaped like a UUID')
  .meta({ override: { not: { pattern: UUID_SHAPE_PATTERN } } });

/**
 * `organization_slug`: derived from the name when absent. `owner_user_id`: with an application
 * key only, the existing user who becomes the owner (behaviour §16).
 */
export const createOrganizationInput = z.object({
  organization_name: organizationNameSchema,
  organization_description: organizationDescriptionSchema,
  organization_slug: organizationSlugSchema.optional(),
  owner_user_id: userIdSchema.optional(),
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
  /** Unique over the service (behaviour §15). */
  slug: z.string(),
  /** The caller's role in the organization. */
  role: roleSchema,
  /** Current members (behaviour §16). */
  member_count: z.number().int(),
  /** The seat limit, or null for none (behaviour §16). */
  max_members: z.number().int().nullable(),
  public_metadata: metadataSchema,
  /** Shown to an application key only (behaviour §16). */
  private_metadata: metadataSchema.optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OrganizationDetails = z.infer<typeof organizationDetailsOutput>;

export const updateOrganizationInput = z
  .object({
    organization_name: organizationNameSchema.optional(),
    organization_description: organizationDescriptionSchema.optional(),
    organization_slug: organizationSlugSchema.optional(),
  })
  .refine(
    (body) =>
      body.organization_name !== undefined ||
      body.organization_description !== undefined ||
      body.organization_slug !== undefined,
    { message: 'Give organization_name, organization_description, organization_slug or more of them' },
  );

/** `{slug}` in a path (behaviour §15). */
export const organizationSlugPathInput = z.object({ slug: organizationSlugSchema });

/** The seat limit (behaviour §16): 1 to 1,000,000 members, or null for none. */
export const MAX_SEAT_LIMIT = 1_000_000;
export const setLimitsInput = z.object({ max_members: z.number().int().min(1).max(MAX_SEAT_LIMIT).nullable() });

export const transferOwnershipInput = z.object({ user_id: userIdSchema });
