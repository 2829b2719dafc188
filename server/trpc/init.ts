/**
 * The tRPC instance: its error formatter (the one place where errors get their public shape) and
 * the base procedure that maps the service's DomainError and database outages to tRPC errors.
 */
import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorIssue } from '../../shared/errors.ts';
import { isDatabaseUnavailable } from '../data/failures.ts';
import { DomainError, unavailable } from '../errors.ts';
import type { Context } from './context.ts';

/** `successStatus`: the REST status of a success where the interface says other than 200. */
export type Meta = OpenApiMeta<{ successStatus?: 201 }>;

const zodIssues = (error: ZodError): ErrorIssue[] =>
  error.issues.map((issue) => ({ field: issue.path.join('.') || '(body)', problem: issue.message }));

function issuesOf(error: TRPCError): ErrorIssue[] | undefined {
  if (error.cause instanceof ZodError) return zodIssues(error.cause);
  if (error.cause instanceof DomainError) return error.cause.issues;
  return undefined;
}

/** tRPC's refusal of a procedure's input: its zod schema did not parse. */
export const isInputError = (error: TRPCError): boolean =>
  error.code === 'BAD_REQUEST' && error.cause instanceof ZodError;

function publicMessage(error: TRPCError): string {
  // Internals (SQL, stack, driver messages) never leave the process.
  if (error.code === 'INTERNAL_SERVER_ERROR') return 'Internal server error';
  // One message for every refused input, on both transports; the issues say what was wrong.
  if (isInputError(error)) return 'Input validation failed';
  return error.message;
}

/** The service's code for an error: the DomainError's own, else tRPC's. */
const serviceCode = (error: TRPCError): ErrorCode =>
  error.cause instanceof DomainError ? error.cause.code : (error.code as ErrorCode);

/** The HTTP status of an error, from the one map in shared/errors.ts. */
export const httpStatusOf = (error: TRPCError): number => ERROR_STATUS[serviceCode(error)] ?? 500;

/** An error as callers see it, on REST as the whole body and on tRPC inside the error shape. */
export function publicErrorBody(error: TRPCError): ErrorBody {
  const issues = issuesOf(error);
  return { code: serviceCode(error), message: publicMessage(error), ...(issues?.length && { issues }) };
}

/**
 * The tRPC code a DomainError travels under. tRPC has no GONE; the error formatter puts the
 * service's own code and status back into the answer, so only the JSON-RPC number differs.
 */
export const trpcCarrierCode = (code: ErrorCode): TRPC_ERROR_CODE_KEY => (code === 'GONE' ? 'NOT_FOUND' : code);

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    isDev: false,
    errorFormatter: ({ shape, error }) => {
      const { code, message, issues } = publicErrorBody(error);
      return {
        code: shape.code,
        message,
        data: { code, httpStatus: httpStatusOf(error), path: shape.data.path, issues },
      };
    },
  });

export const router = t.router;

/** Every procedure's meta by its dotted path ('users.create'), as tRPC keeps them in `_def.procedures`. */
export function procedureMetas(appRouter: { _def: { procedures: object } }): Array<[string, Meta | undefined]> {
  const procedures = appRouter._def.procedures as Record<string, { _def: { meta?: Meta } }>;
  return Object.entries(procedures).map(([path, procedure]) => [path, procedure._def.meta]);
}

export const publicProcedure = t.procedure.use(async ({ next, ctx }) => {
  const result = await next();
  if (result.ok) return result;
  const cause = result.error.cause;
  if (cause instanceof DomainError) {
    throw new TRPCError({ code: trpcCarrierCode(cause.code), message: cause.message, cause });
  }
  if (isDatabaseUnavailable(cause)) {
    ctx.log.error({ err: cause }, 'database unavailable');
    const error = unavailable();
    throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: error.message, cause: error });
  }
  if (result.error.code === 'INTERNAL_SERVER_ERROR') ctx.log.error({ err: cause ?? result.error }, 'request failed');
  return result;
});
