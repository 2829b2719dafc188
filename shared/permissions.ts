/** Permissions (behaviour §11): what a member may do in an organization, and the check an application asks. */
import { z } from 'zod';
import { roleSchema, userIdSchema } from './fields.ts';

/** `<resource>:<action>`, each part a lower-case letter and up to 39 more of `a-z`, `0-9`, `_`, `-`. */
export const PERMISSION_NAME = /^[a-z][a-z0-9_-]{0,39}:[a-z][a-z0-9_-]{0,39}$/;
/** How many permissions one check may ask about. */
export const MAX_PERMISSIONS_CHECKED = 100;

// Aborts: a malformed name is not also looked up among the permissions the service knows.
export const permissionNameSchema = z.string().regex(PERMISSION_NAME, {
  abort: true,
  error: 'Must be <resource>:<action>, each part a lower-case letter and up to 39 more of a-z, 0-9, _ and -',
});

/** The first name that `names` holds twice, if any. */
const repeated = (names: string[]) => names.find((name, index) => names.indexOf(name) !== index);

/**
 * The input of a check, its names checked by `permission`: the form (`permissionNameSchema`), which
 * the service narrows to the permissions it knows (a list only the server has).
 */
export const checkPermissionsInputOf = <Permission extends z.ZodType<string, string>>(permission: Permission) =>
  z.object({
    permissions: z
      .array(permission)
      .min(1)
      .max(MAX_PERMISSIONS_CHECKED)
      .refine((names) => repeated(names) === undefined, {
        error: (issue) => `Names ${repeated(issue.input as string[])} more than once`,
      })
      .meta({ uniqueItems: true }),
    user_id: userIdSchema
      .meta({ description: 'Whose permissions (default: the caller); another user needs members:read' })
      .optional(),
  });

/** GET /organizations/{organization_id}/permissions: the caller's role and what it lets them do. */
export const permissionsOutput = z.object({
  user_id: z.string(),
  role: roleSchema,
  /** The teams whose roles add to the caller's: none yet. */
  teams: z.array(z.string()),
  /** Sorted. */
  permissions: z.array(z.string()),
});
export type PermissionsView = z.infer<typeof permissionsOutput>;

export const permissionCheckOutput = z.object({
  user_id: z.string(),
  /** Whether the user holds every permission asked about. */
  allowed: z.boolean(),
  results: z.record(z.string(), z.boolean()),
});
export type PermissionCheck = z.infer<typeof permissionCheckOutput>;
