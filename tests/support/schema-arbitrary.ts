/**
 * fast-check arbitraries for the JSON Schemas of the service's OpenAPI document (tests/fuzz.test.ts):
 * values the document calls valid. The schemas use a small part of JSON Schema and no well-kept
 * library turns them into arbitraries; ajv (the validator Fastify itself uses) keeps only the values
 * that match, so a keyword the generator does not know only costs draws, never an invalid value.
 * Every generator must still hit often: fast-check draws again until a value passes, so one that
 * almost never matches hangs the test.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

export interface Schema {
  /** One type, or several for a nullable value (`['string', 'null']`). */
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  /** `false`: no items beyond `prefixItems`. */
  items?: Schema | false;
  /** A tuple's items, one schema each (zod writes `["*"]`-like tuples so). */
  prefixItems?: Schema[];
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  allOf?: Schema[];
  anyOf?: Schema[];
  $ref?: string;
}

/** The validator the arbitraries are filtered with; the fuzz test checks the answers with it too. */
export const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats.default(ajv);

/** Values `schema` accepts. */
export function arbitraryFor(schema: Schema): fc.Arbitrary<unknown> {
  const validate = ajv.compile(schema);
  return baseArbitrary(schema).filter((value) => validate(value));
}

/** One character of well-formed text: the Basic Multilingual Plane without control characters or surrogates. */
const textCharacter = fc
  .integer({ min: 0x20, max: 0xfffd })
  .filter((code) => code !== 0x7f && (code < 0xd800 || code > 0xdfff))
  .map((code) => String.fromCharCode(code));

/** How long a string may be when its schema sets no maxLength. */
const DEFAULT_MAX_LENGTH = 200;
/** Arrays get a few items (at least minItems): enough to mix values, cheap to send. */
const FEW_ITEMS = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Values shaped by `schema`'s type, format and pattern, mostly but not always valid: `arbitraryFor`
 * filters them. Exported for the tests of the generator itself.
 */
export function baseArbitrary(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => baseArbitrary({ ...schema, type })));
  // A union (`{anyOf: [{...}, {type: 'null'}]}`, how zod writes a nullable timestamp). An anyOf
  // beside a type is a constraint instead, as an object's "one of these fields is required".
  if (schema.anyOf && schema.type === undefined) return fc.oneof(...schema.anyOf.map(arbitraryFor));
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (schema.prefixItems && schema.items === false) return fc.tuple(...schema.prefixItems.map(arbitraryFor));
      const item = arbitraryFor(schema.items || {});
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? FEW_ITEMS, FEW_ITEMS));
      return schema.uniqueItems
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
        : fc.array(item, { minLength, maxLength });
    }
    case 'object': {
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [name, arbitraryFor(property)]),
      );
      return fc.record(properties, { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.jsonValue();
  }
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.uuid({ version: 7 });
  // Between a day and five years ahead: a timestamp a client sends is an expiry, which must be in the future.
  if (schema.format === 'date-time') {
    const now = Date.now();
    return fc
      .date({ min: new Date(now + DAY_MS), max: new Date(now + 5 * 365 * DAY_MS), noInvalidDate: true })
      .map((date) => date.toISOString());
  }
  const maxLength = schema.maxLength ?? DEFAULT_MAX_LENGTH;
  const text = fc.string({ unit: textCharacter, minLength: schema.minLength ?? 0, maxLength });
  if (schema.pattern === undefined) return text;
  // Random text almost never matches a narrow pattern (a role name, an e-mail address), so half the
  // values are drawn from the pattern itself. The other half stay random text: fast-check draws a
  // negated class (`[^\x00-\x1f]`, text without control characters) from ASCII only, and names
  // must meet the rest of Unicode too. The document's patterns are ECMAScript with the `u` flag, as ajv reads them.
  return fc.oneof(fc.stringMatching(new RegExp(schema.pattern, 'u'), { maxLength }), text);
}
