/**
 * Fills the word tables that Migration20261129100000_search_words adds (behaviour §15), for the
 * migrations of both dialects: every existing user's words and organization's words, folded as
 * the service folds them (shared/search.ts), and each membership's copy of its user's words; and
 * folds anew the words of text that is not all ASCII when the folding changes
 * (Migration20261201120000_case_folded_words).
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

type UserRow = { id: string; first_name: string; last_name: string; email: string };
type OrganizationRow = { id: string; name: string; slug: string };

/** Rows the refolding reads and replaces the words of at a time. */
const REFOLD_BATCH = 500;

/**
 * The rows of `table` whose `columns` are not all ASCII, `REFOLD_BATCH` at a time in the order of
 * their ids, each batch handed to `refold` with its ids and as many `?` for them before the next
 * is read. `notAscii` is the dialect's SQL for "this column holds a character outside ASCII".
 */
async function eachBatchNotAscii<Row extends { id: string }>(
  migration: Migration,
  table: string,
  columns: string[],
  notAscii: (column: string) => string,
  refold: (rows: Row[], ids: string[], placeholders: string) => Promise<void>,
): Promise<void> {
  const condition = columns.map(notAscii).join(' or ');
  let after = '';
  for (;;) {
    const rows = (await migration.execute(
      `select id, ${columns.join(', ')} from ${table} where id > ? and (${condition}) order by id limit ${REFOLD_BATCH}`,
      [after],
    )) as Row[];
    if (rows.length === 0) return;
    const ids = rows.map((row) => row.id);
    await refold(rows, ids, ids.map(() => '?').join(', '));
    after = ids.at(-1)!;
  }
}

/**
 * Replaces the words of the users and organizations whose text holds a character outside ASCII,
 * and the memberships' copies of those users' words, with the words the service folds now
 * (shared/search.ts, foldText). ASCII text folds as it did before, so its words stay.
 */
export async function refoldSearchWords(migration: Migration, notAscii: (column: string) => string): Promise<void> {
  await eachBatchNotAscii<UserRow>(
    migration,
    'users',
    ['first_name', 'last_name', 'email'],
    notAscii,
    async (users, ids, placeholders) => {
      await migration.execute(`delete from member_words where user_id in (${placeholders})`, ids);
      await migration.execute(`delete from user_words where user_id in (${placeholders})`, ids);
      const rows = users.flatMap((user) =>
        personWords(user.first_name, user.last_name, user.email).map((word) => [user.id, word]),
      );
      await insertRows(migration, 'user_words', ['user_id', 'word'], rows);
      await migration.execute(
        `insert into member_words (organization_id, user_id, word) select m.organization_id, m.user_id, w.word from organization_users m join user_words w on w.user_id = m.user_id where m.user_id in (${placeholders})`,
        ids,
      );
    },
  );
  await eachBatchNotAscii<OrganizationRow>(
    migration,
    'organizations',
    ['name', 'slug'],
    notAscii,
    async (organizations, ids, placeholders) => {
      await migration.execute(`delete from organization_words where organization_id in (${placeholders})`, ids);
      const rows = organizations.flatMap((organization) =>
        organizationWords(organization.name, organization.slug).map((word) => [organization.id, word]),
      );
      await insertRows(migration, 'organization_words', ['organization_id', 'word'], rows);
    },
  );
}
