/**
 * tests/support/schema-arbitrary.ts, the generator behind tests/fuzz.test.ts: for each kind of
 * field the OpenAPI document declares, its values are valid, and valid often enough. fast-check
 * draws again until a value passes the filter, synchronously, so a generator that almost never
 * matches would hang the fuzz test past any timeout: here the unfiltered draws are counted instead.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { emailText } from '../../shared/text.ts';
import { webhookEventTypesSchema } from '../../shared/webhooks.ts';
import { ajv, arbitraryFor, baseArbitrary, type Schema } from '../support/schema-arbitrary.ts';

const SAMPLES = 50;
/** At least this share of the unfiltered values must be valid, so that filtering ends quickly. */
const MIN_VALID_SHARE = 0.25;

const roleName: Schema = { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,63}$' };
const permissionName: Schema = { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,39}:[a-z][a-z0-9_-]{0,39}$' };
/** As zod writes them, and so as the document does. */
const asDocumented = (schema: z.ZodType) => z.toJSONSchema(schema) as Schema;

const cases: Array<[string, Schema]> = [
  ['a role name', roleName],
  ['a permission name', permissionName],
  ['a list of distinct permission names', { type: 'array', items: permissionName, minItems: 1, uniqueItems: true }],
  ['a date-time', { type: 'string', format: 'date-time' }],
  ["zod's ISO timestamp", asDocumented(z.iso.datetime())],
  ["zod's nullable ISO timestamp", asDocumented(z.iso.datetime().nullable())],
  ['a nullable date-time as a list of types', { type: ['string', 'null'], format: 'date-time' }],
  ['an e-mail address', asDocumented(emailText())],
  // A webhook's event types: `["*"]` (a one-item tuple) or distinct types.
  ["a webhook's event types", asDocumented(webhookEventTypesSchema)],
];

describe('values generated from a JSON Schema', () => {
  for (const [name, schema] of cases) {
    it(`are valid for ${name}, and valid often enough unfiltered`, () => {
      const validate = ajv.compile(schema);
      // First, so that a generator that would hang the filter fails here instead.
      const drawn = fc.sample(baseArbitrary(schema), 200);
      expect(drawn.filter((value) => validate(value)).length).toBeGreaterThanOrEqual(drawn.length * MIN_VALID_SHARE);
      for (const value of fc.sample(arbitraryFor(schema), SAMPLES)) {
        expect(validate(value), `${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    });
  }

  it('keeps a patterned string within its maxLength before any filter', () => {
    const schema: Schema = { ...roleName, maxLength: 10 };
    const drawn = fc.sample(baseArbitrary(schema), 200) as string[];
    expect(Math.max(...drawn.map((value) => [...value].length))).toBeLessThanOrEqual(10);
    expect(drawn.filter((value) => ajv.validate(schema, value)).length).toBeGreaterThan(0);
  });

  it('lists no permission twice and at least one, even from a short enum', () => {
    const items: Schema = { ...permissionName, enum: ['members:read', 'members:add'] };
    const schema: Schema = { type: 'array', items, minItems: 1, maxItems: 100, uniqueItems: true };
    for (const list of fc.sample(baseArbitrary(schema), SAMPLES) as string[][]) {
      expect(list.length).toBeGreaterThanOrEqual(1);
      expect(new Set(list).size).toBe(list.length);
    }
  });

  it('makes timestamps in the future, as an expiry must be, and null for a nullable one', () => {
    const values = fc.sample(arbitraryFor(asDocumented(z.iso.datetime().nullable())), 100);
    expect(values).toContain(null);
    const timestamps = values.filter((value): value is string => typeof value === 'string');
    expect(timestamps.length).toBeGreaterThan(0);
    for (const timestamp of timestamps) expect(Date.parse(timestamp)).toBeGreaterThan(Date.now());
  });

  it('still sends free text beyond ASCII where a broad pattern allows it', () => {
    const userId: Schema = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\x00-\\x1f\\x7f]*$' };
    const values = fc.sample(arbitraryFor(userId), 100) as string[];
    expect(values.some((value) => /\P{ASCII}/u.test(value))).toBe(true);
  });
});
