/**
 * Search in the directory (behaviour §15): a search is words split on white space, and an item
 * matches when each of them begins a word of the item, ignoring case and accents. The server keeps
 * the items' words, folded, in word tables (server/platform/database/word-index.ts) and compares
 * them byte for byte, so both databases answer alike.
 */
import { z } from 'zod';
import { hasNameCharacter } from './text.ts';

export const SEARCH_MAX_LENGTH = 100;
/**
 * Words are kept at most this many code points long: a search word begins a word exactly when it
 * begins the word's first WORD_MAX_LENGTH code points, as long as it is no longer itself.
 */
export const WORD_MAX_LENGTH = 128;

const BLANK_SEARCH = 'Must hold a character other than white space and invisible ones';

/**
 * `search`: 1 to 100 characters after trimming, not all of them blank (behaviour §15). One problem,
 * the first rule it breaks.
 */
export const searchSchema = z
  .string()
  .trim()
  .min(1, { error: BLANK_SEARCH, abort: true })
  .max(SEARCH_MAX_LENGTH, { error: `Must be at most ${SEARCH_MAX_LENGTH} characters`, abort: true })
  .refine((search) => search.isWellFormed(), 'Must be well-formed Unicode text (no lone surrogates)')
  .refine(hasNameCharacter, BLANK_SEARCH);

const MARKS = /\p{M}/gu;
const FINAL_SIGMA = /ς/gu;
const ASCII = /^\p{ASCII}*$/u;
const WHITE_SPACE = /\s+/u;
/** What an e-mail address's words lie between (behaviour §15). */
const EMAIL_SEPARATORS = /[\s@._+-]+/u;

/**
 * Text as the word tables hold it (behaviour §15): compatibility decomposition (NFKD: ligatures,
 * full-width letters, composed accents taken apart), letter case folded, then the combining marks
 * (accents) dropped. Case is folded as Unicode's full case folding (CaseFolding.txt) does, by
 * JavaScript's locale-independent mappings, lower then upper then lower case: "ß", "ẞ" and "SS"
 * are "ss", "ſ" is "s", "ᾳ" and "ΑΙ" are "αι" (the iota subscript, a mark, is a letter to case
 * folding, so it is folded before the marks go). Lower case alone gives a word-final "Σ" as "ς"
 * and inside a word as "σ", which case folding makes one letter: "ς" becomes "σ". Apart from
 * Unicode's folding, "ı" (dotless i, whose capital is "I") is "i", as its capital folds.
 * tests/unit/search-words.test.ts checks this against every code point and the engine's
 * CaseFolding.txt data. Folding folded text changes nothing.
 *
 * Not the npm package unicode-case-folding (CaseFolding.txt as a table): it is young (two releases,
 * one author), fixes its table at its own Unicode version where the engine's mappings follow
 * Node's, and looks every character up, where ASCII text, most of what is folded (every word of
 * every person written and every search), is lower-cased here and nothing else.
 */
export function foldText(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .toWellFormed()
    .normalize('NFKD')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replace(MARKS, '')
    .replace(FINAL_SIGMA, 'σ');
}

const cut = (word: string) =>
  word.length <= WORD_MAX_LENGTH ? word : Array.from(word).slice(0, WORD_MAX_LENGTH).join('');

const wordsOf = (text: string, separators: RegExp) =>
  foldText(text)
    .split(separators)
    .filter((word) => word !== '')
    .map(cut);

/** The words of a search: each must begin a word of what it finds. */
export const searchWords = (search: string): string[] => [...new Set(wordsOf(search, WHITE_SPACE))];

/**
 * A person's words: those of their first and last names (split on white space) and of their
 * e-mail address (its parts between `@`, `.`, `_`, `-` and `+`, and the whole address, so that a
 * full address finds its owner).
 */
export function personWords(firstName: string, lastName: string, email: string): string[] {
  return [
    ...new Set([
      ...wordsOf(firstName, WHITE_SPACE),
      ...wordsOf(lastName, WHITE_SPACE),
      ...wordsOf(email, EMAIL_SEPARATORS),
      ...wordsOf(email, WHITE_SPACE),
    ]),
  ];
}

/** An organization's words: those of its name (split on white space) and of its slug (split on `-`). */
export function organizationWords(name: string, slug: string): string[] {
  return [...new Set([...wordsOf(name, WHITE_SPACE), ...wordsOf(slug, /-+/u), ...wordsOf(slug, WHITE_SPACE)])];
}

/**
 * The first string after every string that begins with `prefix`, in code point order (the order of
 * UTF-8 bytes, which both databases compare by): `word >= prefix and word < end` is "begins with",
 * and an index can find it. Null when nothing comes after (the prefix is all U+10FFFF).
 */
export function prefixEnd(prefix: string): string | null {
  const points = Array.from(prefix, (character) => character.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      // The surrogates are no characters: after U+D7FF comes U+E000.
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}

/** `sort` of the member list: a key, ascending, or with a leading `-` the same order reversed. */
export const MEMBER_SORTS = ['created_at', '-created_at', 'name', '-name', 'email', '-email'] as const;
export type MemberSort = (typeof MEMBER_SORTS)[number];
export const memberSortSchema = z.enum(MEMBER_SORTS);

/** `role`: one or more role names, comma-separated. */
export const roleFilterSchema = z
  .string()
  .max(1000, { error: 'Must be at most 1000 characters', abort: true })
  .regex(/^[a-z][a-z0-9_-]{0,63}(,[a-z][a-z0-9_-]{0,63})*$/, {
    error: 'Must be one or more role names, comma-separated',
  });
