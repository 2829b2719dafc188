/** Search words (behaviour §15) as the service keeps them: a row for each word, in one statement. */
export { organizationWords, personWords } from '../../shared/search.ts';

/** The insert of `count` rows of (owner, word) into `into` (its table and columns); a no-op for none. */
export const wordRows = (into: string, count: number): string =>
  count === 0 ? 'do 0' : `insert into ${into} values ${Array.from({ length: count }, () => '(?, ?)').join(', ')}`;
