/**
 * The typed client of the organization and user service: every procedure of the server's router,
 * with inputs and outputs inferred from it, over tRPC with request batching.
 *
 *   const api = createClient({ url: 'http://127.0.0.1:3000', token: () => auth.currentToken(), organizationId });
 *   const members = await api.members.list.query();
 */
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/routers/index.ts';
import { toApiError } from './errors.ts';
import { withSubscriptions } from './links.ts';

export { ApiError, type ErrorCode, type ErrorIssue } from './errors.ts';
export type { AppRouter };
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

export interface ClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:3000`; tRPC is served under `/trpc`. */
  url: string;
  /** The bearer token, or a function that returns a fresh one for each request. */
  token: string | (() => string | Promise<string>);
  /** Sent as the `organization_id` header: the organization the `members.*` procedures act on. */
  organizationId?: string;
  /** A fetch implementation, where the global one is not wanted. */
  fetch?: typeof fetch;
}

/**
 * Wraps the tRPC proxy so that every call rejects with an ApiError (status and code) instead of
 * a bare TRPCClientError. tRPC's client has no hook for this: `TRPCClientError.from` re-wraps
 * whatever a link throws, so the translation has to sit around the calls themselves.
 */
function rejectingWithApiErrors<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      return typeof value === 'function' || (typeof value === 'object' && value !== null)
        ? rejectingWithApiErrors(value)
        : value;
    },
    apply(callable, thisArgument, args) {
      const result = Reflect.apply(callable as (...params: unknown[]) => unknown, thisArgument, args);
      return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(toApiError(error))) : result;
    },
  });
}

export function createClient(options: ClientOptions) {
  const token = options.token;
  const url = `${options.url.replace(/\/+$/, '')}/trpc`;
  const headers = async () => {
    const bearer = typeof token === 'function' ? await token() : token;
    return {
      authorization: `Bearer ${bearer}`,
      ...(options.organizationId ? { organization_id: options.organizationId } : {}),
    };
  };
  const client = createTRPCClient<AppRouter>({
    links: [
      withSubscriptions({ url, headers, fetch: options.fetch }, httpBatchLink({ url, fetch: options.fetch, headers })),
    ],
  });
  return rejectingWithApiErrors(client);
}

export type Client = ReturnType<typeof createClient>;
