/** Roles (behaviour §11): what each role of an organization lets its holders do, and its own roles. */
import { z } from 'zod';
import { roleSchema } from './fields.ts';
import { descriptionText } from './text.ts';

/** `<resource>:<action>`, each part a lower-case letter and up to 39 more of `a-z`, `0-9`, `_`, `-`. */
export const PERMISSION_NAME = /^[a-z][a-z0-9_-]{0,39}:[a-z][a-z0-9_-]{0,39}$/;

export const MAX_ROLE_DESCRIPTION = 500;
/** The most permissions one role may hold. */
export const MAX_ROLE_PERMISSIONS = 100;
/** The most roles of its own an organization may have (built-in and instance roles aside). */
export const MAX_ORGANIZATION_ROLES = 100;

/** The first name that `names` holds twice, if any. */
export const repeatedName = (names: readonly string[]) => names.find((name, index) => names.indexOf(name) !== index);

export const ROLE_KINDS = ['built_in', 'instance', 'organization'] as const;

// Aborts: a malformed name is not also looked up among the permissions the service knows.
export const permissionNameSchema = z.string().regex(PERMISSION_NAME, {
  abort: true,
  error: 'Must be <resource>:<action>, each part a lower-case letter and up to 39 more of a-z, 0-9, _ and -',
});

/**
 * A permission name a role may hold: any the service knows but the owners' own, which the service
 * says (the OpenAPI document lists them; `x-grantable` marks the field for it).
 */
const grantablePermissionSchema = permissionNameSchema.meta({ 'x-grantable': true });

/** 1 to `max` distinct permission names: any to ask about, or `grantable` ones, for a role to hold. */
export const permissionListSchema = (max: number, { grantable = false } = {}) =>
  z
    .array(grantable ? grantablePermissionSchema : permissionNameSchema, {
      error: 'Must be an array of permission names',
    })
    .min(1, 'Must name at least 1 permission')
    .max(max, `Must name at most ${max} permissions`)
    .refine((names) => repeatedName(names) === undefined, {
      error: (issue) => `Names ${repeatedName(issue.input as string[])} more than once`,
    })
    .meta({ uniqueItems: true });

export const roleDescriptionSchema = descriptionText(MAX_ROLE_DESCRIPTION);

export const createRoleInput = z.object({
  role: roleSchema,
  description: roleDescriptionSchema.default(''),
  permissions: permissionListSchema(MAX_ROLE_PERMISSIONS, { grantable: true }),
});

export const updateRoleInput = z
  .object({
    role: roleSchema,
    description: roleDescriptionSchema.optional(),
    permissions: permissionListSchema(MAX_ROLE_PERMISSIONS, { grantable: true }).optional(),
  })
  .refine((input) => input.description !== undefined || input.permissions !== undefined, {
    error: 'Give a description, permissions or both',
  });

export const roleOutput = z.object({
  role: z.string(),
  description: z.string(),
  /** Sorted. */
  permissions: z.array(z.string()),
  kind: z.enum(ROLE_KINDS),
  /** When an organization's role was created and last changed; null for the built-in and instance roles. */
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type RoleView = z.infer<typeof roleOutput>;
