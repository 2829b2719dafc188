/**
 * Fills the word tables that Migration20261129100000_search_words adds (behaviour §15), for the
 * migrations of both dialects: every existing user's words and organization's words, folded as
 * the service folds them (shared/search.ts), and each membership's copy of its user's words.
 */
import type { Migration } from '@mikro-orm/migrations';
import { organizationWords, personWords } from '../shared/search.ts';

/** Rows a multi-row insert carries at most. */
const BATCH = 500;

async function insertRows(migration: Migration, table: string, columns: string[], rows: string[][]): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    const placeholders = batch.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    await migration.execute(`insert into ${table} (${columns.join(', ')}) values ${placeholders}`, batch.flat());
  }
}

export async function fillSearchWords(migration: Migration): Promise<void> {
  const users = (await migration.execute('select id, first_name, last_name, email from users')) as Array<{
    id: string;
    first_name: string;
    last_name: string;
    email: string;
  }>;
  const userRows = users.flatMap((user) =>
    personWords(user.first_name, user.last_name, user.email).map((word) => [user.id, word]),
  );
  await insertRows(migration, 'user_words', ['user_id', 'word'], userRows);
  await migration.execute(
    'insert into member_words (organization_id, user_id, word) select m.organization_id, m.user_id, w.word from organization_users m join user_words w on w.user_id = m.user_id',
  );
  const organizations = (await migration.execute('select id, name, slug from organizations')) as Array<{
    id: string;
    name: string;
    slug: string;
  }>;
  const organizationRows = organizations.flatMap((organization) =>
    organizationWords(organization.name, organization.slug).map((word) => [organization.id, word]),
  );
  await insertRows(migration, 'organization_words', ['organization_id', 'word'], organizationRows);
}
