/**
 * Fills the organizations' columns that Migration20261129090000_machines_and_directory adds, for
 * the migrations of both dialects: each existing organization gets the slug its name gives
 * (behaviour §15), the oldest first, with the first free suffix when it is taken, and its count of
 * membership rows (the count its changes keep from now on).
 */
import type { Migration } from '@mikro-orm/migrations';
import { firstFreeSlug, slugOfName } from '../server/modules/organizations/slug.ts';

export async function fillOrganizationColumns(migration: Migration): Promise<void> {
  const organizations = (await migration.execute(
    'select id, name from organizations order by created_at, id',
  )) as Array<{
    id: string;
    name: string;
  }>;
  const taken = new Set<string>();
  for (const organization of organizations) {
    const slug = firstFreeSlug(slugOfName(organization.name), taken);
    taken.add(slug);
    await migration.execute('update organizations set slug = ? where id = ?', [slug, organization.id]);
  }
  await migration.execute(
    'update organizations set member_count = (select count(*) from organization_users m where m.organization_id = organizations.id)',
  );
}
