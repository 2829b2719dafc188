/**
 * Behaviour §3.2, written out as permissions: what each built-in role may do. The unit test of the
 * permission table and the integration test of the permission endpoints both hold the service to it.
 */
import type { Permission } from '../../server/platform/access.ts';
import type { Role } from '../../shared/fields.ts';

export const EXPECTED: Record<Role, Permission[]> = {
  owner: [
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
  ],
  admin: [
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
  ],
  member: ['organization:read', 'members:read'],
};
