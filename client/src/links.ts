/**
 * Subscriptions travel apart from the other calls: as server-sent events, one stream each, through
 * tRPC's httpSubscriptionLink. The `eventsource` package stands in for the browser's EventSource,
 * which cannot send an Authorization header; it asks for the headers again on every reconnection,
 * so a reconnecting subscription carries a fresh token (and tRPC's last event id, to resume).
 */
import { httpSubscriptionLink, splitLink, type TRPCLink } from '@trpc/client';
import { EventSource, type FetchLike } from 'eventsource';
import type { AppRouter } from '../../server/routers/index.ts';

export interface SubscriptionOptions {
  /** The tRPC endpoint, e.g. `http://127.0.0.1:3000/trpc`. */
  url: string;
  /** The request headers (the bearer token), asked for on each connection. */
  headers: () => Promise<Record<string, string>>;
  fetch?: typeof fetch;
}

/** Sends subscriptions through httpSubscriptionLink and every other call through `calls`. */
export function withSubscriptions(options: SubscriptionOptions, calls: TRPCLink<AppRouter>): TRPCLink<AppRouter> {
  const send = options.fetch ?? globalThis.fetch;
  const fetchWithHeaders: FetchLike = async (url, init) =>
    send(url, { ...init, headers: { ...init.headers, ...(await options.headers()) } });
  return splitLink({
    condition: (operation) => operation.type === 'subscription',
    true: httpSubscriptionLink({ url: options.url, EventSource, eventSourceOptions: { fetch: fetchWithHeaders } }),
    false: calls,
  });
}
