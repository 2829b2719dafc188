/**
 * An operation of the organization a key belongs to, named by nothing but the key (behaviour §18,
 * SCIM: an identity provider holds one organization's key and names no organization). The key's
 * organization is looked up by its hash; the rest is the one authorization path of every
 * operation in an organization (in-organization.ts): the guard reads the key again, checks it is
 * live and holds `requirement`, before anything the operation reads is handed back.
 *
 * Which organization a key's hash belongs to is kept once read (organizationByKey): it never
 * changes, a key being made in one organization and staying there, and it decides nothing, the
 * guard reading the key itself in each request. So an identity provider's requests after its first
 * save a round trip each. A key revoked since is refused by the guard; one deleted with its
 * organization, by the change's lock (the organization is gone: 401, as for an unknown key).
 */
import { LRUCache } from 'lru-cache';
import type { Caller } from '../auth/tokens.ts';
import type { Db } from '../database/transaction.ts';
import { forbidden } from '../errors.ts';
import type { RoleCatalogue, ServicePermission } from '../role-catalogue.ts';
import { OrganizationAccess } from './access.ts';
import { InOrganization } from './in-organization.ts';
import { invalidKey, organizationOfKey, recordKeyUse, withLiveKey } from './keys.ts';

/** The most keys whose organization is kept: each entry is two short strings. */
const KEYS_KEPT = 10_000;

const organizationByKey = new LRUCache<string, string>({ max: KEYS_KEPT });

/** Access to the organization a key names by being its: when it is gone, so is the key. */
class KeysOwnOrganizationAccess extends OrganizationAccess {
  override missingOrganization = (): Error => invalidKey();
}

async function keysOrganization(db: Db, secretHash: string): Promise<string> {
  const kept = organizationByKey.get(secretHash);
  if (kept !== undefined) return kept;
  const organizationId = await organizationOfKey(db, secretHash);
  if (organizationId === undefined) throw invalidKey();
  organizationByKey.set(secretHash, organizationId);
  return organizationId;
}

export async function inKeysOrganization<T>(
  db: Db,
  caller: Caller,
  requirement: ServicePermission,
  roles: RoleCatalogue,
  onKeyUseFailure: (error: unknown) => void,
  work: (org: InOrganization) => Promise<T>,
): Promise<T> {
  if (caller.kind !== 'organization_key') {
    const refused = () => forbidden(`This endpoint needs an organization API key holding ${requirement}`);
    if (caller.kind === 'person') throw refused();
    // An application key is refused once known to be live: an unknown, revoked or expired one is
    // 401, as everywhere (behaviour §16).
    return withLiveKey(db, caller, onKeyUseFailure, () => {
      throw refused();
    });
  }
  const organizationId = await keysOrganization(db, caller.secretHash);
  const access = new KeysOwnOrganizationAccess(
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
