/**
 * SCIM filters (RFC 7644 §3.4.2.2), parsed by `scim2-parse-filter` (a maintained parser of the
 * RFC's grammar) and narrowed to what the directory is searched by (behaviour §18): `eq` on the
 * attributes each resource names, joined by `and` and `or`. Anything else the grammar allows, and
 * anything it does not, is 400 `invalidFilter`, never a failure of the service; what the grammar
 * refuses is told in the service's words, with where in the filter it stopped.
 */
import type { Filter } from 'scim2-parse-filter';
import { parseFilter, Tokens, type Token } from 'scim2-parse-filter/lib/src/parser.js';
import { invalidFilter } from './scim-errors.ts';
import { GROUP_SCHEMA, USER_SCHEMA } from './schemas.ts';

/** A token of a filter, with where it starts and ends in the text. */
type PlacedToken = Token & { at: number; end: number };

/**
 * scim2-parse-filter's token rules (whitespace, a number, a quoted string, a bracket, a word),
 * applied here because its own tokenizer keeps no positions: its parser reads the tokens these make
 * as it reads its own.
 */
const TOKEN =
  /(\s+)|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![-\w._:/)\s]))|("(?:[^"\\]|\\.|\n)*")|([[()]|]\.?)|(\w[-\w._:/%]*)/y;

/** The comparison operators, after which a value comes. */
const COMPARISONS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le']);

/** What the caller wrote from `at` on, as a detail shows it: a few characters, quoted. */
const excerpt = (text: string, at: number, end = at + 20) =>
  JSON.stringify(text.slice(at, Math.min(end, at + 20)) + (end > at + 20 ? '…' : ''));

/** What a JSON string holds between its quotes: a character that needs no escape, or an escape (RFC 8259 §7). */
// eslint-disable-next-line no-control-regex -- JSON's rule is of these very characters: they are escaped, never written
const JSON_STRING_PART = /[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[\dA-Fa-f]{4})/y;

/** The escapes a JSON string has, as a refusal names them. */
const JSON_ESCAPES = '\\" \\\\ \\/ \\b \\f \\n \\r \\t, or \\u and four hexadecimal digits';

/**
 * `quoted`, the string token at `at` in the filter, when it is a JSON string of well-formed text; else
 * `refused` with where it stops being one. A filter's strings are JSON strings (RFC 7644 §3.4.2.2):
 * `"\u0041"` is `"A"`, `"a\"b"` holds a quote and `"a\\b"` one backslash.
 */
function jsonString(quoted: string, at: number, refused: (why: string) => Error): string {
  for (let part = 1; part < quoted.length - 1; part = JSON_STRING_PART.lastIndex) {
    JSON_STRING_PART.lastIndex = part;
    if (JSON_STRING_PART.test(quoted)) continue;
    const position = `at position ${at + part + 1}`;
    if (quoted[part] !== '\\')
      throw refused(
        `the string at position ${at + 1} holds a control character ${position}, which a JSON string escapes`,
      );
    const escape = quoted.slice(part, Math.min(part + (quoted[part + 1] === 'u' ? 6 : 2), quoted.length - 1));
    throw refused(`the escape ${escape} ${position} is not one of a JSON string: ${JSON_ESCAPES}`);
  }
  // A lone surrogate (`"\ud800"`) is no text, as anywhere in the service.
  if (!(JSON.parse(quoted) as string).isWellFormed())
    throw refused(`the string at position ${at + 1} is not well-formed Unicode text (a lone surrogate)`);
  return quoted;
}

function tokensOf(text: string, refused: (why: string) => Error): PlacedToken[] {
  const tokens: PlacedToken[] = [];
  for (let at = 0; at < text.length;) {
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(text);
    if (!match) throw refused(`${excerpt(text, at, text.length)} at position ${at + 1} is no part of a filter`);
    const [whole, , number, quoted, bracket, word] = match;
    const end = at + whole.length;
    if (number !== undefined) tokens.push({ type: 'Number', literal: number, at, end });
    // Kept as written: the parser reads it with JSON.parse, as the JSON string it is (behaviour §18).
    else if (quoted !== undefined) tokens.push({ type: 'Quoted', literal: jsonString(quoted, at, refused), at, end });
    else if (bracket !== undefined) tokens.push({ type: 'Bracket', literal: bracket, at, end });
    else if (word !== undefined) tokens.push({ type: 'Word', literal: word, at, end });
    at = end;
  }
  tokens.push({ type: 'EOT', literal: '', at: text.length, end: text.length });
  return tokens;
}

/** Why the grammar refused the token at `index`, where the parser stopped. */
function refusal(text: string, tokens: PlacedToken[], index: number): string {
  const token = tokens[Math.min(index, tokens.length - 1)]!;
  const previous = tokens[index - 1];
  const ended = token.type === 'EOT';
  const where = ended ? `after position ${text.trimEnd().length}` : `at position ${token.at + 1}`;
  const found = ended ? 'the end' : excerpt(text, token.at, token.end);
  if (previous?.type === 'Word' && COMPARISONS.has(previous.literal.toLowerCase())) {
    return `expected a value (a quoted string, a number, true, false or null) ${where}, found ${found}`;
  }
  return ended ? `it ends too soon, ${where}` : `${found} ${where} is not expected there`;
}

/**
 * The filter `text`, as scim2-parse-filter reads it; one it refuses is `refused` with what is wrong
 * and where, in the service's words (the parser's own name its internal tokens).
 */
export function parsedFilter(text: string, refused: (why: string) => Error): Filter {
  const tokens = tokensOf(text, refused);
  const list = new Tokens(tokens);
  let filter: Filter;
  try {
    filter = parseFilter(list);
  } catch (error) {
    // A stack overflow on deep nesting is a refusal too.
    if (error instanceof RangeError) throw refused('it is nested too deeply');
    // The parser throws on the token it has just taken.
    throw refused(refusal(text, tokens, list.i - 1));
  }
  if (list.peek().type !== 'EOT') throw refused(refusal(text, tokens, list.i));
  return filter;
}

/** A filter as the queries apply it: an attribute equal to a value, or conditions all or any of which hold. */
export type Condition<Attribute extends string> =
  { attribute: Attribute; value: string } | { all: Condition<Attribute>[] } | { any: Condition<Attribute>[] };

export type UserAttribute = 'userName' | 'externalId' | 'id' | 'emails.value';
export type GroupAttribute = 'displayName' | 'externalId' | 'id';

const USER_ATTRIBUTES: readonly UserAttribute[] = ['userName', 'externalId', 'id', 'emails.value'];
const GROUP_ATTRIBUTES: readonly GroupAttribute[] = ['displayName', 'externalId', 'id'];

/** A filter longer than this, or with more comparisons, is refused before it is parsed or run. */
const MAX_FILTER_LENGTH = 2_000;
const MAX_COMPARISONS = 50;

function narrow<Attribute extends string>(
  filter: Filter,
  known: readonly Attribute[],
  schema: string,
  counted: { comparisons: number },
): Condition<Attribute> {
  if (filter.op === 'and' || filter.op === 'or') {
    const parts = (filter as { filters: Filter[] }).filters.map((part) => narrow(part, known, schema, counted));
    return filter.op === 'and' ? { all: parts } : { any: parts };
  }
  if (filter.op === '[]') {
    // emails[value eq "…"]: the value path of a comparison on a sub-attribute.
    const { attrPath, valFilter } = filter as { attrPath: string; valFilter: Filter };
    if (valFilter.op !== 'eq') throw invalidFilter('only eq is supported inside [ ]');
    const inner = valFilter as { attrPath: string; compValue: unknown };
    return narrow({ ...inner, op: 'eq', attrPath: `${attrPath}.${inner.attrPath}` } as Filter, known, schema, counted);
  }
  if (filter.op !== 'eq') throw invalidFilter(`the operator ${filter.op} is not supported: use eq, and, or`);
  if (++counted.comparisons > MAX_COMPARISONS) throw invalidFilter(`more than ${MAX_COMPARISONS} comparisons`);
  const { attrPath, compValue } = filter as { attrPath: string; compValue: unknown };
  const path = attrPath.toLowerCase().startsWith(`${schema.toLowerCase()}:`)
    ? attrPath.slice(schema.length + 1)
    : attrPath;
  const attribute = known.find((name) => name.toLowerCase() === path.toLowerCase());
  if (!attribute) throw invalidFilter(`${attrPath} cannot be filtered on: use ${known.join(', ')}`);
  if (typeof compValue !== 'string') throw invalidFilter(`${attrPath} is compared with a string`);
  return { attribute, value: compValue };
}

function conditionOf<Attribute extends string>(
  text: string,
  known: readonly Attribute[],
  schema: string,
): Condition<Attribute> {
  if (text.length > MAX_FILTER_LENGTH) throw invalidFilter(`longer than ${MAX_FILTER_LENGTH} characters`);
  return narrow(parsedFilter(text, invalidFilter), known, schema, { comparisons: 0 });
}

export const userCondition = (text: string) => conditionOf(text, USER_ATTRIBUTES, USER_SCHEMA);
export const groupCondition = (text: string) => conditionOf(text, GROUP_ATTRIBUTES, GROUP_SCHEMA);
