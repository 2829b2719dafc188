/** The statements of an organization's API keys (behaviour §16): SQL only, no rules, nothing thrown. */
import { pagedList, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import type { ClockedReader } from '../../platform/authorization/memberships.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

const KEY_COLUMNS = [
  'k.id',
  'k.name',
  'k.role',
  'k.prefix',
  'k.created_by',
  'k.created_at',
  'k.expires_at',
  'k.last_used_at',
] as const;

/** The organization's keys that are not revoked (expired ones included), oldest first. */
const keyList = pagedList(
  (sql: Sql, organizationId: string) =>
    sql
      .selectFrom('api_keys as k')
      .select(KEY_COLUMNS)
      .where('k.organization_id', '=', organizationId)
      .where('k.revoked_at', 'is', null),
  { createdAt: 'k.created_at', id: 'k.id' },
);

export const keyRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  keyList(reader, reader.dialect, page, organizationId);

const oneKey = prepare((sql, organizationId: string, keyId: string) =>
  sql
    .selectFrom('api_keys as k')
    .select(KEY_COLUMNS)
    .where('k.organization_id', '=', organizationId)
    .where('k.id', '=', keyId)
    .where('k.revoked_at', 'is', null),
);

/** One key of the organization that is not revoked. */
export const keyRow = (reader: Reader, organizationId: string, keyId: string) =>
  reader.first(oneKey(reader.sql, organizationId, keyId));

export type KeyRow = NonNullable<Awaited<ReturnType<typeof keyRow>>>;

const keyToRevoke = prepare((sql, organizationId: string, keyId: string) =>
  sql
    .selectFrom('api_keys as k')
    .select(['k.id', 'k.name', 'k.role', 'k.prefix', 'k.secret_hash'])
    .where('k.organization_id', '=', organizationId)
    .where('k.id', '=', keyId)
    .where('k.revoked_at', 'is', null),
);

/** One key of the organization that is not revoked, with its secret's hash (never answered). */
export const keyRowToRevoke = (tx: Tx, organizationId: string, keyId: string) =>
  tx.first(keyToRevoke(tx.sql, organizationId, keyId));

const liveKeys = (sql: Sql, organizationId: string, now: DbTimestamp) =>
  sql
    .selectFrom('api_keys as k')
    .select((eb) => eb.fn.countAll<number | string>().as('keys'))
    .where('k.organization_id', '=', organizationId)
    .where('k.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now)]));

const allLiveKeys = prepare(liveKeys);

const liveKeysOfRole = prepare((sql, organizationId: string, now: DbTimestamp, role: string) =>
  liveKeys(sql, organizationId, now).where('k.role', '=', role),
);

/** How many keys of the organization are live, neither revoked nor expired: all of them, or those with `role`. */
export async function liveKeyCount(tx: Tx, organizationId: string, role?: string): Promise<number> {
  const query =
    role === undefined
      ? allLiveKeys(tx.sql, organizationId, tx.timestamp())
      : liveKeysOfRole(tx.sql, organizationId, tx.timestamp(), role);
  return Number((await tx.first(query))?.keys ?? 0);
}

export interface NewKey {
  id: string;
  organizationId: string;
  name: string;
  role: string;
  prefix: string;
  secretHash: string;
  createdBy: string;
  expiresAt: DbTimestamp | null;
}

export function insertKey(tx: Tx, key: NewKey): void {
  tx.later(
    tx.sql.insertInto('api_keys').values({
      id: key.id,
      organization_id: key.organizationId,
      name: key.name,
      role: key.role,
      prefix: key.prefix,
      secret_hash: key.secretHash,
      created_by: key.createdBy,
      created_at: tx.timestamp(),
      expires_at: key.expiresAt,
      revoked_at: null,
      last_used_at: null,
    }),
  );
}

export function revokeKeyRow(tx: Tx, keyId: string): void {
  tx.later(tx.sql.updateTable('api_keys').set({ revoked_at: tx.timestamp() }).where('id', '=', keyId));
}
