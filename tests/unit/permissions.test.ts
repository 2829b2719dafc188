import { describe, expect, it } from 'vitest';
import { appRouter } from '../../server/modules/router.ts';
import { ANY_MEMBER, requirementName, type Requirement } from '../../server/platform/authorization/access.ts';
import { assertCanChange, assertKeepsAnOwner } from '../../server/platform/authorization/rules.ts';
import { RoleCatalogue, SERVICE_PERMISSIONS, type ServicePermission } from '../../server/platform/role-catalogue.ts';
import { procedureMetas } from '../../server/platform/rpc/init.ts';
import { type Role, ROLES } from '../../shared/fields.ts';
import { EXPECTED } from '../support/permissions.ts';

const codeOf = (action: () => void): string | undefined => {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as { code: string }).code;
  }
};

/**
 * Each operation and who may call it: a permission in the organization (or any member), or any
 * caller, or a creator; `or self` where acting on oneself needs only membership; `and … for`
 * another permission where an input field, given, needs it.
 */
const OPERATIONS: Record<
  string,
  | Requirement
  | `${ServicePermission} or self`
  | `${ServicePermission} or ${ServicePermission}`
  | `${ServicePermission}, and ${ServicePermission} for ${string}`
  | 'caller'
  | 'anyone'
  | 'creator'
  | 'application'
> = {
  'users.create': 'creator',
  'users.me': 'caller',
  'permissions.catalogue': 'anyone',
  'users.update': 'caller',
  'account.export': 'caller',
  'account.delete': 'caller',
  'organizations.list': 'caller',
  'organizations.page': 'caller',
  'organizations.create': 'creator',
  'organizations.get': 'organization:read',
  'organizations.getBySlug': 'organization:read',
  'organizations.update': 'organization:update',
  // The private metadata is the application key's (behaviour §16).
  'organizations.updateMetadata': 'organization:update, and metadata:private for private_metadata',
  'organizations.setLimits': 'organization:limits',
  'organizations.remove': 'organization:delete',
  'organizations.transferOwnership': 'ownership:transfer',
  'members.add': 'members:add',
  'members.changeRole': 'members:update',
  // Or leaving (behaviour §3.2).
  'members.remove': 'members:remove or self',
  'members.get': 'members:read',
  'members.list': 'members:read',
  'members.page': 'members:read',
  'members.details': 'members:read',
  'members.updateMetadata': 'members:update',
  'invitations.create': 'invitations:create',
  'invitations.list': 'invitations:read',
  'invitations.revoke': 'invitations:revoke',
  'invitations.mine': 'caller',
  'invitations.accept': 'caller',
  'invitations.decline': 'caller',
  'events.list': 'events:read',
  'events.page': 'events:read',
  'events.watch': 'events:read',
  'permissions.mine': ANY_MEMBER,
  // About oneself, any member (behaviour §11).
  'permissions.check': 'members:read or self',
  'roles.list': 'roles:read',
  'roles.create': 'roles:manage',
  'roles.update': 'roles:manage',
  'roles.remove': 'roles:manage',
  'teams.list': 'teams:read',
  'teams.page': 'teams:read',
  'teams.create': 'teams:manage',
  'teams.get': 'teams:read',
  'teams.update': 'teams:manage',
  'teams.remove': 'teams:manage',
  'teams.members': 'teams:read',
  'teams.membersPage': 'teams:read',
  'teams.addMember': 'teams:manage',
  // Or the member themselves (behaviour §12).
  'teams.removeMember': 'teams:manage or self',
  'teams.mine': 'caller',
  'webhooks.list': 'webhooks:manage',
  'webhooks.page': 'webhooks:manage',
  'webhooks.create': 'webhooks:manage',
  'webhooks.get': 'webhooks:manage',
  'webhooks.update': 'webhooks:manage',
  'webhooks.remove': 'webhooks:manage',
  'webhooks.rotateSecret': 'webhooks:manage',
  'webhooks.deliveries': 'webhooks:manage',
  'webhooks.deliveriesPage': 'webhooks:manage',
  'webhooks.retryDelivery': 'webhooks:manage',
  'webhooks.sendTest': 'webhooks:manage',
  'apiKeys.create': 'api_keys:manage',
  'apiKeys.list': 'api_keys:manage',
  'apiKeys.page': 'api_keys:manage',
  'apiKeys.get': 'api_keys:manage',
  'apiKeys.revoke': 'api_keys:manage',
  'admin.organizations': 'application',
  'admin.organizationsPage': 'application',
  'admin.users': 'application',
  'admin.usersPage': 'application',
  'admin.userMemberships': 'application',
  'admin.userMembershipsPage': 'application',
  'domains.add': 'domains:manage',
  'domains.list': 'domains:manage',
  'domains.page': 'domains:manage',
  'domains.get': 'domains:manage',
  'domains.verify': 'domains:manage',
  'domains.update': 'domains:manage',
  'domains.remove': 'domains:manage',
  'directory.get': 'directory:sync or domains:manage',
  'directory.update': 'directory:sync or domains:manage',
  'directory.users': 'directory:sync or domains:manage',
  'directory.usersPage': 'directory:sync or domains:manage',
  'directory.groups': 'directory:sync or domains:manage',
  'directory.groupsPage': 'directory:sync or domains:manage',
  'joining.suggestions': 'caller',
  'joining.join': 'caller',
  'joining.requests': 'members:add',
  'joining.requestsPage': 'members:add',
  'joining.approve': 'members:add',
  'joining.reject': 'members:add',
  'joining.mine': 'caller',
  'joining.withdraw': 'caller',
};

describe('permissions (behaviour §3.2)', () => {
  it('are named by every operation where it is declared, one each, and no operation goes without', () => {
    const declared = Object.fromEntries(
      procedureMetas(appRouter).map(([path, meta]) => [
        path,
        meta?.permission
          ? `${requirementName(meta.permission)}${meta.orSelf ? ' or self' : ''}${
              meta.whenGiven ? `, and ${meta.whenGiven.may} for ${meta.whenGiven.field}` : ''
            }`
          : (meta?.access ?? 'none'),
      ]),
    );
    expect(declared).toEqual(OPERATIONS);
  });

  it('are held by each built-in role exactly as behaviour §3.2 and §11 say', () => {
    const catalogue = new RoleCatalogue();
    for (const role of ROLES) {
      const held = catalogue.permissionsOf(role, null)!;
      for (const permission of Object.keys(SERVICE_PERMISSIONS) as ServicePermission[]) {
        expect(held.has(permission), `${role} ${permission}`).toBe(EXPECTED[role].includes(permission));
      }
      expect([...held].sort()).toEqual([...EXPECTED[role]].sort());
    }
  });

  it('keeps granting ownership and touching owners to owners', () => {
    for (const target of [undefined, ...ROLES]) {
      for (const next of [undefined, ...ROLES]) {
        expect(codeOf(() => assertCanChange('owner', target, next))).toBeUndefined();
        const adminMay = next !== 'owner' && target !== 'owner';
        expect(codeOf(() => assertCanChange('admin', target, next))).toBe(adminMay ? undefined : 'FORBIDDEN');
      }
    }
  });

  it('refuses to leave an organization without an owner', () => {
    const cases: Array<[Role, Role | undefined, number, string | undefined]> = [
      ['owner', 'admin', 1, 'CONFLICT'],
      ['owner', undefined, 1, 'CONFLICT'],
      ['owner', 'owner', 1, undefined],
      ['owner', 'member', 2, undefined],
      ['admin', 'member', 1, undefined],
    ];
    for (const [target, next, owners, expected] of cases) {
      expect(codeOf(() => assertKeepsAnOwner(target, next, owners))).toBe(expected);
    }
  });
});
