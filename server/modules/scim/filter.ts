/**
 * SCIM filters (RFC 7644 §3.4.2.2), parsed by `scim2-parse-filter` (a maintained parser of the
 * RFC's grammar) and narrowed to what the directory is searched by (behaviour §18): `eq` on the
 * attributes each resource names, joined by `and` and `or`. Anything else the grammar allows, and
 * anything it does not, is 400 `invalidFilter`, never a failure of the service.
 */
import { parse, type Filter } from 'scim2-parse-filter';
import { invalidFilter } from './scim-errors.ts';
import { GROUP_SCHEMA, USER_SCHEMA } from './schemas.ts';

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
  let filter: Filter;
  try {
    filter = parse(text);
  } catch (error) {
    // The parser's own messages say where it stopped; a stack overflow on deep nesting is one too.
    throw invalidFilter(error instanceof RangeError ? 'nested too deeply' : (error as Error).message);
  }
  return narrow(filter, known, schema, { comparisons: 0 });
}

export const userCondition = (text: string) => conditionOf(text, USER_ATTRIBUTES, USER_SCHEMA);
export const groupCondition = (text: string) => conditionOf(text, GROUP_ATTRIBUTES, GROUP_SCHEMA);
