/**
 * The tRPC instance: its error formatter (the one place where errors get their public shape) and
 * the base procedure that maps the service's DomainError and database outages to tRPC errors.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import type { ErrorBody, ErrorCode, ErrorIssue } from '../../shared/errors.ts';
import { isDatabaseUnavailable } from '../data/availability.ts';
import { DomainError } from '../errors.ts';
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

/** An error as callers see it, on REST as the whole body and on tRPC inside the error shape. */
export function publicErrorBody(error: TRPCError): ErrorBody {
  const issues = issuesOf(error);
  return { code: error.code as ErrorCode, message: publicMessage(error), ...(issues?.length && { issues }) };
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    isDev: false,
    errorFormatter: ({ shape, error }) => {
      const { message, issues } = publicErrorBody(error);
      return {
        code: shape.code,
        message,
        data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path, issues },
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
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  if (isDatabaseUnavailable(cause)) {
    ctx.log.error({ err: cause }, 'database unreachable');
    throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable, try again later' });
  }
  if (result.error.code === 'INTERNAL_SERVER_ERROR') ctx.log.error({ err: cause ?? result.error }, 'request failed');
  return result;
});
