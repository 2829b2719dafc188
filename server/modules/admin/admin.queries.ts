/**
 * The statements of the application's lists (behaviour §16): every organization, every user, a
 * user's memberships, each oldest first and paged by keyset (sorted-pages.ts). SQL only.
 */
import { currentMemberCount, nowFor, unexpired, type ClockedReader } from '../../platform/authorization/memberships.ts';
import { afterCursor, orderOf, type SortedRequest } from '../../platform/database/sorted-pages.ts';
import type { StoredTimestamp } from '../../platform/database/timestamps.ts';
import { organizationMatches, userMatches } from '../../platform/database/word-index.ts';

export interface OrganizationRow {
  id: string;
  name: string;
  slug: string;
  description: string;
  created_by: string;
  created_at: StoredTimestamp;
  member_count: number | string;
}

export function organizationRows(reader: ClockedReader, words: string[], request: SortedRequest<OrganizationRow>) {
  let query = reader.sql
    .selectFrom('organizations as o')
    .select([
      'o.id',
      'o.name',
      'o.slug',
      'o.description',
      'o.created_by',
      'o.created_at',
      currentMemberCount('o', nowFor(reader)).as('member_count'),
    ]);
  for (const match of organizationMatches('o', words)) query = query.where(match);
  const after = afterCursor(request);
  if (after) query = query.where(after);
  for (const { ref, direction } of orderOf(request)) query = query.orderBy(ref, direction);
  return reader.all(query.limit(request.limit + 1));
}

export interface UserRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  created_at: StoredTimestamp;
  updated_at: StoredTimestamp;
}

export function userRows(reader: ClockedReader, words: string[], request: SortedRequest<UserRow>) {
  let query = reader.sql
    .selectFrom('users as u')
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'u.created_at', 'u.updated_at']);
  for (const match of userMatches('u', words)) query = query.where(match);
  const after = afterCursor(request);
  if (after) query = query.where(after);
  for (const { ref, direction } of orderOf(request)) query = query.orderBy(ref, direction);
  return reader.all(query.limit(request.limit + 1));
}

export const userExists = (reader: ClockedReader, userId: string) =>
  reader.first(reader.sql.selectFrom('users').select('id').where('id', '=', userId));

export interface MembershipRow {
  organization_id: string;
  organization_name: string;
  organization_slug: string;
  role: string;
  created_at: StoredTimestamp;
  expires_at: StoredTimestamp | null;
}

/** A user's current memberships. */
export function membershipRows(reader: ClockedReader, userId: string, request: SortedRequest<MembershipRow>) {
  let query = reader.sql
    .selectFrom('organization_users as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select([
      'm.organization_id',
      'o.name as organization_name',
      'o.slug as organization_slug',
      'm.role',
      'm.created_at',
      'm.expires_at',
    ])
    .where('m.user_id', '=', userId)
    .where(unexpired('m', nowFor(reader)));
  const after = afterCursor(request);
  if (after) query = query.where(after);
  for (const { ref, direction } of orderOf(request)) query = query.orderBy(ref, direction);
  return reader.all(query.limit(request.limit + 1));
}
