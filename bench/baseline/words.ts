/** Search words (behaviour §15) as the service keeps them: a row for each word, in one statement. */
export { organizationWords, personWords } from '../../shared/search.ts';

/**
 * The insert of a row (owner, word) for each of `words` into `into` (its table and columns), with
 * its values; a no-op for none.
 */
export function wordRows(into: string, owner: string, words: readonly string[]): { sql: string; values: string[] } {
  if (words.length === 0) return { sql: 'do 0', values: [] };
  return {
    sql: `insert into ${into} values ${words.map(() => '(?, ?)').join(', ')}`,
    values: words.flatMap((word) => [owner, word]),
  };
}
