/**
 * An output schema whose check leaves the answer as it is, for the lists and the permission check's
 * answer. tRPC runs a procedure's output schema on every answer, and zod's parse builds a new
 * object for every item and a result object and an issue array for every field. On the member
 * list of 10,000 that garbage was a large share of the request's CPU, mostly in the garbage
 * collector (docs/performance.md, "Measured choices in the code").
 *
 * So the same zod schema is checked through its JSON Schema (zod's own `toJSONSchema`), compiled
 * by ajv, which walks the value in place and allocates nothing when it passes. The zod schema stays
 * the procedure's output for everything else: the OpenAPI document and the client's types. Only its
 * `parse` and `parseAsync`, the two methods tRPC calls (getParseFn), are this check's.
 *
 * One difference from zod: a field the schema does not name is refused, not dropped
 * (`additionalProperties: false`), so it is for answers built field by field: list items the data
 * layer selects so, and the check's answer (modules/permissions). An answer that fails is, as with
 * zod, tRPC's output error: a 500 whose details stay in the log.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';

/**
 * Without JSON Schema's meta-schema: the schemas compiled here are zod's own output, and compiling
 * the meta-schema to check them cost memory for nothing. No string formats either: none of the list
 * items has one, and a format ajv does not know fails the compile, at the list's first answer.
 */
const ajv = new Ajv2020({ allErrors: true, meta: false, validateSchema: false });

const issuesOf = (errors: ErrorObject[] | null | undefined): z.core.$ZodIssue[] =>
  (errors ?? []).map((error) => ({
    code: 'custom',
    input: undefined,
    path: error.instancePath.split('/').slice(1),
    message: `${error.keyword}: ${error.message ?? 'does not match'}`,
  }));

/**
 * The check is compiled by its first answer, not when the procedure is declared: compiling every
 * list's at start was a good part of the start's time (docs/performance.md, "Measured choices in the code").
 */
export function checkedInPlace<Schema extends z.ZodType>(schema: Schema): Schema {
  let compiled: ValidateFunction | undefined;
  // What zod's parse throws: an Error (tRPC keeps it as the cause) whose `issues` tell tRPC that
  // the check failed, not that it must be awaited.
  const check = (value: unknown): z.output<Schema> => {
    const passes = (compiled ??= ajv.compile(z.toJSONSchema(schema, { io: 'output' })));
    if (!passes(value)) throw new z.ZodRealError(issuesOf(passes.errors));
    return value as z.output<Schema>;
  };
  return Object.assign(schema, { parse: check, parseAsync: (value: unknown) => Promise.resolve(value).then(check) });
}
