/**
 * Behaviour §3.2 and §11, written out as permissions: what each built-in role may do without a
 * roles file. The unit test of the permission table and the integration test of the permission
 * endpoints both hold the service to it.
 */
import type { ServicePermission } from '../../server/platform/role-catalogue.ts';
import type { BuiltInRole } from '../../shared/fields.ts';

const ADMIN: ServicePermission[] = [
  'organization:read',
  'organization:update',
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
  'api_keys:manage',
  'domains:manage',
  'directory:sync',
];

export const EXPECTED: Record<BuiltInRole, ServicePermission[]> = {
  owner: [...ADMIN, 'organization:delete', 'ownership:transfer'],
  admin: ADMIN,
  member: ['organization:read', 'members:read', 'roles:read', 'teams:read'],
};
