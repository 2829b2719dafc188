/**
 * GET /organizations/{organization_id}/events (also under /api): the audit events a poller reads,
 * oldest first, after an event_id, by type (behaviour §9); over tRPC also a page at a time.
 */
import { z } from 'zod';
import { auditEventOutput, eventIdSchema, eventTypeSchema } from '../../../shared/events.ts';
import { organizationIdSchema } from '../../../shared/fields.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { readEvents } from './events.sql.ts';

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

export const listEventsProcedure = organizationProcedure({ from: 'input', may: 'events:read' })
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
  });

/** tRPC only: the same events a page at a time, for infinite queries. */
export const eventsPageProcedure = organizationProcedure({ from: 'input', may: 'events:read' })
  .input(pageInput)
  .output(z.object({ items: z.array(auditEventOutput), nextCursor: z.string().nullable() }))
  .query(async ({ ctx, input }) => {
    const items = await readEvents(ctx.db.sql, input.organization_id, { ...input, after: input.cursor });
    const last = items.at(-1);
    return { items, nextCursor: last && items.length === input.limit ? last.event_id : null };
  });
