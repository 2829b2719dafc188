/**
 * The typed client of the organization and user service: every procedure of the server's router,
 * with inputs and outputs inferred from it, over tRPC with request batching. Every call takes
 * options: an AbortSignal (`query(input, { signal })`, as TanStack Query passes one), the
 * organization it acts on, and for a change an Idempotency-Key.
 *
 *   const api = createClient({ url: 'http://127.0.0.1:3000', token: () => auth.currentToken(), organizationId });
 *   const members = await api.members.list.query();
 *   const other = await api.members.list.query(undefined, { organizationId: otherOrganizationId });
 */
import { createTRPCClient, TRPCClientError, type TRPCClient } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { toProcedureOptions, type CallContext, type CallOptions, type MutationOptions } from './call-options.ts';
import { toApiError } from './errors.ts';
import { links } from './links.ts';
import type { AppRouter } from './router.ts';

export { ApiError, isKeyInUse, toApiError, type ErrorCode, type ErrorIssue } from './errors.ts';
export { LONE_INPUT_LENGTH, MAX_URL_LENGTH } from './links.ts';
export type { AppRouter, CallContext, CallOptions, MutationOptions };
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

export interface ClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:3000`; tRPC is served under `/trpc`. */
  url: string;
  /** The bearer token, or a function that returns a fresh one for each request. */
  token: string | (() => string | Promise<string>);
  /**
   * Sent as the `organization_id` header: the organization the `members.*` procedures act on,
   * unless a call names another (`{ organizationId }` in its options).
   */
  organizationId?: string;
  /** A fetch implementation, where the global one is not wanted. */
  fetch?: typeof fetch;
}

/** A query's or mutation's call, taking our options in place of tRPC's. */
type WithOptions<Call, Options> = Call extends (input: infer Input, options?: never) => infer Result
  ? (input: Input, options?: Options) => Result
  : never;

/** tRPC's typed client with our call options: `query(input, CallOptions)`, `mutate(input, MutationOptions)`. */
type ClientOf<Record> = {
  [Key in keyof Record as Key extends string ? Key : never]: Record[Key] extends { query: infer Call }
    ? { query: WithOptions<Call, CallOptions> }
    : Record[Key] extends { mutate: infer Call }
      ? { mutate: WithOptions<Call, MutationOptions> }
      : Record[Key] extends { subscribe: unknown }
        ? Record[Key]
        : ClientOf<Record[Key]>;
};

/** The client `createClient` returns: `api.members.list.query()`, `api.members.add.mutate(input, options)`. */
export type Client = ClientOf<TRPCClient<AppRouter>>;

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
 * Wraps the tRPC proxy: a query's or mutation's options become tRPC's (ours travel in its
 * context), and the call rejects with an ApiError (status and code) instead of a bare
 * TRPCClientError, and at once when its signal aborts. tRPC's client has no hook for this:
 * `TRPCClientError.from` re-wraps whatever a link throws, so it has to sit around the calls.
 */
function withCallOptions<T extends object>(target: T, method?: string): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      return typeof value === 'function' || (typeof value === 'object' && value !== null)
        ? withCallOptions(value, String(key))
        : value;
    },
    apply(callable, thisArgument, args: unknown[]) {
      const [input, options] = args;
      const call =
        method === 'query' || method === 'mutate' ? [input, toProcedureOptions(options as MutationOptions)] : args;
      const result = Reflect.apply(callable as (...params: unknown[]) => unknown, thisArgument, call);
      if (!(result instanceof Promise)) return result;
      const answer = result.catch((error: unknown) => {
        throw toApiError(error);
      });
      const signal = signalOf(options);
      return signal ? untilAborted(answer, signal) : answer;
    },
  });
}

/**
 * tRPC's own client over the same links, headers and batching as `createClient`, for tRPC's tools
 * that ask for one (`@trpc/tanstack-react-query`, which the `react` entry uses). Its calls take
 * tRPC's options, `{ signal, context: { organizationId, idempotencyKey } }`, and reject with a
 * TRPCClientError: `toApiError` turns one into an ApiError.
 */
export function createTrpcClient(options: ClientOptions): TRPCClient<AppRouter> {
  const token = options.token;
  const headers = async (call: CallContext) => {
    const bearer = typeof token === 'function' ? await token() : token;
    const organizationId = call.organizationId ?? options.organizationId;
    return {
      authorization: `Bearer ${bearer}`,
      ...(organizationId !== undefined && { organization_id: organizationId }),
      ...(call.idempotencyKey !== undefined && { 'idempotency-key': call.idempotencyKey }),
    };
  };
  return createTRPCClient<AppRouter>({
    links: links({
      url: `${options.url.replace(/\/+$/, '')}/trpc`,
      headers,
      organizationId: options.organizationId,
      fetch: options.fetch,
    }),
  });
}

export function createClient(options: ClientOptions): Client {
  // tRPC's client, its calls taking our options: the type `Client` describes it so.
  return withCallOptions(createTrpcClient(options));
}
