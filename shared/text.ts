/**
 * What the string fields accept, defined once for the zod schemas and the OpenAPI document: white
 * space (trimmed from names), control characters (refused), well-formed Unicode (lone surrogates
 * refused) and e-mail addresses.
 *
 * The patterns here are also the document's `pattern`s, which other tools compile with their own
 * engines (RE2, Python's re): so no lookaround, no `\s`/`\S` (a different set in each engine) and
 * no `\u` escapes (not RE2's). Characters up to U+00FF are written `\xHH`, which all engines read;
 * above it they share no escape, so such characters are written as themselves.
 */
import { z } from 'zod';

/**
 * White space is Unicode's `White_Space` property, tab and line breaks included: these ranges of
 * code points (tests/unit/text.test.ts checks them against `/\p{White_Space}/u` over every code
 * point). Not String#trim's set, which trims U+FEFF (not White_Space) and keeps U+0085 NEXT LINE
 * (White_Space). Written out rather than found by testing all 65,536 characters of the Basic
 * Multilingual Plane at start, which took about 10 ms.
 */
export const WHITE_SPACE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0x85, 0x85],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
];

const isWhiteSpace = (code: number) => WHITE_SPACE_RANGES.some(([first, last]) => code >= first && code <= last);

/**
 * `text` without white space at either end. A loop rather than `/\p{White_Space}+$/u`, which
 * backtracks quadratically over a long run of white space inside the text (seconds for a body of
 * 64 KiB). Every White_Space character is in the Basic Multilingual Plane, one UTF-16 code unit.
 */
export function trimWhiteSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isWhiteSpace(text.charCodeAt(start))) start += 1;
  while (end > start && isWhiteSpace(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

const spell = (code: number) => (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : String.fromCharCode(code));

/** The White_Space characters as the inside of a bracket expression, `\x09-\x0d\x20…`. */
const WHITE_SPACE_MEMBERS = WHITE_SPACE_RANGES.map(([first, last]) =>
  first === last ? spell(first) : `${spell(first)}-${spell(last)}`,
).join('');
/** Control characters are U+0000 to U+001F and U+007F. */
const CONTROL_MEMBERS = '\\x00-\\x1f\\x7f';

/** A pattern that finds a character that is not white space: what a trimmed name must hold. */
export const NOT_WHITE_SPACE = `[^${WHITE_SPACE_MEMBERS}]`;

const HAS_CONTROL_CHARACTERS = 'Must be text without control characters';
const WITHOUT_CONTROL_CHARACTERS = new RegExp(`^[^${CONTROL_MEMBERS}]*$`);
/** Free text may also hold tabs and line breaks. */
const MULTILINE_WITHOUT_CONTROL_CHARACTERS = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$/;

/**
 * Text whose first and last characters, past any white space, are neither white space nor control
 * characters, with no control character between them. zod checks it after trimming, where it says
 * only "no control character"; the document states it for the value as sent, where white space at
 * either end (tabs and line breaks included) is allowed because it is trimmed first. Linear in a
 * backtracking engine too, where the plainer `^W*[^C]*W*$` (W white space, C control characters)
 * takes quadratic time over a long run of spaces.
 */
const TRIMMED_WITHOUT_CONTROL_CHARACTERS = (() => {
  const space = `[${WHITE_SPACE_MEMBERS}]`;
  const visible = `[^${CONTROL_MEMBERS}${WHITE_SPACE_MEMBERS}]`;
  return `^${space}*(?:${visible}(?:[^${CONTROL_MEMBERS}]*${visible})?${space}*)?$`;
})();

/*
 * A lone surrogate (JSON can spell `\udc00`) is not text, and storing it would replace it silently.
 * A refinement, not a pattern: a pattern of surrogate ranges compiles in ECMAScript only (RE2 and
 * Python engines refuse it, and tools then drop the whole pattern, control characters included).
 * The document needs no such rule: a client that encodes real text as JSON never sends one.
 */
const NOT_WELL_FORMED = 'Must be well-formed Unicode text (no lone surrogates)';
const wellFormed = (schema: z.ZodString) => schema.refine((text) => text.isWellFormed(), NOT_WELL_FORMED);

/**
 * A single-line text field: a name, an id. `trimmed`: white space at either end is removed first,
 * so that only a control character inside is refused.
 */
export const plainText = ({ trimmed = false } = {}) =>
  wellFormed(
    trimmed
      ? z
          .string()
          .overwrite(trimWhiteSpace)
          .regex(new RegExp(TRIMMED_WITHOUT_CONTROL_CHARACTERS), HAS_CONTROL_CHARACTERS)
          // The document would state the regex's `source`, where ECMAScript writes U+2028 and U+2029
          // as `\u2028` and `\u2029`, escapes RE2 does not read (`override` is zod-openapi's).
          .meta({ override: { pattern: TRIMMED_WITHOUT_CONTROL_CHARACTERS } })
      : z.string().regex(WITHOUT_CONTROL_CHARACTERS, HAS_CONTROL_CHARACTERS),
  );

/** Free text that may span lines. */
export const multilineText = () =>
  wellFormed(z.string().regex(MULTILINE_WITHOUT_CONTROL_CHARACTERS, HAS_CONTROL_CHARACTERS));

/*
 * An e-mail address. The local part is zod's (`z.regexes.email`); each domain label is 1 to 63
 * letters, digits and hyphens, neither first nor last a hyphen (RFC 1035, as RFC 5321 requires),
 * and the last is 2 to 63 letters. zod's own pattern lets a label end in a hyphen.
 */
const EMAIL_ADDRESS =
  /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** At most 254 characters (RFC 5321's limit on a path, less its angle brackets), stored lower-cased. */
export const emailText = () => z.email({ pattern: EMAIL_ADDRESS }).max(254).toLowerCase();
