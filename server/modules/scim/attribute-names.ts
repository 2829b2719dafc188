/**
 * Attribute names as clients write them, made the names the resources use (behaviour §18): SCIM
 * compares them ignoring case (RFC 7643 §2.1) and may prefix them with the resource's core schema
 * (RFC 7644 §3.10), so `Active` and `urn:ietf:params:scim:schemas:core:2.0:User:active` are
 * `active`. Names are looked up among the attributes the schema (schemas.ts) declares: any other
 * name, `__proto__`, `constructor` and `prototype` included, is an attribute this service does not
 * keep, and every object this module builds has only declared names as keys, so nothing a client
 * names is ever followed into or merged onto an object's prototype.
 */
import { invalidValue } from './scim-errors.ts';
import type { Attribute } from './schemas.ts';

export interface KnownAttribute {
  name: string;
  complex: boolean;
  multiValued: boolean;
  /** The sub-attributes' names, by their lower-cased form. */
  subAttributes: Map<string, string>;
}

export interface ResourceNames {
  /** The core schema's URN, which may prefix a name. */
  schema: string;
  attributes: Map<string, KnownAttribute>;
}

export const namesOf = (schema: string, attributes: readonly Attribute[]): ResourceNames => ({
  schema,
  attributes: new Map(
    attributes.map((attribute) => [
      attribute.name.toLowerCase(),
      {
        name: attribute.name,
        complex: attribute.type === 'complex',
        multiValued: attribute.multiValued === true,
        subAttributes: new Map((attribute.subAttributes ?? []).map((sub) => [sub.name.toLowerCase(), sub.name])),
      },
    ]),
  ),
});

/**
 * `written` without the core schema's URN, or undefined for a name of another schema (an
 * extension's, which this service does not keep).
 */
export function withoutSchema(names: ResourceNames, written: string): string | undefined {
  if (!/^urn:/i.test(written)) return written;
  const prefix = `${names.schema}:`;
  return written.slice(0, prefix.length).toLowerCase() === prefix.toLowerCase()
    ? written.slice(prefix.length)
    : undefined;
}

/** The declared attribute `written` names, ignoring case and the core schema's URN. */
export function attributeNamed(names: ResourceNames, written: string): KnownAttribute | undefined {
  const name = withoutSchema(names, written);
  return name === undefined ? undefined : names.attributes.get(name.toLowerCase());
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A single value: an object or a list where one is expected is refused before anything merges it. */
export function singleValue(name: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null) throw invalidValue(`${name}: Must be a single value`);
  return value;
}

/**
 * One value of a complex attribute: an object, with its sub-attributes' declared names; others left
 * out. Anything else is refused before it is merged: a later operation's path into it
 * (`name.givenName` after `name` became a string) would have nowhere to go.
 */
function complexValue(attribute: KnownAttribute, value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw invalidValue(`${attribute.name}: Must be an object of its sub-attributes`);
  const kept: Array<[string, unknown]> = [];
  for (const [key, inner] of Object.entries(value)) {
    const name = attribute.subAttributes.get(key.toLowerCase());
    if (name !== undefined) kept.push([name, singleValue(`${attribute.name}.${name}`, inner)]);
  }
  return Object.fromEntries(kept);
}

/**
 * A value of `attribute`, its sub-attributes named as declared: what may be merged into the
 * resource. A list for a single-valued attribute is refused: merged, its items' indexes would be
 * taken for sub-attributes' names and the change lost.
 */
export function attributeValue(attribute: KnownAttribute, value: unknown): unknown {
  if (!attribute.complex) return singleValue(attribute.name, value);
  // A body's null is the attribute unassigned (RFC 7643 §2.5); PATCH makes it a removal first.
  if (value === null) return null;
  if (!Array.isArray(value)) return complexValue(attribute, value);
  if (!attribute.multiValued) throw invalidValue(`${attribute.name}: Must be a single value, not a list`);
  return value.map((one) => complexValue(attribute, one));
}

/** A resource's body (POST, PUT) with its attributes named as declared; those of no declared name left out. */
export function declaredAttributes(names: ResourceNames, body: unknown): unknown {
  if (!isObject(body)) return body;
  const kept: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(body)) {
    const attribute = attributeNamed(names, key);
    if (attribute !== undefined) kept.push([attribute.name, attributeValue(attribute, value)]);
  }
  return Object.fromEntries(kept);
}
