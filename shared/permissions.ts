/** Permissions (behaviour §11): what a member may do in an organization, and the check an application asks. */
import { z } from 'zod';
import { roleSchema, userIdSchema } from './fields.ts';
import { permissionListSchema } from './roles.ts';

/** How many permissions one check may ask about. */
export const MAX_PERMISSIONS_CHECKED = 100;

/**
 * The input of a check. Which permissions exist is the service's to say (its own, and those of its
 * roles file): a name it does not know is a 400.
 */
export const checkPermissionsInput = z.object({
  permissions: permissionListSchema(MAX_PERMISSIONS_CHECKED),
  user_id: userIdSchema
    .meta({ description: 'Whose permissions (default: the caller); another user needs members:read' })
    .optional(),
});

/** GET /organizations/{organization_id}/permissions: the caller's role and what it lets them do. */
export const permissionsOutput = z.object({
  /** The caller; null for a key (behaviour §16). */
  user_id: z.string().nullable(),
  /** The key that asks, only when a key does. */
  key_id: z.string().optional(),
  role: roleSchema,
  /** The teams whose roles add to the caller's. */
  teams: z.array(z.string()),
  /** Sorted. */
  permissions: z.array(z.string()),
});
export type PermissionsView = z.infer<typeof permissionsOutput>;

export const permissionCheckOutput = z.object({
  /** Whose permissions: the user named, else the caller; null when the caller is a key asking about itself. */
  user_id: z.string().nullable(),
  /** The key asking about itself, only then. */
  key_id: z.string().optional(),
  /** Whether the user holds every permission asked about. */
  allowed: z.boolean(),
  results: z.record(z.string(), z.boolean()),
});
export type PermissionCheck = z.infer<typeof permissionCheckOutput>;

/** GET /permissions: every permission the service knows, the service's then the application's. */
export const permissionCatalogueOutput = z.array(
  z.object({
    permission: z.string(),
    description: z.string(),
    /** An owners' own power (`organization:delete`, `ownership:transfer`): no role may hold it. */
    owners_only: z.boolean(),
    /** A power of the application's keys alone (`organization:limits`, `metadata:private`): no role holds it. */
    application_only: z.boolean(),
  }),
);
export type PermissionCatalogue = z.infer<typeof permissionCatalogueOutput>;
