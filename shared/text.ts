/**
 * What the string fields accept (behaviour §4.4), defined once for the zod schemas and the OpenAPI
 * document: names (trimmed of white space, stored in NFC, holding a character that shows) and the
 * form in which two names are one (`comparableName`), descriptions, ids and e-mail addresses;
 * control characters, bidirectional controls and lone surrogates refused; lengths in code points.
 * Each field is refused with one problem, the first rule it breaks.
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
 * Multilingual Plane at start, which slowed it.
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

/** A code point as a pattern writes it: `\xHH` up to U+00FF, above it the character itself. */
const spell = (code: number) =>
  code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : String.fromCodePoint(code);

/** Ranges of code points as the inside of a bracket expression, `\x09-\x0d\x20…`. */
export const bracketMembers = (ranges: ReadonlyArray<readonly [number, number]>) =>
  ranges.map(([first, last]) => (first === last ? spell(first) : `${spell(first)}-${spell(last)}`)).join('');

/** The White_Space characters as the inside of a bracket expression. */
export const WHITE_SPACE_MEMBERS = bracketMembers(WHITE_SPACE_RANGES);
/** Control characters are U+0000 to U+001F and U+007F. */
const CONTROL_MEMBERS = '\\x00-\\x1f\\x7f';
/** Control characters but tab and line breaks, which text that may span lines holds. */
const MULTILINE_CONTROL_MEMBERS = '\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f';
/**
 * The bidirectional embedding and override controls (U+202A to U+202E) and isolates (U+2066 to
 * U+2069): one of them reorders the text that follows it, so that a name reads as another (a team
 * `\u202eSrotartsinimdA` shows as "AdministratorS"), and an unclosed one spills into whatever is
 * shown after the field. Refused in names and descriptions. The marks (U+200E, U+200F, U+061C)
 * reorder nothing and are kept.
 */
const BIDI_CONTROL_MEMBERS = bracketMembers([
  [0x202a, 0x202e],
  [0x2066, 0x2069],
]);

/**
 * Unicode's default-ignorable code points: characters with no glyph of their own (zero-width
 * spaces and joiners, the soft hyphen, U+FEFF, variation selectors, tags…). A property escape, so
 * that the definition is the JavaScript engine's, kept up to date with Unicode.
 */
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
/** A character that is neither white space nor default-ignorable: what a name must hold one of. */
const NAME_CHARACTER = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u;

/** Whether `text` holds a character that is neither white space nor default-ignorable, as a name must (and a search). */
export const hasNameCharacter = (text: string): boolean => NAME_CHARACTER.test(text);

/**
 * The form in which two names are the same name (behaviour §4.4): compatibility characters as their
 * plain equivalents (NFKC: full-width letters, ligatures, composed accents), without
 * default-ignorable code points, letter case folded, trimmed. Lower, upper, then lower case folds
 * as Unicode's full case folding does, by JavaScript's locale-independent mappings: the upper case
 * step folds the letters whose capitals are longer, "ß" as "ss", and the first lower case step the
 * capital "ẞ", which has no such capital of its own, to "ß" first. Two differences, on purpose:
 * the dotless "ı" is "i", as its capital "I" is (and as the search folds it, shared/search.ts), so
 * "Işık" and "IŞIK" are one name; and a sigma is written "ς" at a word's end and "σ" elsewhere,
 * where case folding writes "σ", which changes no comparison: "ς", "σ" and "Σ" are all lower-cased
 * from "Σ". tests/unit/text.test.ts checks this over every code point. NFKC again after it, since
 * case mapping can leave a letter and its accent apart.
 */
export const comparableName = (name: string) =>
  trimWhiteSpace(
    name.normalize('NFKC').replace(DEFAULT_IGNORABLE, '').toLowerCase().toUpperCase().toLowerCase().normalize('NFKC'),
  );

const WITHOUT_CONTROL_CHARACTERS = new RegExp(`^[^${CONTROL_MEMBERS}]*$`);
const MULTILINE_WITHOUT_CONTROL_CHARACTERS = new RegExp(`^[^${MULTILINE_CONTROL_MEMBERS}]*$`);
const BIDI_CONTROL = new RegExp(`[${BIDI_CONTROL_MEMBERS}]`);

/** Code points, not UTF-16 code units: what "characters" means in the rules, in a database column and in JSON Schema. */
const characterCount = (text: string) => {
  let count = 0;
  const codePoints = text[Symbol.iterator]();
  while (!codePoints.next().done) count += 1;
  return count;
};

const PROBLEMS = {
  /*
   * A lone surrogate (JSON can spell `\udc00`) is not text, and storing it would replace it
   * silently. Not in the document's patterns: a pattern of surrogate ranges compiles in ECMAScript
   * only (RE2 and Python engines refuse it, and tools then drop the whole pattern), and a client
   * that encodes real text as JSON never sends one.
   */
  notWellFormed: 'Must be well-formed Unicode text (no lone surrogates)',
  control: 'Must be text without control characters',
  bidi: 'Must be text without bidirectional embedding, override or isolate controls (U+202A to U+202E, U+2066 to U+2069)',
  empty: 'Must hold a character other than white space and invisible (default-ignorable) ones',
} as const;

/** The first rule `text` breaks, so that each field is refused with one problem. */
export function textProblem(text: string, { multiline = false } = {}): string | undefined {
  if (!text.isWellFormed()) return PROBLEMS.notWellFormed;
  if (!(multiline ? MULTILINE_WITHOUT_CONTROL_CHARACTERS : WITHOUT_CONTROL_CHARACTERS).test(text))
    return PROBLEMS.control;
  return undefined;
}

const lengthProblem = (text: string, min: number, max: number) => {
  const count = characterCount(text);
  if (count > max) return `Must be at most ${max} characters`;
  if (count < min) return `Must be at least ${min} character${min === 1 ? '' : 's'}`;
  return undefined;
};

function nameProblem(name: string, max: number): string | undefined {
  return (
    textProblem(name) ??
    (BIDI_CONTROL.test(name) ? PROBLEMS.bidi : undefined) ??
    (hasNameCharacter(name) ? undefined : PROBLEMS.empty) ??
    lengthProblem(name, 1, max)
  );
}

function descriptionProblem(description: string, max: number): string | undefined {
  return (
    textProblem(description, { multiline: true }) ??
    (BIDI_CONTROL.test(description) ? PROBLEMS.bidi : undefined) ??
    lengthProblem(description, 0, max)
  );
}

/** A refinement that states the first problem `problemOf` finds as the field's one issue. */
export const noProblem = (problemOf: (text: string) => string | undefined) =>
  [
    (text: string) => problemOf(text) === undefined,
    { error: (issue: { input: unknown }) => problemOf(issue.input as string) },
  ] as const;

/**
 * What the document says of a name as sent: white space at either end (trimmed first, tabs and
 * line breaks included), and between it 1 to `max` characters whose first and last are neither
 * white space nor control characters, with no control character or bidirectional control at all.
 * Linear in a backtracking engine too, where the plainer `^W*[^C]{1,max}W*$` (W white space, C
 * control characters) is quadratic over a long run of spaces. That it holds a character other
 * than white space and default-ignorable ones is a second pattern (server/http/openapi.ts).
 */
const namePattern = (max: number) => {
  const space = `[${WHITE_SPACE_MEMBERS}]`;
  const refused = `${CONTROL_MEMBERS}${BIDI_CONTROL_MEMBERS}`;
  const visible = `[^${refused}${WHITE_SPACE_MEMBERS}]`;
  return `^${space}*${visible}(?:[^${refused}]{0,${max - 2}}${visible})?${space}*$`;
};

/**
 * A name (behaviour §4.4): trimmed of white space, stored in NFC (composed accents), then 1 to
 * `max` characters of text without control or bidirectional controls, holding something other
 * than white space and invisible characters. Where names must be unique, `comparableName` compares them.
 */
export const nameText = (max: number) =>
  z
    .string()
    .overwrite((name) => trimWhiteSpace(name).normalize('NFC'))
    .refine(...noProblem((name) => nameProblem(name, max)))
    .meta({ override: { pattern: namePattern(max) } });

/** Free text that may span lines (a description): stored in NFC, 0 to `max` characters. */
export const descriptionText = (max: number) =>
  z
    .string()
    .overwrite((description) => description.normalize('NFC'))
    .refine(...noProblem((description) => descriptionProblem(description, max)))
    .meta({ override: { pattern: `^[^${MULTILINE_CONTROL_MEMBERS}${BIDI_CONTROL_MEMBERS}]*$`, maxLength: max } });

/** A single-line text field taken exactly as sent, `min` to `max` characters: an id, compared byte for byte (behaviour §4.4). */
export const plainText = ({ min, max }: { min: number; max: number }) =>
  z
    .string()
    .refine(...noProblem((text) => textProblem(text) ?? lengthProblem(text, min, max)))
    .meta({ override: { pattern: `^[^${CONTROL_MEMBERS}]*$`, minLength: min, maxLength: max } });

/*
 * An e-mail address. The local part is zod's (`z.regexes.email`); each domain label is 1 to 63
 * letters, digits and hyphens, neither first nor last a hyphen (RFC 1035, as RFC 5321 requires),
 * and the last is 2 to 63 letters. zod's own pattern lets a label end in a hyphen.
 */
const EMAIL_ADDRESS =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** At most 254 characters (RFC 5321's limit on a path, less its angle brackets), stored lower-cased. */
export const emailText = () => z.email({ pattern: EMAIL_ADDRESS }).max(254).toLowerCase();
