/**
 * The statements of organizations (behaviour §4.2, §8): each builds, queues or runs SQL and
 * returns rows; none decides anything or throws. The rules are organizations.service.ts's.
 */
import { currentMemberCount, nowFor, unexpired, type ClockedReader } from '../../platform/authorization/memberships.ts';
import { pagedList, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import { afterCursor, orderOf, type SortedRequest } from '../../platform/database/sorted-pages.ts';
import type { StoredTimestamp } from '../../platform/database/timestamps.ts';
import type { Tx } from '../../platform/database/transaction.ts';
import { organizationMatches } from '../../platform/database/word-index.ts';

const organizationInsert = prepare(
  (sql, id: string, name: string, description: string, createdBy: string, slug: string, now: DbTimestamp) =>
    sql.insertInto('organizations').values({
      id,
      name,
      description,
      created_by: createdBy,
      slug,
      created_at: now,
      updated_at: now,
      version: 0,
    }),
);

export interface NewOrganization {
  id: string;
  name: string;
  description: string;
  createdBy: string;
  slug: string;
}

export function insertOrganization(tx: Tx, organization: NewOrganization): void {
  const { id, name, description, createdBy, slug } = organization;
  tx.later(organizationInsert(tx.sql, id, name, description, createdBy, slug, tx.timestamp()));
}

/** The slugs in use that are `base` or begin with `base-` (a slug holds no LIKE wildcard). */
export async function slugsLike(tx: Tx, base: string): Promise<Set<string>> {
  const rows = await tx.all(
    tx.sql
      .selectFrom('organizations')
      .select('slug')
      .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)])),
  );
  return new Set(rows.map((row) => row.slug));
}

const organizationsOfUser = pagedList(
  (sql: Sql, userId: string, now: DbTimestamp) =>
    sql
      .selectFrom('organization_users as m')
      .innerJoin('organizations as o', 'o.id', 'm.organization_id')
      .select(['o.id', 'o.name', 'o.description', 'o.created_by', 'o.created_at'])
      .where('m.user_id', '=', userId)
      .where(unexpired('m', now)),
  { createdAt: 'o.created_at', id: 'o.id' },
);

/** The organizations a user is a current member of, oldest first (then by id). */
export const organizationRowsOfUser = (reader: ClockedReader, userId: string, page: PageRequest) =>
  organizationsOfUser(reader, reader.dialect, page, userId, nowFor(reader));

const organizationDetails = prepare((sql, organizationId: string, now: DbTimestamp) =>
  sql
    .selectFrom('organizations as o')
    .select([
      'o.name',
      'o.description',
      'o.slug',
      'o.public_metadata',
      'o.private_metadata',
      'o.max_members',
      currentMemberCount('o', now).as('member_count'),
      'o.created_at',
      'o.updated_at',
    ])
    .where('o.id', '=', organizationId),
);

/** The organization's row, with its current member count (`currentMemberCount`, behaviour §11). */
export const organizationRow = (reader: ClockedReader, organizationId: string) =>
  reader.first(organizationDetails(reader.sql, organizationId, nowFor(reader)));

/** The fields of an organization a change may set. */
export interface OrganizationChanges {
  name?: string;
  description?: string;
  slug?: string;
  publicMetadata?: string;
  privateMetadata?: string;
  maxMembers?: number | null;
}

export function updateOrganizationRow(tx: Tx, organizationId: string, changes: OrganizationChanges): void {
  tx.later(
    tx.sql
      .updateTable('organizations')
      .set({
        name: changes.name,
        description: changes.description,
        slug: changes.slug,
        public_metadata: changes.publicMetadata,
        private_metadata: changes.privateMetadata,
        max_members: changes.maxMembers,
        updated_at: tx.timestamp(),
      })
      .where('id', '=', organizationId),
  );
}

/** Queues the delete of the organization; what rests on it goes by its foreign keys, its events stay. */
export function deleteOrganizationRow(tx: Tx, organizationId: string): void {
  tx.later(tx.sql.deleteFrom('organizations').where('id', '=', organizationId));
}

/** A page of the organizations a user is a current member of that a search finds (behaviour §15). */
export function searchedOrganizationRowsOfUser(
  reader: ClockedReader,
  userId: string,
  words: string[],
  request: SortedRequest<OrganizationOfUserRow>,
) {
  let query = reader.sql
    .selectFrom('organization_users as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.name', 'o.description', 'o.created_by', 'o.created_at'])
    .where('m.user_id', '=', userId)
    .where(unexpired('m', nowFor(reader)));
  for (const match of organizationMatches('o', words)) query = query.where(match);
  const after = afterCursor(request);
  if (after) query = query.where(after);
  for (const { ref, direction } of orderOf(request)) query = query.orderBy(ref, direction);
  return reader.all(query.limit(request.limit + 1));
}

export interface OrganizationOfUserRow {
  id: string;
  name: string;
  description: string;
  created_by: string;
  created_at: StoredTimestamp;
}
