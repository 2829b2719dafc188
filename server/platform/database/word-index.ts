/**
 * The word tables of the directory's search (behaviour §15; docs/development.md, "Search"): each
 * user's words (user_words), each membership's copy of its user's words (member_words, so that a
 * search in one organization reads only that organization's words), and each organization's words
 * (organization_words). The words are folded by shared/search.ts; a user's or organization's words
 * go with it by their foreign keys, a membership's when it is deleted (unindexMembership). These
 * statements keep them in step with the rows they come from, in the transaction that changes them.
 */
import { sql as kyselySql, type RawBuilder, type SqlBool } from 'kysely';
import { organizationWords, personWords, prefixEnd } from '../../../shared/search.ts';
import type { Dialect } from './schema.ts';
import type { Tx } from './transaction.ts';

/** Queues the words of a new user. */
export function indexNewUser(tx: Tx, userId: string, firstName: string, lastName: string, email: string): void {
  const words = personWords(firstName, lastName, email);
  if (words.length === 0) return;
  tx.later(tx.sql.insertInto('user_words').values(words.map((word) => ({ user_id: userId, word }))));
}

/**
 * Queues the replacement of a user's words, in their own row and in each of their memberships.
 * Inside the transaction that changes the user's names, after that change.
 */
export function reindexUser(tx: Tx, userId: string, firstName: string, lastName: string, email: string): void {
  tx.later(tx.sql.deleteFrom('user_words').where('user_id', '=', userId));
  tx.later(tx.sql.deleteFrom('member_words').where('user_id', '=', userId));
  indexNewUser(tx, userId, firstName, lastName, email);
  tx.later(
    tx.sql
      .insertInto('member_words')
      .columns(['organization_id', 'user_id', 'word'])
      .expression((eb) =>
        eb
          .selectFrom('organization_users as m')
          .innerJoin('user_words as w', 'w.user_id', 'm.user_id')
          .select(['m.organization_id', 'm.user_id', 'w.word'])
          .where('m.user_id', '=', userId),
      ),
  );
}

/** Queues the copy of a user's words for their new membership (after the membership's insert). */
export function indexMembership(tx: Tx, organizationId: string, userId: string): void {
  tx.later(
    tx.sql
      .insertInto('member_words')
      .columns(['organization_id', 'user_id', 'word'])
      .expression((eb) =>
        eb
          .selectFrom('user_words as w')
          .select([kyselySql<string>`${organizationId}`.as('organization_id'), 'w.user_id', 'w.word'])
          .where('w.user_id', '=', userId),
      ),
  );
}

/** Queues the delete of a membership's words (with the membership). */
export function unindexMembership(tx: Tx, organizationId: string, userId: string): void {
  tx.later(
    tx.sql.deleteFrom('member_words').where('organization_id', '=', organizationId).where('user_id', '=', userId),
  );
}

/** Queues the words of a new organization (after its insert). */
export function indexNewOrganization(tx: Tx, organizationId: string, name: string, slug: string): void {
  const words = organizationWords(name, slug);
  if (words.length === 0) return;
  tx.later(
    tx.sql.insertInto('organization_words').values(words.map((word) => ({ organization_id: organizationId, word }))),
  );
}

/** The words that begin with a search word: from it (inclusive) to its end (exclusive), if it has one. */
export interface WordRange {
  from: string;
  to: string | null;
}

/** The range of each folded search word (shared/search.ts, prefixEnd). */
export const wordRanges = (words: string[]): WordRange[] => words.map((word) => ({ from: word, to: prefixEnd(word) }));

/** `column` is in `range` (it begins with a search word): a range an index finds. */
function inRange(column: string, { from, to }: WordRange): RawBuilder<SqlBool> {
  const ref = kyselySql.ref(column);
  return to === null ? kyselySql<SqlBool>`${ref} >= ${from}` : kyselySql<SqlBool>`${ref} >= ${from} and ${ref} < ${to}`;
}

/**
 * MariaDB, left to itself, answers a search word that begins most members' words (a two-letter
 * prefix among 100,000) by a loose scan of the whole user_id index, every organization's words,
 * sorted in a temporary table: seconds a page. Without that index in its choice it walks the
 * members in the page's order and stops at the page's end, or reads a rare word's few rows first
 * (`npm run bench:scale`; docs/performance.md, "Measured choices in the code"). SQLite's planner
 * has no such plan, and no such clause.
 */
const memberWordsAsW = (dialect: Dialect) =>
  dialect === 'sqlite'
    ? kyselySql`member_words w`
    : kyselySql`member_words w ignore index (member_words_user_id_index)`;

/** The membership row `alias` is of a member with a word in each range. */
export const memberMatches = (dialect: Dialect, alias: string, organizationId: string, ranges: WordRange[]) =>
  ranges.map(
    (range) =>
      kyselySql<SqlBool>`${kyselySql.ref(`${alias}.user_id`)} in (select w.user_id from ${memberWordsAsW(dialect)} where w.organization_id = ${organizationId} and ${inRange('w.word', range)})`,
  );

/** The user row `alias` has a word beginning with each search word. */
export const userMatches = (alias: string, words: string[]) =>
  wordRanges(words).map(
    (range) =>
      kyselySql<SqlBool>`${kyselySql.ref(`${alias}.id`)} in (select w.user_id from user_words w where ${inRange('w.word', range)})`,
  );

/** The organization row `alias` has a word beginning with each search word. */
export const organizationMatches = (alias: string, words: string[]) =>
  wordRanges(words).map(
    (range) =>
      kyselySql<SqlBool>`${kyselySql.ref(`${alias}.id`)} in (select w.organization_id from organization_words w where ${inRange('w.word', range)})`,
  );

/** Queues the replacement of an organization's words from its row as the transaction has changed it. */
export async function reindexOrganization(tx: Tx, organizationId: string): Promise<void> {
  const row = await tx.first(
    tx.sql.selectFrom('organizations').select(['name', 'slug']).where('id', '=', organizationId),
  );
  tx.later(tx.sql.deleteFrom('organization_words').where('organization_id', '=', organizationId));
  if (row) indexNewOrganization(tx, organizationId, row.name, row.slug);
}

/** Queues the replacement of a user's words from their row as the transaction has changed it. */
export async function reindexUserRow(tx: Tx, userId: string): Promise<void> {
  const row = await tx.first(
    tx.sql.selectFrom('users').select(['first_name', 'last_name', 'email']).where('id', '=', userId),
  );
  if (row) reindexUser(tx, userId, row.first_name, row.last_name, row.email);
}
