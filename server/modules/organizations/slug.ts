/**
 * Slugs (behaviour §15): 2 to 64 characters of `a-z`, `0-9` and single hyphens inside, never shaped
 * like a UUID (so that a path can tell a slug from an id), unique over the service. Without one
 * given, the slug is derived from the name and, when taken, gets the first free suffix.
 */
import transliterate from '@sindresorhus/transliterate';
import { isSlug } from '../../../shared/slug.ts';

const DERIVED_MAX_LENGTH = 48;

/**
 * The transliteration's defaults spell German umlauts out (`ü` as `ue`); here an umlaut is an
 * accent like any other, dropped (`Zürich` gives `zurich`), as slugs derived before it were.
 */
const UMLAUTS_AS_ACCENTS: Array<[string, string]> = [
  ['ä', 'a'],
  ['ö', 'o'],
  ['ü', 'u'],
  ['Ä', 'A'],
  ['Ö', 'O'],
  ['Ü', 'U'],
];

/**
 * The slug a name gives: compatibility forms as their plain letters (NFKC: full-width `Ａ`, the
 * ligature `ﬁ`), letters of other scripts and those no accent makes (`ß`, `æ`, `ø`) in their usual
 * Latin spelling, accents removed, lower-cased, every run of other characters one hyphen, trimmed
 * of hyphens, cut to 48 characters, `org` when nothing is left (as for Chinese, which has no
 * transliteration here).
 */
export function slugOfName(name: string): string {
  const plain = transliterate(name.normalize('NFKC'), { customReplacements: UMLAUTS_AS_ACCENTS })
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = plain.slice(0, DERIVED_MAX_LENGTH).replace(/-+$/, '');
  return cut === '' ? 'org' : cut;
}

/**
 * The first of `base`, `base-2`, `base-3`, … that is a slug and not in `taken` (the slugs in use
 * that begin with `base`).
 */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (isSlug(base) && !taken.has(base)) return base;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${base}-${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
