/**
 * GET /organizations/{organization_id}/events (also under /api): the audit events a poller reads,
 * oldest first, after an event_id, by type (behaviour §9); over tRPC also a page at a time.
 */
import { z } from 'zod';
import { auditEventOutput, eventIdSchema, eventTypeSchema } from '../../../shared/events.ts';
import { organizationIdSchema, userIdSchema } from '../../../shared/fields.ts';
import { DEFAULT_PAGE_SIZE, linkToNextPage, pageSize } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { readEvents } from './events.service.ts';

const organizationId = organizationIdSchema.toLowerCase();

const listInput = z.object({
  organization_id: organizationId,
  after: eventIdSchema.meta({ description: 'Only events after this event_id' }).optional(),
  limit: pageSize().default(DEFAULT_PAGE_SIZE),
  type: eventTypeSchema.optional(),
});

const pageInput = z.object({
  organization_id: organizationId,
  /** The `nextCursor` of the page before (an event_id); null or absent for the oldest (or newest) events. */
  cursor: eventIdSchema.nullish(),
  limit: pageSize().default(DEFAULT_PAGE_SIZE),
  type: eventTypeSchema.optional(),
  /** Newest first, each page older than the one before: what a log shows, its latest events first. */
  newest_first: z.boolean().default(false),
  /** Only the events this user did (the console's filter by actor). */
  actor_user_id: userIdSchema.optional(),
});

const listEndpoint = restEndpoint({
  method: 'GET',
  path: '/organizations/{organization_id}/events',
  tags: ['events'],
  summary: "The organization's audit events, oldest first (owner or admin)",
  errors: [400, 403],
  nextPageLink: 'When the page is full: `<path?after=<last event_id>&limit=N>; rel="next"`',
});

export const listEventsProcedure = organizationProcedure({ from: 'input', may: 'events:read' })
  .meta(listEndpoint)
  .input(listInput)
  .output(z.array(auditEventOutput))
  .query(async ({ ctx, input }) => {
    const events = await readEvents(ctx.org.reads, input.organization_id, input);
    const last = events.at(-1);
    if (last && events.length === input.limit) {
      const next = new URLSearchParams({ after: last.event_id, limit: String(input.limit) });
      if (input.type) next.set('type', input.type);
      linkToNextPage(ctx, next);
    }
    return events;
  });

/** tRPC only: the same events a page at a time, for infinite queries. */
export const eventsPageProcedure = organizationProcedure({ from: 'input', may: 'events:read' })
  .input(pageInput)
  .output(z.object({ items: z.array(auditEventOutput), nextCursor: z.string().nullable() }))
  .query(async ({ ctx, input }) => {
    const items = await readEvents(ctx.org.reads, input.organization_id, {
      ...input,
      after: input.cursor,
      newestFirst: input.newest_first,
      actorUserId: input.actor_user_id,
    });
    const last = items.at(-1);
    return { items, nextCursor: last && items.length === input.limit ? last.event_id : null };
  });
