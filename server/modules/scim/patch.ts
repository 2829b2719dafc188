/**
 * SCIM PATCH (RFC 7644 §3.5.2), applied by `scim-patch` (a maintained implementation of the RFC's
 * operations and paths) to the resource as it is, after the forms identity providers send are made
 * the RFC's (behaviour §18): Entra ID's capitalised `op`s, its `"active": "False"`, its operations
 * without `path` whose value names attributes by dotted paths (`"name.givenName"`). A removal that
 * finds nothing to remove changes nothing, so that a repeated request converges; operations on
 * attributes the resource does not keep (`title`, enterprise extensions) are left out.
 */
import { scimPatch, ScimError, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { z } from 'zod';
import { invalidValue, ScimProblem, type ScimType } from './scim-errors.ts';
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

/** The body of a PATCH: its operations, or 400 invalidValue (RFC 7644's `invalidSyntax` is not one clients act on). */
export function patchOperations(body: unknown): Operation[] {
  const result = patchRequest.safeParse(body);
  if (!result.success) {
    const [issue] = result.error.issues;
    throw invalidValue(`${issue!.path.join('.') || 'The body'}: ${issue!.message}`);
  }
  return result.data.Operations;
}

/** `{"name.givenName": "x"}` as `{"name": {"givenName": "x"}}`; other keys as they are. */
function expandDottedKeys(value: Record<string, unknown>): Record<string, unknown> {
  const expanded: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const dot = key.indexOf('.');
    if (dot <= 0 || key.startsWith('urn:')) {
      expanded[key] = inner;
      continue;
    }
    const head = key.slice(0, dot);
    const nested = (expanded[head] ??= {}) as Record<string, unknown>;
    if (typeof nested === 'object' && nested !== null) nested[key.slice(dot + 1)] = inner;
  }
  return expanded;
}

const rootOf = (path: string) => path.split(/[.[]/, 1)[0]!.toLowerCase();

const SCIM_TYPES: readonly ScimType[] = ['invalidPath', 'noTarget', 'invalidValue', 'mutability'];

/**
 * The resource after the operations; `keeps` names (lower-cased) the attributes an operation may
 * touch. Refusals are 400 with the scimType scim-patch names.
 */
export function applyPatch<Resource extends object>(
  resource: Resource,
  operations: Operation[],
  keeps: readonly string[],
): Resource {
  let patched = resource as unknown as ScimResource;
  for (const { op, path, value } of operations) {
    if (path !== undefined && !keeps.includes(rootOf(path))) continue;
    const plain = typeof value === 'object' && value !== null && !Array.isArray(value);
    const given = path === undefined && plain ? expandDottedKeys(value as Record<string, unknown>) : value;
    const kept =
      path === undefined && plain
        ? Object.fromEntries(Object.entries(given as object).filter(([key]) => keeps.includes(key.toLowerCase())))
        : given;
    const scimOperation = (path === undefined ? { op, value: kept } : { op, path, value: kept }) as ScimPatchOperation;
    try {
      patched = scimPatch(patched, [scimOperation], { mutateDocument: false, treatMissingAsAdd: true });
    } catch (error) {
      if (!(error instanceof ScimError)) throw error;
      if (op === 'remove' && error.scimCode === 'noTarget') continue;
      const scimType = SCIM_TYPES.find((type) => type === error.scimCode) ?? 'invalidValue';
      throw new ScimProblem('BAD_REQUEST', scimType, error.message);
    }
  }
  return patched as unknown as Resource;
}
