/**
 * What a subscription gets from the HTTP layer beside the usual context: the instance's event feed
 * and a way to drop its connection. http/trpc.ts fills it in on the subscription routes only.
 */
import type { EventFeed } from './event-feed.ts';

export interface EventStream {
  feed: EventFeed;
  /** Drops the connection at once (a subscriber too slow to read its events). */
  disconnect(): void;
}

/**
 * The longest life of one subscription: then it ends with a retryable error and the client
 * reconnects, resuming after the last event it got, with a fresh token and a fresh role check.
 */
export const STREAM_MAX_DURATION_MS = 15 * 60 * 1000;

declare module '../../platform/rpc/context.ts' {
  interface Context {
    /** Set on subscription requests (http/trpc.ts). */
    eventStream?: EventStream;
  }
}
