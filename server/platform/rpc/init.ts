/**
 * The tRPC instance and the one map from a failure to what callers see: a DomainError keeps its
 * code, status and message, a database outage is 503, anything else is an internal error whose
 * details never leave the process. The error formatter (tRPC) and the REST layer both answer with
 * it, and both log through `logFailure`.
 *
 * The map is applied where errors are answered rather than in a middleware of every procedure: a
 * middleware layer is an async call and two copies of the call options per request (tRPC's
 * middleware chain), and subscriptions' errors never pass through middlewares anyway.
 */
import { initTRPC, type TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
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

/** tRPC's refusal of a procedure's input: its zod schema did not parse. */
const isInputError = (error: TRPCError): boolean => error.code === 'BAD_REQUEST' && error.cause instanceof ZodError;

/** A failure's DomainError: thrown by the service itself, or a database outage (503). */
function domainErrorOf(error: TRPCError): DomainError | undefined {
  if (error.cause instanceof DomainError) return error.cause;
  if (isDatabaseUnavailable(error.cause)) return unavailable();
  return undefined;
}

function issuesOf(error: TRPCError): ErrorIssue[] | undefined {
  if (error.cause instanceof ZodError) return zodIssues(error.cause);
  return domainErrorOf(error)?.issues;
}

function publicMessage(error: TRPCError): string {
  const domainError = domainErrorOf(error);
  if (domainError) return domainError.message;
  // Internals (SQL, stack, driver messages) never leave the process.
  if (error.code === 'INTERNAL_SERVER_ERROR') return 'Internal server error';
  // One message for every refused input, on both transports; the issues say what was wrong.
  if (isInputError(error)) return 'Input validation failed';
  return error.message;
}

/** The service's code for an error: the DomainError's own, else tRPC's. */
const serviceCode = (error: TRPCError): ErrorCode => domainErrorOf(error)?.code ?? (error.code as ErrorCode);

/** A refusal of the request as bad (400): its input did not parse, or the service found a value wrong (a cursor). */
export const isBadRequest = (error: TRPCError): boolean => serviceCode(error) === 'BAD_REQUEST';

/** Logs a failure that is the service's or the database's fault; a refusal of the caller is not logged. */
export function logFailure(error: TRPCError, log: Pick<Context['log'], 'error'>): void {
  if (isDatabaseUnavailable(error.cause)) log.error({ err: error.cause }, 'database unavailable');
  else if (serviceCode(error) === 'INTERNAL_SERVER_ERROR') log.error({ err: error.cause ?? error }, 'request failed');
}

/** The HTTP status of an error, from the one map in shared/errors.ts. */
export const httpStatusOf = (error: TRPCError): number => ERROR_STATUS[serviceCode(error)] ?? 500;

/** An error as callers see it, on REST as the whole body and on tRPC inside the error shape. */
export function publicErrorBody(error: TRPCError): ErrorBody {
  const issues = issuesOf(error);
  return { code: serviceCode(error), message: publicMessage(error), ...(issues?.length && { issues }) };
}

/**
 * The tRPC code whose JSON-RPC number an error's shape carries. tRPC has no GONE: a 410 carries
 * NOT_FOUND's number, with the service's own code and status in the shape's data.
 */
export const trpcCarrierCode = (code: ErrorCode): TRPC_ERROR_CODE_KEY => (code === 'GONE' ? 'NOT_FOUND' : code);

/** How often an idle subscription stream gets a ping (http/trpc.ts bounds its socket's idle time by it). */
export const SSE_PING_INTERVAL_MS = 20_000;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    isDev: false,
    // Subscriptions (server-sent events): a ping tells the client the server is still there; after
    // two missed pings the client reconnects. Pings are most of an idle stream's cost.
    sse: {
      ping: { enabled: true, intervalMs: SSE_PING_INTERVAL_MS },
      client: { reconnectAfterInactivityMs: 2 * SSE_PING_INTERVAL_MS + 5_000 },
    },
    errorFormatter: ({ shape, error }) => {
      const { code, message, issues } = publicErrorBody(error);
      return {
        code: TRPC_ERROR_CODES_BY_KEY[trpcCarrierCode(code)],
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

export const publicProcedure = t.procedure;
