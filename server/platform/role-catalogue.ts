/**
 * The permissions and roles every organization of a deployment has (behaviour §11): the service's
 * own permissions, the built-in roles, and what the roles file (ROLES_FILE) adds: the application's
 * permissions, instance roles, and grants of application permissions to `admin` and `member`.
 * Read once at start; an organization's own roles are rows of its own (organization_roles), read
 * with the membership that names them.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ROLE_NAME, ROLES, type BuiltInRole } from '../../shared/fields.ts';
import { MAX_ROLE_PERMISSIONS, PERMISSION_NAME, repeatedName, roleDescriptionSchema } from '../../shared/roles.ts';

/** The service's own permissions, `<resource>:<action>`, with what each lets a role do. */
export const SERVICE_PERMISSIONS = {
  'organization:read': 'read the organization',
  'organization:update': 'change it',
  'organization:delete': 'delete it',
  'ownership:transfer': 'hand its ownership over',
  'members:read': 'read its members',
  'members:add': 'add members',
  'members:update': "change its members' roles",
  'members:remove': 'remove its members',
  'invitations:read': 'read its invitations',
  'invitations:create': 'invite people to it',
  'invitations:revoke': 'revoke its invitations',
  'events:read': 'read its events',
  'roles:read': 'read its roles',
  'roles:manage': 'create, change and delete its roles',
  'teams:read': 'read its teams',
  'teams:manage': 'create, change and delete its teams',
  'webhooks:manage': 'manage its webhooks',
  'api_keys:manage': 'create and revoke its API keys',
  'domains:manage': 'manage its domains and its directory',
  'directory:sync': "provision its members and teams from a company's directory (SCIM)",
  'organization:limits': 'set its seat limit',
  'metadata:private': 'read and change its private metadata',
} as const;
export type ServicePermission = keyof typeof SERVICE_PERMISSIONS;

const SERVICE_PERMISSION_NAMES = Object.keys(SERVICE_PERMISSIONS) as ServicePermission[];

/** Powers of owners alone: no other role may hold them, and a role that names them is refused. */
export const OWNERS_ONLY: readonly ServicePermission[] = ['organization:delete', 'ownership:transfer'];

/**
 * Powers of the application's own keys alone (behaviour §16): no role holds them, the owner's
 * included, and a role that names them is refused.
 */
export const APPLICATION_ONLY: readonly ServicePermission[] = ['organization:limits', 'metadata:private'];

/** Whether a role of an organization may hold the permission. */
export const isGrantable = (permission: string): boolean =>
  !(OWNERS_ONLY as readonly string[]).includes(permission) &&
  !(APPLICATION_ONLY as readonly string[]).includes(permission);

const MEMBER_PERMISSIONS: readonly ServicePermission[] = [
  'organization:read',
  'members:read',
  'roles:read',
  'teams:read',
];

/** Parsed organization roles kept (role-catalogue's #parsed), cleared whole when full. */
const PARSED_ROLES_KEPT = 10_000;

export type RoleKind = 'built_in' | 'instance' | 'organization';

export interface RoleDefinition {
  role: string;
  description: string;
  permissions: ReadonlySet<string>;
  kind: RoleKind;
}

const BUILT_IN_DESCRIPTIONS: Record<BuiltInRole, string> = {
  owner: 'Every permission, the ownership included',
  admin: 'Every permission but deleting the organization and handing its ownership over',
  member: 'Reads the organization, its members, roles and teams',
};

/** The roles file, as behaviour §11 describes it; every key is optional, no other key is allowed. */
const permissionName = z.string().regex(PERMISSION_NAME, 'is not <resource>:<action>');
// The file's descriptions are served as an organization's own roles' are: the same text rules (behaviour §4.4).
const description = roleDescriptionSchema;
const permissionList = z
  .array(z.string())
  .max(MAX_ROLE_PERMISSIONS)
  .refine((names) => repeatedName(names) === undefined, {
    error: (issue) => `names ${repeatedName(issue.input as string[])} twice`,
  });
const rolesFileSchema = z.strictObject({
  permissions: z.record(permissionName, description).default({}),
  roles: z
    .record(
      z.string().regex(ROLE_NAME, 'is not a role name'),
      z.strictObject({ description: description.default(''), permissions: permissionList.min(1) }),
    )
    .default({}),
  grants: z.strictObject({ admin: permissionList.optional(), member: permissionList.optional() }).default({}),
});
export type RolesFile = z.input<typeof rolesFileSchema>;

export class RoleCatalogueError extends Error {
  override name = 'RoleCatalogueError';
}

export class RoleCatalogue {
  /** Every permission known: the service's, then the application's, with their descriptions. */
  readonly permissions: ReadonlyMap<string, string>;
  /** The roles that are not stored: the built-in ones, then the instance ones, by name. */
  readonly fixedRoles: ReadonlyMap<string, RoleDefinition>;
  /** What an application key holds in every organization: every permission (behaviour §16). */
  readonly applicationKeyPermissions: ReadonlySet<string>;

  /** The catalogue of a roles file's content; throws RoleCatalogueError naming the first problem. */
  constructor(file: RolesFile = {}) {
    const parsed = rolesFileSchema.safeParse(file);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      // A malformed name holds its problem inside: "is not a role name", not zod's "Invalid key in record".
      const message = issue.code === 'invalid_key' ? issue.issues[0]!.message : issue.message;
      throw new RoleCatalogueError(`${issue.path.join('.') || 'the file'}: ${message}`);
    }
    const { permissions, roles, grants } = parsed.data;
    const own = Object.keys(permissions);
    const serviceOwn = own.find((name) => Object.hasOwn(SERVICE_PERMISSIONS, name));
    if (serviceOwn) throw new RoleCatalogueError(`permissions.${serviceOwn}: is one of the service's own permissions`);
    this.permissions = new Map<string, string>([
      ...Object.entries(SERVICE_PERMISSIONS),
      ...Object.entries(permissions),
    ]);

    const grantsOf = (role: 'admin' | 'member') => {
      const names = grants[role] ?? [];
      const stray = names.find((name) => !own.includes(name));
      if (stray) throw new RoleCatalogueError(`grants.${role}: ${stray} is not an application permission of the file`);
      return names;
    };
    const all = [...this.permissions.keys()];
    this.applicationKeyPermissions = new Set(all);
    const builtIn: Record<BuiltInRole, string[]> = {
      owner: all.filter((name) => !(APPLICATION_ONLY as readonly string[]).includes(name)),
      admin: [...SERVICE_PERMISSION_NAMES.filter(isGrantable), ...grantsOf('admin')],
      member: [...MEMBER_PERMISSIONS, ...grantsOf('member')],
    };
    const fixed = new Map<string, RoleDefinition>();
    for (const role of ROLES) {
      fixed.set(role, {
        role,
        description: BUILT_IN_DESCRIPTIONS[role],
        permissions: new Set(builtIn[role]),
        kind: 'built_in',
      });
    }
    for (const [role, definition] of Object.entries(roles)) {
      if (fixed.has(role)) throw new RoleCatalogueError(`roles.${role}: is a built-in role`);
      const problem = this.problemWithPermissions(definition.permissions);
      if (problem) throw new RoleCatalogueError(`roles.${role}.permissions: ${problem}`);
      fixed.set(role, {
        role,
        description: definition.description,
        permissions: new Set(definition.permissions),
        kind: 'instance',
      });
    }
    this.fixedRoles = fixed;
  }

  /** The catalogue of the roles file at `path`; its problem, in one line, if it cannot be used. */
  static read(path: string): RoleCatalogue {
    let content: unknown;
    try {
      content = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      // V8 quotes the lines around a syntax error: joined, so that the start's failure stays one line.
      const reason =
        error instanceof SyntaxError
          ? `not JSON: ${error.message.replace(/\s*\n\s*/g, ' ')}`
          : `cannot be read: ${(error as Error).message}`;
      throw new RoleCatalogueError(reason);
    }
    if (typeof content !== 'object' || content === null || Array.isArray(content)) {
      throw new RoleCatalogueError('not a JSON object');
    }
    return new RoleCatalogue(content);
  }

  isKnown(permission: string): boolean {
    return this.permissions.has(permission);
  }

  /**
   * Why a role may not hold `permissions`, or undefined: a permission nobody declared, or one of
   * the owners' own powers (behaviour §11).
   */
  problemWithPermissions(permissions: readonly string[]): string | undefined {
    const unknown = permissions.find((name) => !this.isKnown(name));
    if (unknown) return `Unknown permission: ${unknown}`;
    const ownersOnly = permissions.find((name) => (OWNERS_ONLY as readonly string[]).includes(name));
    if (ownersOnly) return `${ownersOnly} belongs to owners alone; no other role may hold it`;
    const applicationOnly = permissions.find((name) => (APPLICATION_ONLY as readonly string[]).includes(name));
    if (applicationOnly) return `${applicationOnly} belongs to the application's keys alone; no role may hold it`;
    return undefined;
  }

  /**
   * The permissions of `role`: a built-in or instance role from the catalogue, an organization's
   * role from its stored permissions (JSON, read with the membership), undefined when the
   * organization has no such role.
   */
  permissionsOf(role: string, organizationRolePermissions: string | null | undefined): ReadonlySet<string> | undefined {
    const fixed = this.fixedRoles.get(role);
    if (fixed) return fixed.permissions;
    if (organizationRolePermissions == null) return undefined;
    let parsed = this.#parsed.get(organizationRolePermissions);
    if (!parsed) {
      if (this.#parsed.size >= PARSED_ROLES_KEPT) this.#parsed.clear();
      parsed = new Set(JSON.parse(organizationRolePermissions) as string[]);
      this.#parsed.set(organizationRolePermissions, parsed);
    }
    return parsed;
  }

  /**
   * Organization roles' permission sets by their stored JSON: a check of a member with such a role
   * parses it once, not on every request. Keyed by the content itself, so never stale.
   */
  readonly #parsed = new Map<string, ReadonlySet<string>>();
}
