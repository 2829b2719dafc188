/** POST /organizations/{organization_id}/permissions/check: what a member holds (behaviour §11, §12). */
import type { RowDataPacket } from 'mysql2/promise';
import { readFileSync } from 'node:fs';
import { SERVICE_PERMISSIONS } from '../permissions.ts';
import { invalid, forbidden, JsonText, notInOrganization } from './errors.ts';
import { storedNow } from './events.ts';
import { text } from './input.ts';
import type { Caller } from './tokens.ts';
import { read, type Scope } from './transactions.ts';

// The roles, the permission names and their rules are the baseline's own, not the service's
// RoleCatalogue (role-catalogue.ts) and shared/roles.ts: those load zod and build its schemas, about
// 14 MB more resident memory for a bare Node process (47 to 61 MB), and the bench holds the service's
// peak RSS to 1.5 times the baseline's. The names are the bench's (bench/permissions.ts);
// bench:check-baseline holds the answers to the service's.
const PERMISSION_NAME = /^[a-z][a-z0-9_-]{0,39}:[a-z][a-z0-9_-]{0,39}$/;
const MAX_PERMISSIONS_CHECKED = 100;
const OWNERS_ONLY = new Set(['organization:delete', 'ownership:transfer']);
const MEMBERS_OWN = ['organization:read', 'members:read', 'roles:read', 'teams:read'];

/**
 * The application's permissions and their grants to `admin` and `member`, from the file ROLES_FILE
 * names ({"permissions": {name: description}, "roles": ..., "grants": {"admin": [...], "member":
 * [...]}}), none without it. The file is the bench's own, taken as valid.
 */
function readRolesFile(): {
  permissions: string[];
  admin: string[];
  member: string[];
  roles: Array<[string, string[]]>;
} {
  if (!process.env.ROLES_FILE) return { permissions: [], admin: [], member: [], roles: [] };
  const file = JSON.parse(readFileSync(process.env.ROLES_FILE, 'utf8'));
  return {
    permissions: Object.keys(file.permissions ?? {}),
    admin: file.grants?.admin ?? [],
    member: file.grants?.member ?? [],
    roles: Object.entries(file.roles ?? {}).map(([name, role]) => [
      name,
      (role as { permissions: string[] }).permissions,
    ]),
  };
}

const rolesFile = readRolesFile();
/** Every permission a check may name: the service's own and the application's. */
const KNOWN_PERMISSIONS: ReadonlySet<string> = new Set([...SERVICE_PERMISSIONS, ...rolesFile.permissions]);
/** The built-in roles: an owner holds every permission, an admin all but the owners' own, plus the grants. */
const ROLE_PERMISSIONS = new Map<string, ReadonlySet<string>>([
  ['owner', KNOWN_PERMISSIONS],
  ['admin', new Set([...SERVICE_PERMISSIONS.filter((name) => !OWNERS_ONLY.has(name)), ...rolesFile.admin])],
  ['member', new Set([...MEMBERS_OWN, ...rolesFile.member])],
  ...rolesFile.roles.map(([name, permissions]): [string, ReadonlySet<string>] => [name, new Set(permissions)]),
]);
const NONE: ReadonlySet<string> = new Set();
/** An organization's own roles' permissions by their stored JSON, parsed once each. */
const parsedRoles = new Map<string, ReadonlySet<string>>();

export function permissionsOfRole(role: string, stored: string | null): ReadonlySet<string> {
  const fixed = ROLE_PERMISSIONS.get(role);
  if (fixed) return fixed;
  if (stored === null) return NONE;
  let parsed = parsedRoles.get(stored);
  if (!parsed) parsedRoles.set(stored, (parsed = new Set(JSON.parse(stored) as string[])));
  return parsed;
}

interface CheckInput {
  permissions: string[];
  userId: string;
}

/** The body of a check: 1 to 100 distinct known names, and whose (default: the caller's). */
function checkInput(body: Record<string, unknown>, caller: Caller): CheckInput {
  const permissions = body.permissions;
  if (!Array.isArray(permissions)) throw invalid('permissions', 'expected an array');
  if (permissions.length < 1 || permissions.length > MAX_PERMISSIONS_CHECKED)
    throw invalid('permissions', `1 to ${MAX_PERMISSIONS_CHECKED} names`);
  for (let index = 0; index < permissions.length; index++) {
    const name = permissions[index];
    if (typeof name !== 'string' || !PERMISSION_NAME.test(name))
      throw invalid(`permissions.${index}`, 'Must be <resource>:<action>');
    if (!KNOWN_PERMISSIONS.has(name)) throw invalid(`permissions.${index}`, `Unknown permission: ${name}`);
    if (permissions.indexOf(name) !== index) throw invalid('permissions', `Names ${name} more than once`);
  }
  const userId = body.user_id === undefined ? caller.userId : text(body.user_id, 'user_id', 1, 128);
  return { permissions, userId };
}

/**
 * What the caller and `userId` (the caller again when they ask about themselves) hold in the
 * organization, by user id: their role's permissions and those of the roles their teams give
 * (behaviour §12); no entry for a non-member, or for a membership that has expired. One statement,
 * as the service's: one row per team role, at least one per member. A built-in or instance role's
 * permissions are in ROLE_PERMISSIONS, an organization's own role's come from organization_roles.
 * (Measured on MariaDB, 20 teams: DISTINCT, GROUP BY or a GROUP_CONCAT subquery fold the rows in a
 * temporary table, 5 to 10 times the database's time; a UNION ALL of the membership and the team
 * roles, a third more.)
 * The fold is the baseline's own, not the service's holdingsByUser (authorization/holdings.ts): that
 * module loads Kysely and, through the service's errors, MikroORM; its fold takes rows as objects
 * (these are read as arrays), collects and sorts each member's teams for GET .../permissions, which
 * a check does not need, and asks each team's set in turn on every lookup, where this one merges
 * them into one set as it reads, for the 20 lookups of a check.
 */
async function membersPermissions(
  scope: Scope,
  organizationId: string,
  callerId: string,
  userId: string,
): Promise<Map<string, ReadonlySet<string>>> {
  const rows = await read<RowDataPacket[][]>(scope, {
    sql: `select m.user_id, m.role, r.permissions, tr.role, trr.permissions from organization_users m
      left join organization_roles r on r.organization_id = m.organization_id and r.name = m.role
      left join team_members tm on tm.organization_id = m.organization_id and tm.user_id = m.user_id
      left join team_roles tr on tr.team_id = tm.team_id
      left join organization_roles trr on trr.organization_id = m.organization_id and trr.name = tr.role
      where m.organization_id = ? and m.user_id in (?, ?) and (m.expires_at is null or m.expires_at > ?)`,
    rowsAsArray: true,
    values: [organizationId, callerId, userId, storedNow()],
  });
  const held = new Map<string, ReadonlySet<string>>();
  // The sets made here, which may grow; the roles' own are shared and never change.
  const made = new Set<ReadonlySet<string>>();
  type Row = [string, string, string | null, string | null, string | null];
  for (const [user, role, stored, teamRole, teamRoleStored] of rows as unknown as Row[]) {
    let permissions = held.get(user);
    if (!permissions) held.set(user, (permissions = permissionsOfRole(role, stored)));
    // A team never gives `owner` (the service refuses it): skipped all the same, as the service does.
    if (teamRole === null || teamRole === 'owner') continue;
    for (const name of permissionsOfRole(teamRole, teamRoleStored)) {
      if (permissions.has(name)) continue;
      if (!made.has(permissions)) {
        held.set(user, (permissions = new Set(permissions)));
        made.add(permissions);
      }
      (permissions as Set<string>).add(name);
    }
  }
  return held;
}

/** Whether the user (default: the caller) holds each permission named; a non-member holds none. */
export async function checkPermissions(
  caller: Caller,
  organizationId: string,
  body: Record<string, unknown>,
  scope: Scope,
): Promise<[number, unknown]> {
  let input: CheckInput;
  try {
    input = checkInput(body, caller);
  } catch (error) {
    // A caller who may not act is told 403, whatever the body holds (behaviour §3.2).
    const held = await membersPermissions(scope, organizationId, caller.userId, caller.userId);
    throw held.has(caller.userId) ? error : notInOrganization();
  }
  const held = await membersPermissions(scope, organizationId, caller.userId, input.userId);
  const callers = held.get(caller.userId);
  if (!callers) throw notInOrganization();
  // Every built-in role holds both; an organization's own role need not.
  if (!callers.has('organization:read')) throw forbidden('You may not read this organization');
  if (input.userId !== caller.userId && !callers.has('members:read'))
    throw forbidden("Only a member who may read its members may check another member's permissions");
  const users = held.get(input.userId);
  let allowed = true;
  let results = '';
  for (const name of input.permissions) {
    const holds = users?.has(name) === true;
    allowed &&= holds;
    // A permission's name is of a-z, 0-9, `_`, `-` and one `:`: nothing to escape.
    results += `,"${name}":${holds}`;
  }
  return [
    200,
    new JsonText(`{"user_id":${JSON.stringify(input.userId)},"allowed":${allowed},"results":{${results.slice(1)}}}`),
  ];
}
