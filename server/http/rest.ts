/**
 * The REST compatibility layer: the tRPC procedures at the legacy paths through trpc-to-openapi,
 * with the three things it does not do itself for this interface (see each hook).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import type { ErrorBody } from '../../shared/errors.ts';
import type { AppRouter } from '../routers/index.ts';
import type { Context, contextFactory } from '../trpc/context.ts';
import { procedureMetas } from '../trpc/init.ts';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** trpc-to-openapi reads DELETE inputs from the query only; the interface sends them as a JSON body. */
async function mergeDeleteBodyIntoQuery(request: FastifyRequest): Promise<void> {
  if (request.method === 'DELETE' && isPlainObject(request.body)) {
    request.query = { ...(request.query as object), ...request.body };
  }
}

/**
 * trpc-to-openapi's error body carries tRPC's `data` and raw zod issues, and `errorFormatter`
 * cannot remove keys; here every REST error body becomes exactly `{code, message, issues?}`.
 */
async function shapeErrorBody(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (typeof payload !== 'string') return payload;
  void reply.header('content-type', 'application/json; charset=utf-8');
  if (reply.statusCode < 400) return payload;
  let parsed: { code?: ErrorBody['code']; message?: string; issues?: unknown; data?: { issues?: ErrorBody['issues'] } };
  try {
    parsed = JSON.parse(payload);
  } catch {
    return payload;
  }
  const issues = parsed.data ? parsed.data.issues : (parsed.issues as ErrorBody['issues']);
  const body: ErrorBody = { code: parsed.code ?? 'INTERNAL_SERVER_ERROR', message: parsed.message ?? 'Request failed' };
  if (issues?.length) body.issues = issues;
  return JSON.stringify(body);
}

/** Success statuses other than 200 (the interface's 201s), from each procedure's meta. */
function successStatuses(router: AppRouter): Map<string, number> {
  const statuses = new Map<string, number>();
  for (const [path, meta] of procedureMetas(router)) {
    if (meta?.successStatus) statuses.set(path, meta.successStatus);
  }
  return statuses;
}

export function restPlugin(router: AppRouter, createContext: ReturnType<typeof contextFactory>) {
  const statuses = successStatuses(router);
  return async (app: FastifyInstance) => {
    app.addHook('preHandler', mergeDeleteBodyIntoQuery);
    app.addHook('onSend', shapeErrorBody);
    await app.register(fastifyTRPCOpenApiPlugin, {
      router,
      createContext,
      // Also sees failures: only a success gets the procedure's own status.
      responseMeta: ({
        ctx,
        paths,
        errors,
      }: {
        ctx?: Context;
        paths?: readonly string[];
        errors: readonly unknown[];
      }) => {
        if (errors.length > 0) return {};
        const status = paths?.[0] ? statuses.get(paths[0]) : undefined;
        return { ...(status && { status }), headers: ctx?.responseHeaders ?? {} };
      },
    });
  };
}
