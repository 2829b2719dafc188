/**
 * SCIM PATCH (RFC 7644 §3.5.2), applied by `scim-patch` (a maintained implementation of the RFC's
 * operations and paths) to the resource as it is, after the forms identity providers send are made
 * the RFC's (behaviour §18): Entra ID's capitalised `op`s, its `"active": "False"`, its operations
 * without `path` whose value names attributes by dotted paths (`"name.givenName"`). Every name is
 * resolved against the schema first (attribute-names.ts): scim-patch only ever sees declared
 * names, in paths and in values. A removal that finds nothing to remove changes nothing, so that a
 * repeated request converges, but one without a path is 400 noTarget; a replace whose value filter
 * matches nothing adds the value, as Entra ID expects; operations on attributes the resource does
 * not keep (`title`, enterprise extensions) are left out.
 */
import { stringify, type Filter } from 'scim2-parse-filter';
import { scimPatch, ScimError, type ScimPatchOperation, type ScimResource } from 'scim-patch';
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
import { invalidValue, noTarget, ScimProblem, type ScimType } from './scim-errors.ts';
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

export type Operation = z.infer<typeof operation>;

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
): { path: string; attribute: KnownAttribute; sub: string | undefined } | undefined {
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
  if (filter !== undefined) {
    const parsed = parsedFilter(filter, (why) => invalidPath(written, `the filter in [ ]: ${why}`));
    declared += `[${stringify(declaredFilter(written, attribute, parsed))}]`;
  }
  if (writtenSub === undefined) return { path: declared, attribute, sub: undefined };
  const sub = attribute.subAttributes.get(writtenSub.toLowerCase());
  return sub === undefined ? undefined : { path: `${declared}.${sub}`, attribute, sub };
}

/**
 * One operation as operations with a path each, in declared names. Without a path, each attribute
 * of the value (`"name"`, Entra ID's `"name.givenName"`, a filtered `"emails[type eq \"work\"].value"`)
 * is the operation with that path, as RFC 7644 §3.5.2.1 and §3.5.2.3 describe it: a complex value
 * changes the sub-attributes it gives and leaves the others as they are.
 */
function declaredOperations(names: ResourceNames, { op, path, value }: Operation): Operation[] {
  if (path === undefined) {
    // RFC 7644 §3.5.2.2: a removal without a path names nothing to remove, and fails so.
    if (op === 'remove') throw noTarget('A remove needs a path that names what to remove');
    if (!isObject(value)) throw invalidValue(`An ${op} without a path takes an object of attributes`);
    return Object.entries(value).flatMap(([key, inner]) => declaredOperations(names, { op, path: key, value: inner }));
  }
  const target = declaredPath(names, path);
  if (target === undefined) return [];
  // RFC 7643 §2.5: null is "unassigned", so an add or replace of null clears what the path names, as
  // a remove does (scim-patch would merge null into a complex value); a required attribute cleared
  // is then refused as missing.
  if (value === null) return [{ op: 'remove', path: target.path }];
  if (value === undefined) return [{ op, path: target.path }];
  const given = target.sub === undefined ? attributeValue(target.attribute, value) : singleValue(target.path, value);
  return [{ op, path: target.path, value: given }];
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

const SCIM_TYPES: readonly ScimType[] = ['invalidPath', 'noTarget', 'invalidValue', 'mutability'];

/** The resource after the operations (`patchOperations`'). Refusals are 400 with the scimType scim-patch names. */
export function applyPatch<Resource extends object>(resource: Resource, operations: Operation[]): Resource {
  let patched = resource as unknown as ScimResource;
  for (const scimOperation of operations) {
    try {
      patched = scimPatch(patched, [scimOperation as ScimPatchOperation], {
        mutateDocument: false,
        // A replace whose value filter matches nothing adds the value (behaviour §18) where RFC 7644
        // §3.5.2.3 would refuse it (noTarget): Entra ID replaces `emails[type eq "work"].value` of a
        // user who has no work e-mail yet, and expects it added.
        treatMissingAsAdd: true,
      });
    } catch (error) {
      // scim-patch trusts a value to fit where it goes; one that does not may fail inside it (a
      // TypeError): what is wrong is the value, and the library's words would say nothing of it.
      if (!(error instanceof ScimError)) throw invalidValue(`${scimOperation.path}: the value does not fit there`);
      if (scimOperation.op === 'remove' && error.scimCode === 'noTarget') continue;
      const scimType = SCIM_TYPES.find((type) => type === error.scimCode) ?? 'invalidValue';
      throw new ScimProblem('BAD_REQUEST', scimType, error.message);
    }
  }
  return patched as unknown as Resource;
}
