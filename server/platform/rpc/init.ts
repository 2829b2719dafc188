/**
 * The tRPC instance, whose error formatter answers with the service's one map from a failure to
 * what callers see (../errors.ts), as the REST layer does.
 *
 * The map is applied where errors are answered rather than in a middleware of every procedure: a
 * middleware layer is an async call and two copies of the call options per request (tRPC's
 * middleware chain), and subscriptions' errors never pass through middlewares anyway.
 */
import { initTRPC } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Requirement } from '../authorization/access.ts';
import { httpStatusOf, publicErrorBody, trpcCarrierCode } from '../errors.ts';
import type { ServicePermission } from '../role-catalogue.ts';
import type { Context } from './context.ts';

/**
 * `successStatus`: the REST status of a success where the interface says other than 200;
 * `alsoAccepted`: a success may be 202 as well (the procedure sets `ctx.restStatus`).
 * `wholeListStreamed`: a REST list (restList, lists.ts) whose whole form, without `?limit` or
 * `?cursor`, the REST layer streams page by page (http/rest.ts).
 * `access` or `permission`: who may call the procedure, set by the builder it starts from
 * (procedures.ts): any caller, a creator, or an actor holding that permission in an organization
 * (`orSelf`: or any member, acting on themselves through that input field; `whenGiven`: and
 * another permission when that input field is given).
 */
export type Meta = OpenApiMeta<{
  successStatus?: 201 | 202;
  alsoAccepted?: true;
  wholeListStreamed?: boolean;
  /** Its JSON body may be left out, every field of it being optional (rest-meta.ts). */
  bodyOptional?: true;
  access?: 'caller' | 'anyone' | 'creator' | 'application';
  permission?: Requirement;
  orSelf?: string;
  whenGiven?: { field: string; may: ServicePermission };
}>;

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
