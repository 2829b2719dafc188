/**
 * An organization's API keys (behaviour §16): made by those who hold `api_keys:manage`, each with a
 * role of the organization given under the no-escalation rule, so a key never holds more than its
 * maker. The secret is made here from 32 random bytes, answered once and kept only as its SHA-256;
 * a key acts with its role's permissions as they are at each request (authorization/access.ts).
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { MAX_LIVE_API_KEYS, type ApiKeyView, type createApiKeyInput } from '../../../shared/api-keys.ts';
import type { Role } from '../../../shared/fields.ts';
import { KEY_PREFIXES, secretHashOf } from '../../platform/auth/tokens.ts';
import { withSecretShownOnce } from '../../platform/idempotency.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { assertMayGive } from '../../platform/authorization/rules.ts';
import { newId } from '../../platform/database/ids.ts';
import { toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { isoTimestamp, isoTimestampOrNull } from '../../platform/database/timestamps.ts';
import type { Tx } from '../../platform/database/transaction.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { appendEvent } from '../../platform/organization-changes.ts';
import {
  insertKey,
  keyRow,
  keyRowToRevoke,
  keyRows,
  liveKeyCount,
  revokeKeyRow,
  type KeyRow,
} from './api-keys.queries.ts';

/** How much of a secret a key shows as its prefix: `oak_` and eight characters. */
const PREFIX_LENGTH = 12;

const noSuchKey = () => notFound('The organization has no such API key (or it was revoked)');

const keyView = (row: KeyRow): ApiKeyView => ({
  key_id: row.id,
  name: row.name,
  role: row.role,
  prefix: row.prefix,
  created_by: row.created_by,
  created_at: isoTimestamp(row.created_at),
  expires_at: isoTimestampOrNull(row.expires_at),
  last_used_at: isoTimestampOrNull(row.last_used_at),
});

/** A new secret: the kind's prefix and 32 bytes from the system's cryptographic generator, base64url. */
export const newKeySecret = (kind: keyof typeof KEY_PREFIXES) =>
  `${KEY_PREFIXES[kind]}${randomBytes(32).toString('base64url')}`;

/**
 * Makes a key with a role of the organization other than owner, one the actor may give, at most
 * MAX_LIVE_API_KEYS live ones per organization (409).
 */
export async function createApiKey(
  org: InOrganization,
  input: z.infer<typeof createApiKeyInput>,
): Promise<ApiKeyView & { secret: string }> {
  const secret = newKeySecret('organization_key');
  return org.change(async (tx, change) => {
    const live = await liveKeyCount(tx, org.organizationId);
    await assertMayGive(tx, org.access, await change.held(), input.role);
    if (live >= MAX_LIVE_API_KEYS) {
      throw conflict(`The organization has ${MAX_LIVE_API_KEYS} live API keys, the most it may have: revoke one first`);
    }
    const { userId, keyId } = change.actor;
    const key = {
      id: newId(tx.now.getTime()),
      organizationId: org.organizationId,
      name: input.name,
      role: input.role,
      prefix: secret.slice(0, PREFIX_LENGTH),
      secretHash: secretHashOf(secret),
      createdBy: (userId ?? keyId)!,
      expiresAt: input.expires_at === undefined ? null : tx.timestamp(new Date(input.expires_at)),
    };
    insertKey(tx, key);
    const expiresAt = input.expires_at ?? null;
    await appendEvent(tx, change, {
      type: 'api_key.created',
      subjectUserId: null,
      data: { key_id: key.id, name: key.name, role: key.role, prefix: key.prefix, expires_at: expiresAt },
    });
    const created = {
      key_id: key.id,
      name: key.name,
      role: key.role,
      prefix: key.prefix,
      created_by: key.createdBy,
      created_at: tx.now.toISOString(),
      expires_at: expiresAt,
      last_used_at: null,
      secret,
    };
    return withSecretShownOnce(created, 'secret');
  });
}

/** The organization's keys that are not revoked, oldest first (expired ones too, to be revoked or told apart). */
export async function listApiKeys(org: InOrganization, page: PageRequest = {}): Promise<Page<ApiKeyView>> {
  const rows = await keyRows(org.reads, org.organizationId, page);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), keyView);
}

export async function getApiKey(org: InOrganization, keyId: string): Promise<ApiKeyView> {
  const row = await keyRow(org.reads, org.organizationId, keyId);
  if (!row) throw noSuchKey();
  return keyView(row);
}

/**
 * Revokes a key: from this change's commit on, every instance refuses it (it is read at each
 * request). `committed` is handed the hash of its secret before the answer (not on a replay).
 */
export async function revokeApiKey(
  org: InOrganization,
  keyId: string,
  committed: (secretHash: string) => Promise<void>,
): Promise<{ message: string }> {
  let revokedHash: string | undefined;
  const answer = await org.change(async (tx, change) => {
    const row = await keyRowToRevoke(tx, org.organizationId, keyId);
    if (!row) throw noSuchKey();
    revokeKeyRow(tx, row.id);
    await appendEvent(tx, change, {
      type: 'api_key.revoked',
      subjectUserId: null,
      data: { key_id: row.id, name: row.name, role: row.role, prefix: row.prefix },
    });
    revokedHash = row.secret_hash;
    return { message: 'API key revoked' };
  });
  if (revokedHash !== undefined) await committed(revokedHash);
  return answer;
}

/**
 * For the roles domain: how many live keys of the organization hold `role`. A key's role is read
 * at each of its requests, so a role deleted under a live key would leave it nothing, and give it
 * again a role made later with that name (behaviour §11).
 */
export const liveKeysWithRole = (tx: Tx, organizationId: string, role: Role): Promise<number> =>
  liveKeyCount(tx, organizationId, role);
