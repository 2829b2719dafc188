/** One member read by an organization's API key (behaviour §16): the bench's read (m). */
import type { RowDataPacket } from 'mysql2/promise';
import { createHash, timingSafeEqual } from 'node:crypto';
import { forbidden, HttpError } from './errors.ts';
import { storedNow } from './events.ts';
import { memberAnswer } from './memberships.ts';
import { permissionsOfRole } from './permissions.ts';
import { pool, read, type Scope } from './transactions.ts';

export const KEY_BEARER = 'Bearer oak_';
const KEY_SECRET = /^oak_[A-Za-z0-9_-]{43}$/;
/** How stale a key's `last_used_at` may be before it is written again, as the service keeps it. */
const LAST_USE_PRECISION_MS = 60_000;
const invalidKey = () => new HttpError(401, 'UNAUTHORIZED', 'Invalid API key: unknown, revoked or expired');

/**
 * One member, read by an organization's API key, as the service serves it (behaviour §16): the key
 * found by the SHA-256 of its secret, in the same statement as the member (so a key revoked a moment
 * ago is refused at once), live (not revoked, not expired), of this organization, and its role
 * holding `members:read` as the role is now; its `last_used_at` written after the answer when it is
 * older than a minute, by a statement of its own whose failure costs nothing but that precision.
 */
export async function getMemberByKey(
  authorization: string,
  organizationId: string,
  userId: string,
  scope: Scope,
): Promise<[number, unknown]> {
  const secret = authorization.slice('Bearer '.length);
  if (!KEY_SECRET.test(secret)) throw new HttpError(401, 'UNAUTHORIZED', 'Invalid API key');
  const hash = createHash('sha256').update(secret).digest('base64url');
  const now = storedNow();
  const rows = await read<RowDataPacket[]>(scope, {
    sql: `select k.id as key_id, k.organization_id as key_organization_id, k.role as key_role, k.secret_hash,
       k.expires_at as key_expires_at, k.revoked_at, k.last_used_at, r.permissions as key_role_permissions,
       m.user_id, m.role, m.created_at, m.updated_at, u.first_name, u.last_name, u.email, m.expires_at
     from api_keys k
     left join organization_roles r on r.organization_id = k.organization_id and r.name = k.role
     left join organization_users m on m.organization_id = k.organization_id and m.user_id = ?
       and (m.expires_at is null or m.expires_at > ?)
     left join users u on u.id = m.user_id
     where k.secret_hash = ?`,
    values: [userId, now, hash],
  });
  const key = rows[0];
  const stored = key && Buffer.from(key.secret_hash as string);
  if (!key || !timingSafeEqual(stored!, Buffer.from(hash)) || key.revoked_at !== null) throw invalidKey();
  if (key.key_expires_at !== null && key.key_expires_at <= now) throw invalidKey();
  if (key.key_organization_id !== organizationId) throw forbidden('This API key belongs to another organization');
  if (!permissionsOfRole(key.key_role, key.key_role_permissions).has('members:read'))
    throw forbidden('The key may not read members (members:read)');
  // Stored timestamps and storedNow's are one format: they compare as strings.
  const staleBefore = new Date(Date.now() - LAST_USE_PRECISION_MS).toISOString().slice(0, 23).replace('T', ' ');
  if (key.last_used_at === null || key.last_used_at <= staleBefore) {
    pool
      .execute('update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at <= ?)', [
        now,
        key.key_id,
        staleBefore,
      ])
      .catch(() => undefined);
  }
  return memberAnswer(organizationId, key);
}
