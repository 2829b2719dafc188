/**
 * The typed client of the organization and user service: every procedure of the server's router,
 * with inputs and outputs inferred from it, over tRPC with request batching. Every call takes an
 * AbortSignal (`query(input, { signal })`), as TanStack Query passes one.
 *
 *   const api = createClient({ url: 'http://127.0.0.1:3000', token: () => auth.currentToken(), organizationId });
 *   const members = await api.members.list.query();
 */
import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError, type Operation } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/routers/index.ts';
import { MAX_BATCH_ITEMS, MAX_HEADER_BYTES } from '../../shared/limits.ts';
import { toApiError } from './errors.ts';

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

/** The AbortSignal of a call's options (`query(input, { signal })`), if it has one. */
function signalOf(options: unknown): AbortSignal | undefined {
  const signal = (options as { signal?: unknown } | undefined)?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

/**
 * A call whose signal aborts rejects at once. tRPC's batch link cancels a batch's HTTP request only
 * once every call in it is aborted, and until then lets an aborted call resolve with its answer.
 */
function untilAborted<T>(call: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(TRPCClientError.from(signal.reason as Error));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    call.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Wraps the tRPC proxy so that every call rejects with an ApiError (status and code) instead of
 * a bare TRPCClientError, and at once when its signal aborts. tRPC's client has no hook for this:
 * `TRPCClientError.from` re-wraps whatever a link throws, so it has to sit around the calls.
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
      if (!(result instanceof Promise)) return result;
      const call = result.catch((error: unknown) => Promise.reject(toApiError(error)));
      const signal = signalOf(args.at(-1));
      return signal ? untilAborted(call, signal) : call;
    },
  });
}

/**
 * A batched request's URL stays within half of the server's header limit, leaving the other half
 * to the token and the other headers.
 */
export const MAX_URL_LENGTH = MAX_HEADER_BYTES / 2;

/**
 * An operation whose input, as JSON in a URL, is longer than this travels alone and as a POST body
 * (a query too, by tRPC's method override). Batches then hold only shorter inputs: a GET batch's
 * URL always has room for its first one, and a POST batch of MAX_BATCH_ITEMS of them stays under
 * the server's body limit, MAX_BODY_BYTES (URL-encoding is never shorter than the UTF-8 it encodes).
 */
export const LONE_INPUT_LENGTH = 4 * 1024;

const encodedInputLength = (operation: Operation) =>
  operation.input === undefined ? 0 : encodeURIComponent(JSON.stringify(operation.input)).length;

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
      splitLink({
        condition: (operation) => encodedInputLength(operation) > LONE_INPUT_LENGTH,
        true: httpLink({ url, fetch: options.fetch, headers, methodOverride: 'POST' }),
        // Calls made together go out together, in batches the server accepts (at most
        // MAX_BATCH_ITEMS calls, URLs within MAX_URL_LENGTH).
        false: httpBatchLink({
          url,
          fetch: options.fetch,
          headers,
          maxItems: MAX_BATCH_ITEMS,
          maxURLLength: MAX_URL_LENGTH,
        }),
      }),
    ],
  });
  return rejectingWithApiErrors(client);
}

export type Client = ReturnType<typeof createClient>;
