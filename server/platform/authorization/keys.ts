/**
 * Keys as actors (behaviour §16): an organization's API key acts in its organization with its
 * role's permissions as they are at each request; an application key acts in every organization
 * with every permission. Each is found by the hash of its secret (auth/tokens.ts) in one indexed
 * read, the request's guard (access.ts): a missing key and a wrong one cost the same read, and the
 * stored hash is compared again in constant time. `last_used_at` is kept to the minute, written
 * after the request when the one read is older.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Compilable } from 'kysely';
import type { ScalarGuard } from '../database/guarded-reads.ts';
import { prepare } from '../database/prepared.ts';
import type { DbTimestamp, Sql } from '../database/schema.ts';
import { toDate, type StoredTimestamp } from '../database/timestamps.ts';
import type { Db, Reader } from '../database/transaction.ts';
import { unauthorized } from '../errors.ts';

/** How stale `last_used_at` may be: it is written again once it is older. */
const LAST_USE_PRECISION_MS = 60_000;

/** What the guard reads of an organization key: its row, with its role's permissions when the role is the organization's own. */
const ORGANIZATION_KEY_COLUMNS = [
  'k.id',
  'k.organization_id',
  'k.role',
  'k.secret_hash',
  'k.expires_at',
  'k.revoked_at',
  'k.last_used_at',
  'r.permissions',
] as const;

/** The row's fields, as the statement names its columns. */
const ORGANIZATION_KEY_FIELDS = ORGANIZATION_KEY_COLUMNS.map((column) => column.slice(2));

const organizationKeys = (sql: Sql, secretHash: string) =>
  sql
    .selectFrom('api_keys as k')
    .leftJoin('organization_roles as r', (join) =>
      join.onRef('r.organization_id', '=', 'k.organization_id').onRef('r.name', '=', 'k.role'),
    )
    .where('k.secret_hash', '=', secretHash);

/** An organization key's row (ORGANIZATION_KEY_COLUMNS). */
export const organizationKeyRow = prepare((sql, secretHash: string) =>
  organizationKeys(sql, secretHash).select(ORGANIZATION_KEY_COLUMNS),
);

type OrganizationKeyRow = ReturnType<typeof organizationKeyRow> extends Compilable<infer Row> ? Row : never;

/** organizationKeyRow's columns as one value, a JSON array of them in order; never run on its own. */
const organizationKeyValue = prepare(
  (sql, secretHash: string) =>
    organizationKeys(sql, secretHash).select((eb) =>
      eb.fn<string>('json_array', [...ORGANIZATION_KEY_COLUMNS]).as('key'),
    ),
  { serverSide: false },
);

/**
 * organizationKeyRow as a guard of one value, to go as a column of the read it goes with
 * (database/guarded-reads.ts). MariaDB writes each column in the JSON array as the driver returns it
 * alone: text, null, and a timestamp as its `datetime(3)` text.
 */
export const organizationKeyAsColumn = (sql: Sql, secretHash: string): ScalarGuard<OrganizationKeyRow> => ({
  asColumn: () => organizationKeyValue(sql, secretHash).compile(),
  resultOf: (value) => {
    if (value === null) return { rows: [] };
    const values = (typeof value === 'string' ? JSON.parse(value) : value) as unknown[];
    const row: Record<string, unknown> = {};
    for (let index = 0; index < ORGANIZATION_KEY_FIELDS.length; index++)
      row[ORGANIZATION_KEY_FIELDS[index]!] = values[index];
    return { rows: [row as OrganizationKeyRow] };
  },
});

/** An application key's row, with the organization it acts in (null: there is no such organization). */
export const applicationKeyInOrganization = prepare((sql, secretHash: string, organizationId: string) =>
  sql
    .selectFrom('application_keys as k')
    .leftJoin('organizations as o', (join) => join.on('o.id', '=', organizationId))
    .select(['k.id', 'k.secret_hash', 'k.revoked_at', 'k.last_used_at', 'o.id as organization_id'])
    .where('k.secret_hash', '=', secretHash),
);

const applicationKey = prepare((sql, secretHash: string) =>
  sql
    .selectFrom('application_keys as k')
    .select(['k.id', 'k.secret_hash', 'k.revoked_at', 'k.last_used_at'])
    .where('k.secret_hash', '=', secretHash),
);

/** An application key's row, outside any organization (the admin lists, creating an organization). */
export const applicationKeyRow = (reader: Reader, secretHash: string) =>
  reader.first(applicationKey(reader.sql, secretHash));

/** Whether the stored hash is the one asked for, compared in constant time. */
export function sameHash(stored: string, asked: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(asked);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether a key is live at `now`: not revoked, not expired. */
export const isLive = (
  row: { revoked_at: StoredTimestamp | null; expires_at?: StoredTimestamp | null },
  now: Date,
): boolean => row.revoked_at === null && (row.expires_at == null || toDate(row.expires_at) > now);

/** A key whose `last_used_at` is to be written after the request. */
export interface KeyUse {
  table: 'api_keys' | 'application_keys';
  keyId: string;
}

/** The use to record, when the stored `last_used_at` is older than its precision. */
export function useToRecord(
  table: KeyUse['table'],
  keyId: string,
  lastUsedAt: StoredTimestamp | null,
  now: Date,
): KeyUse | undefined {
  const stale = lastUsedAt === null || toDate(lastUsedAt).getTime() <= now.getTime() - LAST_USE_PRECISION_MS;
  return stale ? { table, keyId } : undefined;
}

const organizationKeyUse = prepare((sql, keyId: string, now: DbTimestamp, staleBefore: DbTimestamp) =>
  sql
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleBefore)])),
);

const applicationKeyUse = prepare((sql, keyId: string, now: DbTimestamp, staleBefore: DbTimestamp) =>
  sql
    .updateTable('application_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleBefore)])),
);

/**
 * Writes a key's `last_used_at`, unless an instance has written a fresh one since: one statement of
 * its own, outside the request's, whose failure costs nothing but the minute's precision.
 */
export async function recordKeyUse(db: Db, { table, keyId }: KeyUse): Promise<void> {
  const now = new Date();
  const staleBefore = db.timestamp(new Date(now.getTime() - LAST_USE_PRECISION_MS));
  const update = table === 'api_keys' ? organizationKeyUse : applicationKeyUse;
  await db.run(update(db.sql, keyId, db.timestamp(now), staleBefore));
}

const organizationKeyLiveness = prepare((sql, secretHash: string) =>
  sql
    .selectFrom('api_keys as k')
    .select(['k.id', 'k.organization_id', 'k.secret_hash', 'k.expires_at', 'k.revoked_at', 'k.last_used_at'])
    .where('k.secret_hash', '=', secretHash),
);

/** What `liveKey` reads of a key of either kind: an organization key's row names its organization. */
interface KeyLivenessRow {
  id: string;
  organization_id?: string;
  secret_hash: string;
  expires_at?: StoredTimestamp | null;
  revoked_at: StoredTimestamp | null;
  last_used_at: StoredTimestamp | null;
}

/** A live key, as `liveKey` finds it. */
export interface LiveKey {
  id: string;
  /** An organization key's organization; an application key has none. */
  organizationId: string | undefined;
  /** The use to record after the request, when its `last_used_at` is stale. */
  use: KeyUse | undefined;
}

/**
 * The live key of this kind with this secret's hash, or undefined: for what is not an
 * organization's operation (a person's own data, the admin lists), where the guard does not read
 * it, and for letting in a key that names its organization by being its (key-organization.ts).
 */
export async function liveKey(
  reader: Reader,
  kind: 'organization_key' | 'application_key',
  secretHash: string,
): Promise<LiveKey | undefined> {
  const row: KeyLivenessRow | undefined =
    kind === 'organization_key'
      ? await reader.first(organizationKeyLiveness(reader.sql, secretHash))
      : await applicationKeyRow(reader, secretHash);
  const now = new Date();
  if (!row || !sameHash(row.secret_hash, secretHash) || !isLive(row, now)) return undefined;
  const table = kind === 'organization_key' ? 'api_keys' : 'application_keys';
  return {
    id: row.id,
    organizationId: row.organization_id,
    use: useToRecord(table, row.id, row.last_used_at, now),
  };
}

/** A key that is not live: unknown, revoked or expired (401, behaviour §16). */
export const invalidKey = () => unauthorized('Invalid API key: unknown, revoked or expired');

/**
 * For what is not an organization's operation: the key must be live (else 401); `then` acts with
 * its id, and the key's use is recorded after, whatever `then` answered, as the guard's is in an
 * organization. `onUseFailure` hears of a record that failed, which costs only the minute's precision.
 */
export async function withLiveKey<Result>(
  db: Db,
  { kind, secretHash }: { kind: 'organization_key' | 'application_key'; secretHash: string },
  onUseFailure: (error: unknown) => void,
  then: (keyId: string) => Promise<Result>,
): Promise<Result> {
  const key = await liveKey(db, kind, secretHash);
  if (key === undefined) throw invalidKey();
  try {
    return await then(key.id);
  } finally {
    if (key.use) recordKeyUse(db, key.use).catch(onUseFailure);
  }
}

const keyOrganization = prepare((sql, secretHash: string) =>
  sql.selectFrom('api_keys').select('organization_id').where('secret_hash', '=', secretHash),
);

/** The organization of the organization key with this secret's hash, if there is one (live or not: the guard checks). */
export const organizationOfKey = async (reader: Reader, secretHash: string): Promise<string | undefined> =>
  (await reader.first(keyOrganization(reader.sql, secretHash)))?.organization_id;
