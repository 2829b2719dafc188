/**
 * The permissions the bench asks about (behaviour §11) and the ROLES_FILE its servers start with:
 * the service's own permissions and three application permissions that the file declares, 20 names
 * for (j), the 20-permission check. The baseline (bench/baseline/permissions.ts) holds the same
 * service permissions.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The service's own permissions. */
export const SERVICE_PERMISSIONS = [
  'organization:read',
  'organization:update',
  'organization:delete',
  'ownership:transfer',
  'members:read',
  'members:add',
  'members:update',
  'members:remove',
  'invitations:read',
  'invitations:create',
  'invitations:revoke',
  'events:read',
  'roles:read',
  'roles:manage',
  'teams:read',
  'teams:manage',
  'webhooks:manage',
];

/** What the bench's ROLES_FILE declares: the application's permissions, `admin` granted all, `member` two. */
export const ROLES_FILE_CONTENT = {
  permissions: {
    'reports:read': 'read reports',
    'reports:export': 'export reports',
    'billing:read': 'read billing',
  },
  roles: {},
  grants: {
    admin: ['reports:read', 'reports:export', 'billing:read'],
    member: ['reports:read', 'billing:read'],
  },
};

/** The 20 distinct names (j) checks: the service's own, then the application's. */
export const CHECKED_PERMISSIONS = [...SERVICE_PERMISSIONS, ...Object.keys(ROLES_FILE_CONTENT.permissions)];

/** Writes the bench's ROLES_FILE (the same content on every call) and returns its path. */
export async function writeRolesFile(): Promise<string> {
  const path = join(tmpdir(), 'orgs-bench-roles.json');
  await writeFile(path, JSON.stringify(ROLES_FILE_CONTENT, null, 2));
  return path;
}

/**
 * Which of `names` the server at `baseUrl` does not know: a check of them all by `token`, a member
 * of `organizationId`, is a 400 whose issues name each unknown one (`permissions.<index>`).
 */
export async function unknownPermissions(
  baseUrl: string,
  token: string,
  organizationId: string,
  names: string[],
): Promise<string[]> {
  const response = await fetch(`${baseUrl}/organizations/${organizationId}/permissions/check`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ permissions: names }),
  });
  const body = await response.json();
  if (response.status === 200) return [];
  if (response.status !== 400) throw new Error(`permission check: ${response.status} ${JSON.stringify(body)}`);
  const issues: { field: string }[] = body.issues ?? [];
  return issues.flatMap(({ field }) => {
    const index = /^permissions\.(\d+)$/.exec(field)?.[1];
    return index === undefined ? [] : [names[Number(index)]!];
  });
}
