/** POST /organizations/{organization_id}/permissions/check: what a member holds (behaviour §11, §12). */
import type { RowDataPacket } from 'mysql2/promise';
import { NONE, teamRolePermissions } from '../../server/platform/authorization/holdings.ts';
import { RoleCatalogue } from '../../server/platform/role-catalogue.ts';
import { MAX_PERMISSIONS_CHECKED } from '../../shared/permissions.ts';
import { PERMISSION_NAME } from '../../shared/roles.ts';
import { invalid, forbidden, JsonText, notInOrganization } from './errors.ts';
import { storedNow } from './events.ts';
import { text } from './input.ts';
import type { Caller } from './tokens.ts';
import { read, type Scope } from './transactions.ts';

/**
 * The service's own catalogue of the deployment's roles and permissions (ROLES_FILE), read once at
 * start: the baseline knows the same permission names and gives each role the same ones.
 */
const catalogue = process.env.ROLES_FILE ? RoleCatalogue.read(process.env.ROLES_FILE) : new RoleCatalogue();

/** A role's permissions: a built-in or instance role's, else an organization's own from its stored JSON. */
export const permissionsOfRole = (role: string, stored: string | null): ReadonlySet<string> =>
  catalogue.permissionsOf(role, stored) ?? NONE;

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
    if (!catalogue.isKnown(name)) throw invalid(`permissions.${index}`, `Unknown permission: ${name}`);
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
 * permissions are in the catalogue, an organization's own role's come from organization_roles.
 * (Measured on MariaDB, 20 teams: DISTINCT, GROUP BY or a GROUP_CONCAT subquery fold the rows in a
 * temporary table, 5 to 10 times the database's time; a UNION ALL of the membership and the team
 * roles, a third more.)
 * The fold is the baseline's own, not the service's holdingsByUser (authorization/holdings.ts): that
 * one takes rows as objects (these are read as arrays), collects and sorts each member's teams for
 * GET .../permissions, which a check does not need, and asks each team's set in turn on every
 * lookup, where this one merges them into one set as it reads, for the 20 lookups of a check.
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
    if (teamRole === null) continue;
    for (const name of teamRolePermissions(catalogue, teamRole, teamRoleStored)) {
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
