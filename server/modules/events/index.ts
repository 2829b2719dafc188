/**
 * An organization's audit events (behaviour §9), for its owners and admins: the REST list a poller
 * reads (GET /organizations/{organization_id}/events), the same as a tRPC page, and a tRPC
 * subscription (server-sent events) that delivers each new event as it commits on any instance.
 */
import { tracked, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { auditEventOutput, eventIdSchema, eventTypeSchema } from '../../shared/events.ts';
import { organizationIdSchema } from '../../shared/schemas.ts';
import { readEvents } from '../data/events.ts';
import { router } from '../trpc/init.ts';
import { organizationEventReaderProcedure } from '../trpc/procedures.ts';
import { STREAM_MAX_DURATION_MS } from './events-stream.ts';
import { restEndpoint } from './rest-meta.ts';

const MAX_EVENTS_PER_PAGE = 1000;
const DEFAULT_EVENTS_PER_PAGE = 100;

const organizationId = organizationIdSchema.toLowerCase();
/** A function: the REST layer makes the number fields of a query schema coercing, in place. */
const pageSize = () => z.number().int().min(1).max(MAX_EVENTS_PER_PAGE).default(DEFAULT_EVENTS_PER_PAGE);

const listInput = z.object({
  organization_id: organizationId,
  after: eventIdSchema.meta({ description: 'Only events after this event_id' }).optional(),
  limit: pageSize(),
  type: eventTypeSchema.optional(),
});

const pageInput = z.object({
  organization_id: organizationId,
  /** The `nextCursor` of the page before (an event_id); null or absent for the oldest events. */
  cursor: eventIdSchema.nullish(),
  limit: pageSize(),
  type: eventTypeSchema.optional(),
});

const watchInput = z.object({
  organization_id: organizationId,
  /** Resume after this event_id; the client's httpSubscriptionLink fills it in when it reconnects. */
  lastEventId: eventIdSchema.nullish(),
});

const linkHeader = z.object({
  link: z
    .string()
    .optional()
    .meta({ description: 'When the page is full: `<path?after=<last event_id>&limit=N>; rel="next"`' }),
});

const listEndpoint = restEndpoint({
  method: 'GET',
  path: '/organizations/{organization_id}/events',
  tags: ['events'],
  summary: "The organization's audit events, oldest first (owner or admin)",
  errors: [400, 403],
});
listEndpoint.openapi = { ...listEndpoint.openapi!, responseHeaders: linkHeader };

export const eventsRouter = router({
  list: organizationEventReaderProcedure
    .meta(listEndpoint)
    .input(listInput)
    .output(z.array(auditEventOutput))
    .query(async ({ ctx, input }) => {
      const events = await readEvents(ctx.db.sql, input.organization_id, input);
      const last = events.at(-1);
      if (last && events.length === input.limit) {
        const next = new URLSearchParams({ after: last.event_id, limit: String(input.limit) });
        if (input.type) next.set('type', input.type);
        ctx.responseHeaders.link = `<${ctx.requestPath}?${next}>; rel="next"`;
      }
      return events;
    }),

  /** tRPC only: the same events a page at a time, for infinite queries. */
  page: organizationEventReaderProcedure
    .input(pageInput)
    .output(z.object({ items: z.array(auditEventOutput), nextCursor: z.string().nullable() }))
    .query(async ({ ctx, input }) => {
      const items = await readEvents(ctx.db.sql, input.organization_id, { ...input, after: input.cursor });
      const last = items.at(-1);
      return { items, nextCursor: last && items.length === input.limit ? last.event_id : null };
    }),

  /**
   * tRPC only, over server-sent events: each new event of the organization as it commits, as
   * `tracked(event_id, event)` so that the client resumes after the last one it got. Ends when the
   * caller is no longer an owner or admin (after the event that says so).
   */
  watch: organizationEventReaderProcedure.input(watchInput).subscription(async function* ({ ctx, input, signal }) {
    const stream = ctx.eventStream;
    if (!stream) {
      throw new TRPCError({
        code: 'METHOD_NOT_SUPPORTED',
        message: 'Subscribe with a GET request (server-sent events)',
      });
    }
    const events = stream.feed.watch({
      organizationId: input.organization_id,
      userId: ctx.caller.userId,
      lastEventId: input.lastEventId ?? null,
      signal: signal ?? new AbortController().signal,
      maxDurationMs: STREAM_MAX_DURATION_MS,
      onLag: stream.disconnect,
    });
    // An error ends the stream with the service's code, as any answer: trpc/init.ts.
    for await (const event of events) yield tracked(event.event_id, event);
  }),
});
