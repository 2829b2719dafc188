/**
 * An operation of the organization a key belongs to, named by nothing but the key (behaviour §18,
 * SCIM: an identity provider holds one organization's key and names no organization). Two steps:
 * `keysOrganization` lets the caller in, or refuses them, before the request's body is read
 * (behaviour §5: a request without a credential that verifies is 401 whatever its body holds);
 * `inKeysOrganization` then runs the operation on the one authorization path of every operation in
 * an organization (in-organization.ts): the guard reads the key again, checks it is live and holds
 * `requirement`, before anything the operation reads is handed back.
 *
 * Which organization a key's hash belongs to is kept once read (organizationByKey): it never
 * changes, a key being made in one organization and staying there, and it decides nothing, the
 * guard reading the key itself in each request. So an identity provider's reads after its first
 * save a round trip each. A request that will have its body read first reads the key's row afresh
 * instead, so that a revoked or expired key is refused before the body is; a read's revoked key is
 * refused by the guard. A key deleted with its organization is unknown (401), or, when its
 * organization was kept, refused by the change's lock (the organization is gone: 401, as for an
 * unknown key).
 */
import { LRUCache } from 'lru-cache';
import type { Caller } from '../auth/tokens.ts';
import type { Db } from '../database/transaction.ts';
import { forbidden } from '../errors.ts';
import type { RoleCatalogue, ServicePermission } from '../role-catalogue.ts';
import { OrganizationAccess } from './access.ts';
import { InOrganization } from './in-organization.ts';
import { invalidKey, liveKey, organizationOfKey, recordKeyUse, withLiveKey } from './keys.ts';

/** The most keys whose organization is kept: each entry is two short strings. */
const KEYS_KEPT = 10_000;

const organizationByKey = new LRUCache<string, string>({ max: KEYS_KEPT });

/** Access to the organization a key names by being its: when it is gone, so is the key. */
class KeysOwnOrganizationAccess extends OrganizationAccess {
  override missingOrganization = (): Error => invalidKey();
}

/** An organization key let in, with the organization it belongs to. */
export interface KeyOfOrganization {
  secretHash: string;
  organizationId: string;
}

async function knownKeysOrganization(db: Db, secretHash: string): Promise<string> {
  const kept = organizationByKey.get(secretHash);
  if (kept !== undefined) return kept;
  const organizationId = await organizationOfKey(db, secretHash);
  if (organizationId === undefined) throw invalidKey();
  organizationByKey.set(secretHash, organizationId);
  return organizationId;
}

/** The organization of the live key with this hash (`liveKey`'s read); one that is not live is 401. */
async function liveKeysOrganization(db: Db, secretHash: string): Promise<string> {
  const organizationId = (await liveKey(db, 'organization_key', secretHash))?.organizationId;
  if (organizationId === undefined) throw invalidKey();
  organizationByKey.set(secretHash, organizationId);
  return organizationId;
}

/**
 * The organization `caller` acts in as its key, or the refusal: a person is 403, an application
 * key 403 once known to be live and 401 otherwise (behaviour §16), an unknown organization key 401.
 * `beforeBody`: the request's body is read next, so the key must be live now (401 otherwise).
 */
export async function keysOrganization(
  db: Db,
  caller: Caller,
  requirement: ServicePermission,
  onKeyUseFailure: (error: unknown) => void,
  { beforeBody }: { beforeBody: boolean },
): Promise<KeyOfOrganization> {
  if (caller.kind !== 'organization_key') {
    const refused = () => forbidden(`This endpoint needs an organization API key holding ${requirement}`);
    if (caller.kind === 'person') throw refused();
    // An application key is refused once known to be live: an unknown, revoked or expired one is
    // 401, as everywhere (behaviour §16).
    return withLiveKey(db, caller, onKeyUseFailure, () => {
      throw refused();
    });
  }
  const { secretHash } = caller;
  const organizationId = beforeBody
    ? await liveKeysOrganization(db, secretHash)
    : await knownKeysOrganization(db, secretHash);
  return { secretHash, organizationId };
}

/** `work` as an operation of the key's organization (`keysOrganization`'s) that needs `requirement`. */
export async function inKeysOrganization<T>(
  db: Db,
  { secretHash, organizationId }: KeyOfOrganization,
  requirement: ServicePermission,
  roles: RoleCatalogue,
  onKeyUseFailure: (error: unknown) => void,
  work: (org: InOrganization) => Promise<T>,
): Promise<T> {
  const access = new KeysOwnOrganizationAccess(
    { kind: 'organization_key', secretHash },
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
