/** tRPC only: an organization's audit events live, over server-sent events (behaviour §9). */
import { tracked, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { eventIdSchema } from '../../../shared/events.ts';
import { organizationIdSchema } from '../../../shared/fields.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import type { Watcher } from './events.service.ts';
import { STREAM_MAX_DURATION_MS } from './event-stream.ts';

const organizationId = organizationIdSchema.toLowerCase();

const watchInput = z.object({
  organization_id: organizationId,
  /** Resume after this event_id; the client's httpSubscriptionLink fills it in when it reconnects. */
  lastEventId: eventIdSchema.nullish(),
});

/**
 * tRPC only, over server-sent events: each new event of the organization as it commits, as
 * `tracked(event_id, event)` so that the client resumes after the last one it got. Ends when the
 * caller is no longer an owner or admin (after the event that says so).
 */
export const watchEventsProcedure = organizationProcedure({ from: 'input', may: 'events:read' })
  .input(watchInput)
  .subscription(async function* ({ ctx, input, signal }) {
    const stream = ctx.eventStream;
    if (!stream) {
      throw new TRPCError({
        code: 'METHOD_NOT_SUPPORTED',
        message: 'Subscribe with a GET request (server-sent events)',
      });
    }
    const { actor, eventActor } = ctx.org.access;
    const watcher: Watcher =
      actor.kind === 'person'
        ? { kind: 'person', userId: actor.userId }
        : { kind: 'key', actor, keyId: eventActor.keyId! };
    const events = stream.feed.watch({
      organizationId: input.organization_id,
      watcher,
      lastEventId: input.lastEventId ?? null,
      signal: signal ?? new AbortController().signal,
      maxDurationMs: STREAM_MAX_DURATION_MS,
      onLag: () => stream.disconnect(),
    });
    // An error ends the stream with the service's code, as any answer: rpc/init.ts.
    for await (const event of events) yield tracked(event.event_id, event);
  });
