/**
 * The application's lists across the service (behaviour §16): every organization and every user,
 * searched as the member list is (behaviour §15), and a user's memberships; oldest first, a page
 * at a time.
 */
import { searchWords } from '../../../shared/search.ts';
import type { AdminMembership, AdminOrganization, AdminUser } from '../../../shared/admin.ts';
import type { ClockedReader } from '../../platform/authorization/memberships.ts';
import type { Page } from '../../platform/database/pages.ts';
import {
  createdAtColumn,
  toSortedPage,
  type KeyColumn,
  type SortedRequest,
} from '../../platform/database/sorted-pages.ts';
import { isoTimestamp, isoTimestampOrNull, type StoredTimestamp } from '../../platform/database/timestamps.ts';
import { notFound } from '../../platform/errors.ts';
import {
  membershipRows,
  organizationRows,
  userExists,
  userRows,
  type MembershipRow,
  type OrganizationRow,
  type UserRow,
} from './admin.queries.ts';

export interface PageAsked {
  limit: number;
  cursor?: string | null;
}

/** Oldest first: (created_at, then the id column named). */
function oldestFirst<Row extends { created_at: StoredTimestamp }>(
  reader: ClockedReader,
  created: string,
  id: KeyColumn<Row>,
  words: string[],
  page: PageAsked,
): SortedRequest<Row> {
  return {
    key: [createdAtColumn<Row>(created, reader.dialect), id],
    descending: false,
    scope: [words],
    limit: page.limit,
    cursor: page.cursor,
  };
}

const wordsOf = (search: string | undefined) => (search === undefined ? [] : searchWords(search));

export async function listAllOrganizations(
  reader: ClockedReader,
  search: string | undefined,
  page: PageAsked,
): Promise<Page<AdminOrganization>> {
  const words = wordsOf(search);
  const request = oldestFirst<OrganizationRow>(
    reader,
    'o.created_at',
    { column: 'o.id', kind: 'string', read: (row) => row.id },
    words,
    page,
  );
  const rows = await organizationRows(reader, words, request);
  return toSortedPage(rows, request, (row) => ({
    ...row,
    created_at: isoTimestamp(row.created_at),
    member_count: Number(row.member_count),
  }));
}

export async function listAllUsers(
  reader: ClockedReader,
  search: string | undefined,
  page: PageAsked,
): Promise<Page<AdminUser>> {
  const words = wordsOf(search);
  const request = oldestFirst<UserRow>(
    reader,
    'u.created_at',
    { column: 'u.id', kind: 'string', read: (row) => row.id },
    words,
    page,
  );
  const rows = await userRows(reader, words, request);
  return toSortedPage(rows, request, (row) => ({
    ...row,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  }));
}

/** A user's current memberships, oldest first; 404 for a user the service does not know. */
export async function listMembershipsOfUser(
  reader: ClockedReader,
  userId: string,
  page: PageAsked,
): Promise<Page<AdminMembership>> {
  if (!(await userExists(reader, userId))) throw notFound('No user has this id');
  const request = oldestFirst<MembershipRow>(
    reader,
    'm.created_at',
    { column: 'm.organization_id', kind: 'string', read: (row) => row.organization_id },
    [userId],
    page,
  );
  const rows = await membershipRows(reader, userId, request);
  return toSortedPage(rows, request, (row) => ({
    ...row,
    created_at: isoTimestamp(row.created_at),
    expires_at: isoTimestampOrNull(row.expires_at),
  }));
}
