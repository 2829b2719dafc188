/**
 * SCIM PATCH (RFC 7644 §3.5.2), applied by `scim-patch` (a maintained implementation of the RFC's
 * operations and paths) to the resource as it is, after the forms identity providers send are made
 * the RFC's (behaviour §18): Entra ID's capitalised `op`s, its `"active": "False"`, its operations
 * without `path` whose value names attributes by dotted paths (`"name.givenName"`). Every name is
 * resolved against the schema first (attribute-names.ts): scim-patch only ever sees declared
 * names, in paths and in values. A path with a value filter (`emails[type eq "work"].value`) is
 * applied here, its filter read once as filters are (filter.ts: its strings JSON strings). A
 * removal that finds nothing to remove changes nothing, so that a repeated request converges, but
 * one without a path is 400 noTarget; a replace whose value filter matches nothing adds the value,
 * as Entra ID expects; operations on attributes the resource does not keep (`title`, enterprise
 * extensions) are left out. Refusals are in the service's words, never scim-patch's.
 */
import { filter as matcher, stringify, type Filter } from 'scim2-parse-filter';
import { RemoveValueNotArray, scimPatch, type ScimResource } from 'scim-patch';
import { z } from 'zod';
import {
  attributeNamed,
  attributeValue,
  isObject,
  singleValue,
  withoutSchema,
  type KnownAttribute,
  type ResourceNames,
} from './attribute-names.ts';
import { parsedFilter } from './filter.ts';
import { invalidValue, noTarget, ScimProblem } from './scim-errors.ts';
import { PATCH_SCHEMA } from './schemas.ts';

const operation = z.object({
  op: z
    .string()
    .transform((op) => op.toLowerCase())
    .pipe(z.enum(['add', 'replace', 'remove'])),
  path: z.string().max(1_000).optional(),
  value: z.unknown().optional(),
});

const patchRequest = z.object({
  schemas: z.array(z.string()).refine((schemas) => schemas.includes(PATCH_SCHEMA), `Must name ${PATCH_SCHEMA}`),
  Operations: z.array(operation).min(1).max(1_000),
});

type WrittenOperation = z.infer<typeof operation>;

/**
 * A path's value filter (`emails[type eq "work"].value`), parsed: the values of `attribute` it
 * selects, and the sub-attribute of each the operation changes (none: the values themselves).
 */
interface ValueSelection {
  attribute: string;
  filter: Filter;
  sub: string | undefined;
}

/**
 * An operation as `applyPatch` takes it: its path in declared names; a path with a value filter
 * has it parsed, and is applied here rather than by scim-patch, which would read the filter's text
 * again by rules of its own (a backslash doubled, a `:` or `.` in a string taken for the path's).
 */
export interface Operation {
  op: WrittenOperation['op'];
  path: string;
  value?: unknown;
  selection?: ValueSelection;
}

const invalidPath = (path: string, why: string) => new ScimProblem('BAD_REQUEST', 'invalidPath', `${path}: ${why}`);

/**
 * RFC 7644's PATH once the schema's URN is gone: an attribute, a value filter in brackets, a
 * sub-attribute. Names are RFC 7643's ATTRNAME (`$ref` too), and may start with `_` so that
 * `__proto__` is read as a name, one the schema does not declare; a filter runs to the last `]`.
 */
const PATH = /^[A-Za-z_$][\w$-]*(?:\[(?<filter>.+)\])?(?:\.(?<sub>[A-Za-z_$][\w$-]*))?$/;

/** The filter's attribute names as `attribute` declares its sub-attributes; any other is 400 invalidPath. */
function declaredFilter(path: string, attribute: KnownAttribute, filter: Filter): Filter {
  switch (filter.op) {
    case 'and':
    case 'or':
      return { ...filter, filters: filter.filters.map((part) => declaredFilter(path, attribute, part)) };
    case 'not':
      return { ...filter, filter: declaredFilter(path, attribute, filter.filter) };
    case '[]':
      throw invalidPath(path, 'a value filter cannot hold another');
    default: {
      const name = attribute.subAttributes.get(filter.attrPath.toLowerCase());
      if (name === undefined) throw invalidPath(path, `${attribute.name} has no sub-attribute ${filter.attrPath}`);
      return { ...filter, attrPath: name };
    }
  }
}

/**
 * `path` in declared names, with what it points at; undefined when it names an attribute the
 * resource does not keep (`title`, an extension's, `__proto__`). A path of a kept attribute that
 * the grammar refuses (unclosed brackets, a filter that does not parse, deeper than a
 * sub-attribute), a filter on a single-valued attribute or a sub-attribute of a simple one is 400
 * invalidPath (RFC 7644 §3.12).
 */
function declaredPath(
  names: ResourceNames,
  written: string,
): { path: string; attribute: KnownAttribute; sub: string | undefined; filter: Filter | undefined } | undefined {
  const path = withoutSchema(names, written);
  if (path === undefined) return undefined;
  const leading = /^[A-Za-z_$][\w$-]*/.exec(path)?.[0];
  const attribute = leading === undefined ? undefined : attributeNamed(names, leading);
  if (leading !== undefined && attribute === undefined) return undefined;
  const match = PATH.exec(path);
  if (!match || !attribute) throw invalidPath(written, 'not a SCIM attribute path (RFC 7644 §3.10)');
  const { filter, sub: writtenSub } = match.groups!;
  if ((filter !== undefined && !attribute.multiValued) || (writtenSub !== undefined && !attribute.complex)) {
    throw invalidPath(
      written,
      `${attribute.name} has no ${filter === undefined ? 'sub-attributes' : 'values to filter'}`,
    );
  }
  let declared = attribute.name;
  let declaredValues: Filter | undefined;
  if (filter !== undefined) {
    const parsed = parsedFilter(filter, (why) => invalidPath(written, `the filter in [ ]: ${why}`));
    declaredValues = declaredFilter(written, attribute, parsed);
    declared += `[${stringify(declaredValues)}]`;
  }
  if (writtenSub === undefined) return { path: declared, attribute, sub: undefined, filter: declaredValues };
  const sub = attribute.subAttributes.get(writtenSub.toLowerCase());
  return sub === undefined ? undefined : { path: `${declared}.${sub}`, attribute, sub, filter: declaredValues };
}

/**
 * One operation as operations with a path each, in declared names. Without a path, each attribute
 * of the value (`"name"`, Entra ID's `"name.givenName"`, a filtered `"emails[type eq \"work\"].value"`)
 * is the operation with that path, as RFC 7644 §3.5.2.1 and §3.5.2.3 describe it: a complex value
 * changes the sub-attributes it gives and leaves the others as they are.
 */
function declaredOperations(names: ResourceNames, { op, path, value }: WrittenOperation): Operation[] {
  if (path === undefined) {
    // RFC 7644 §3.5.2.2: a removal without a path names nothing to remove, and fails so.
    if (op === 'remove') throw noTarget('A remove needs a path that names what to remove');
    if (!isObject(value)) throw invalidValue(`An ${op} without a path takes an object of attributes`);
    return Object.entries(value).flatMap(([key, inner]) => declaredOperations(names, { op, path: key, value: inner }));
  }
  const target = declaredPath(names, path);
  if (target === undefined) return [];
  const selection = target.filter && { attribute: target.attribute.name, filter: target.filter, sub: target.sub };
  // RFC 7643 §2.5: null is "unassigned", so an add or replace of null clears what the path names, as
  // a remove does (scim-patch would merge null into a complex value); a required attribute cleared
  // is then refused as missing.
  // A removal through a value filter takes what the filter selects, whatever value it names.
  if (value === null || (op === 'remove' && (selection || value === undefined)))
    return [{ op: 'remove', path: target.path, selection }];
  if (value === undefined) throw invalidValue(`${path}: an ${op} needs a value`);
  const given = target.sub === undefined ? attributeValue(target.attribute, value) : singleValue(target.path, value);
  // Each value a filter selects is an object of sub-attributes, into which an object merges.
  if (selection && target.sub === undefined && Array.isArray(given))
    throw invalidValue(`${path}: Must be an object of its sub-attributes, not a list`);
  return [{ op, path: target.path, value: given, selection }];
}

/**
 * The PATCH body's operations, each with a path in the names `names` declares; those on attributes
 * the resource does not keep left out. A body that does not fit is 400 invalidValue (RFC 7644's
 * `invalidSyntax` is not one clients act on), a path that does not parse 400 invalidPath.
 */
export function patchOperations(body: unknown, names: ResourceNames): Operation[] {
  const result = patchRequest.safeParse(body);
  if (!result.success) {
    const [issue] = result.error.issues;
    throw invalidValue(`${issue!.path.join('.') || 'The body'}: ${issue!.message}`);
  }
  return result.data.Operations.flatMap((one) => declaredOperations(names, one));
}

/** The removal of the values of `attribute` whose `sub` is `value`: the RFC's `members[value eq "…"]`. */
export function removalOf(attribute: string, sub: string, value: string): Operation {
  const filter: Filter = { op: 'eq', attrPath: sub, compValue: value };
  return { op: 'remove', path: `${attribute}[${stringify(filter)}]`, selection: { attribute, filter, sub: undefined } };
}

/** A resource as a patch goes through it: its attributes by their declared names. */
type Attributes = Record<string, unknown>;

/** A copy of `resource` whose `attribute` holds `values`; without it when there are none (RFC 7644 §3.5.2.2). */
function withValues(resource: Attributes, attribute: string, values: unknown[]): Attributes {
  const copy = { ...resource };
  if (values.length > 0) copy[attribute] = values;
  else delete copy[attribute];
  return copy;
}

/**
 * A value for a filter that selects nothing: the one the filter names, with the operation's value as
 * its `sub` (`emails[type eq "home"].value` adds `{"type": "home", "value": …}`), where the filter is
 * one `eq`; otherwise none can be made, and a replace has no target (RFC 7644 §3.5.2.3).
 */
function valueToAdd({ op, path, value }: Operation, { filter, sub }: ValueSelection): object | undefined {
  if (sub !== undefined && filter.op === 'eq') return { [filter.attrPath]: filter.compValue, [sub]: value };
  if (op === 'replace') throw noTarget(`${path}: no value matches the filter, and none can be made from it`);
  return undefined;
}

/**
 * `operation` on the values its path's filter selects. A removal takes them, or their `sub`; one
 * that selects nothing changes nothing (behaviour §18). An add or replace sets their `sub`, or
 * merges its value into each; one that selects nothing adds the value the filter names (behaviour
 * §18: Entra ID replaces the work e-mail of a user who has none, and expects it added).
 */
function applyToSelected(resource: Attributes, operation: Operation, selection: ValueSelection): Attributes {
  const { attribute, filter, sub } = selection;
  const stored = resource[attribute];
  const values = Array.isArray(stored) ? (stored as Array<Record<string, unknown>>) : [];
  const selects = matcher(filter);
  if (operation.op === 'remove') {
    if (sub === undefined)
      return withValues(
        resource,
        attribute,
        values.filter((one) => !selects(one)),
      );
    return withValues(
      resource,
      attribute,
      values.map((one) =>
        selects(one) ? Object.fromEntries(Object.entries(one).filter(([key]) => key !== sub)) : one,
      ),
    );
  }
  if (!values.some(selects)) {
    const added = valueToAdd(operation, selection);
    return added === undefined ? resource : withValues(resource, attribute, [...values, added]);
  }
  const change = sub === undefined ? (operation.value as object) : { [sub]: operation.value };
  return withValues(
    resource,
    attribute,
    values.map((one) => (selects(one) ? { ...one, ...change } : one)),
  );
}

/** `operation`, whose path has no value filter, applied by scim-patch. */
function applyToPath(resource: Attributes, operation: Operation): Attributes {
  const { op, path, value } = operation;
  try {
    return scimPatch(resource as unknown as ScimResource, [{ op, path, ...(value !== undefined && { value }) }], {
      mutateDocument: false,
    }) as unknown as Attributes;
  } catch (error) {
    // scim-patch trusts a value to fit where it goes; one that does not may fail inside it (a
    // TypeError): what is wrong is the value, and the library's words would say nothing of it.
    if (error instanceof RemoveValueNotArray)
      throw invalidValue(`${path} is not a list: a remove's value names values to take out of one`);
    throw invalidValue(`${path}: the value does not fit there`);
  }
}

/** The resource after the operations (`patchOperations`'); refusals are 400 with the scimType RFC 7644 §3.12 names. */
export function applyPatch<Resource extends object>(resource: Resource, operations: Operation[]): Resource {
  let patched = resource as unknown as Attributes;
  for (const operation of operations) {
    patched = operation.selection
      ? applyToSelected(patched, operation, operation.selection)
      : applyToPath(patched, operation);
  }
  return patched as unknown as Resource;
}
