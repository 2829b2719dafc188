/**
 * An operation of the organization a key belongs to, named by nothing but the key (behaviour §18,
 * SCIM: an identity provider holds one organization's key and names no organization). The key's
 * organization is looked up by its hash; the rest is the one authorization path of every
 * operation in an organization (in-organization.ts): the guard reads the key again, checks it is
 * live and holds `requirement`, before anything the operation reads is handed back.
 */
import type { Caller } from '../auth/tokens.ts';
import type { Db } from '../database/transaction.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { RoleCatalogue, ServicePermission } from '../role-catalogue.ts';
import { OrganizationAccess } from './access.ts';
import { InOrganization } from './in-organization.ts';
import { organizationOfKey, recordKeyUse } from './keys.ts';

export async function inKeysOrganization<T>(
  db: Db,
  caller: Caller,
  requirement: ServicePermission,
  roles: RoleCatalogue,
  onKeyUseFailure: (error: unknown) => void,
  work: (org: InOrganization) => Promise<T>,
): Promise<T> {
  if (caller.kind !== 'organization_key') {
    throw forbidden(`This endpoint needs an organization API key holding ${requirement}`);
  }
  const organizationId = await organizationOfKey(db, caller.secretHash);
  if (organizationId === undefined) throw unauthorized('Invalid API key: unknown, revoked or expired');
  const access = new OrganizationAccess(
    { kind: 'organization_key', secretHash: caller.secretHash },
    organizationId,
    requirement,
    roles,
  );
  const org = new InOrganization(db, access);
  const result = await work(org);
  await org.settle();
  if (access.keyUse) recordKeyUse(db, access.keyUse).catch(onKeyUseFailure);
  return result;
}
