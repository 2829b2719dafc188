/**
 * How calls travel. Subscriptions go as server-sent events, one stream each. Other calls made in
 * the same tick go out together, in batches the server accepts and one organization per batch (a
 * batch has one set of headers). A call with an Idempotency-Key, or with an input too long for a
 * URL, goes alone.
 */
import {
  httpBatchLink,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  type Operation,
  type OperationLink,
  type TRPCLink,
} from '@trpc/client';
import { observable } from '@trpc/server/observable';
import { EventSource, type FetchLike } from 'eventsource';
import { MAX_BATCH_ITEMS, MAX_HEADER_BYTES } from '../../shared/limits.ts';
import { callContext, type CallContext } from './call-options.ts';
import type { AppRouter } from './router.ts';

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

interface TransportOptions {
  /** The tRPC endpoint, e.g. `http://127.0.0.1:3000/trpc`. */
  url: string;
  /** The request headers for a call's options (the bearer token first), asked for on each request. */
  headers: (call: CallContext) => Promise<Record<string, string>>;
  /** The organization of calls that name none. */
  organizationId: string | undefined;
  fetch: typeof fetch | undefined;
}

/**
 * One batch link per organization, made on its first call: tRPC's batch link puts every call of a
 * tick in its batches whatever their context, and sends one set of headers per batch.
 */
function batchedPerOrganization(options: TransportOptions): TRPCLink<AppRouter> {
  return (runtime) => {
    const links = new Map<string | undefined, OperationLink<AppRouter>>();
    return (call) => {
      const organizationId = callContext(call.op).organizationId ?? options.organizationId;
      let link = links.get(organizationId);
      if (!link) {
        link = httpBatchLink<AppRouter>({
          url: options.url,
          fetch: options.fetch,
          headers: () => options.headers({ organizationId }),
          maxItems: MAX_BATCH_ITEMS,
          maxURLLength: MAX_URL_LENGTH,
        })(runtime);
        links.set(organizationId, link);
      }
      return link(call);
    };
  };
}

/** Tells a call whose answer the service replayed from its idempotency store (`Idempotency-Replayed`). */
const replayNotices: TRPCLink<AppRouter> =
  () =>
  ({ op, next }) =>
    observable((observer) =>
      next(op).subscribe({
        next(envelope) {
          const response = (envelope.context as { response?: Response } | undefined)?.response;
          if (response?.headers.get('idempotency-replayed') === 'true') callContext(op).onReplay?.();
          observer.next(envelope);
        },
        error: (error) => observer.error(error),
        complete: () => observer.complete(),
      }),
    );

/**
 * Subscriptions through httpSubscriptionLink. The `eventsource` package stands in for the
 * browser's EventSource, which cannot send an Authorization header; it asks for the headers again
 * on every reconnection, so a reconnecting subscription carries a fresh token (and tRPC's last
 * event id, to resume).
 */
function subscriptions(options: TransportOptions): TRPCLink<AppRouter> {
  const send = options.fetch ?? globalThis.fetch;
  const fetchWithHeaders: FetchLike = async (url, init) =>
    send(url, { ...init, headers: { ...init.headers, ...(await options.headers({})) } });
  return httpSubscriptionLink({ url: options.url, EventSource, eventSourceOptions: { fetch: fetchWithHeaders } });
}

export function links(options: TransportOptions): TRPCLink<AppRouter>[] {
  const alone = (operation: Operation) =>
    callContext(operation).idempotencyKey !== undefined || encodedInputLength(operation) > LONE_INPUT_LENGTH;
  return [
    replayNotices,
    splitLink({
      condition: (operation) => operation.type === 'subscription',
      true: subscriptions(options),
      false: splitLink({
        condition: alone,
        true: httpLink({
          url: options.url,
          fetch: options.fetch,
          headers: ({ op }) => options.headers(callContext(op)),
          methodOverride: 'POST',
        }),
        false: batchedPerOrganization(options),
      }),
    }),
  ];
}
