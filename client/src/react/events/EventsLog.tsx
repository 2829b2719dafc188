/**
 * The audit log (behaviour §9), for those holding events:read (nothing is shown to others): the
 * organization's newest events, then each new one as it commits, through the `events.watch`
 * subscription (server-sent events), newest first, with the state of the connection.
 *
 * The subscription starts after the newest event read, and its input stays the same from then on:
 * when the connection drops, the client's link reconnects by itself and resumes after the last
 * event it received (tRPC's `lastEventId`), so nothing is missed or shown twice.
 */
import { useQuery } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useRef, useState } from 'react';
import { usePermissions } from '../permissions.ts';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';
import { Badge, Button, ErrorNotice, QueryList, Section } from '../ui/index.ts';
import type { AuditEvent } from './event.ts';
import { EventsHistory } from './EventsHistory.tsx';
import { EventsTable } from './EventsTable.tsx';
import { useNewestEvents } from './useNewestEvents.ts';

export interface EventsLogProps {
  organizationId: string;
  /** How many of the newest events to show at first; 50 by default. */
  pageSize?: number;
}

/** The most rows the log keeps: the oldest go as new ones arrive. */
const MAX_ROWS = 1000;

export function EventsLog(props: EventsLogProps) {
  const { can } = usePermissions(props.organizationId);
  if (!can('events:read')) return null;
  // Another organization (or page size) starts afresh, with its own subscription.
  return <LiveEvents key={`${props.organizationId}/${props.pageSize}`} {...props} />;
}

interface Arrivals {
  /** Newest first, at most MAX_ROWS. */
  events: AuditEvent[];
  /** How many arrived since the log opened. */
  count: number;
}

function LiveEvents({ organizationId, pageSize = 50 }: EventsLogProps) {
  const trpc = useTRPC();
  const newest = useNewestEvents(organizationId, pageSize);
  const members = useQuery(
    keyedByOrganization(trpc.members.list.queryOptions(undefined, inOrganization(organizationId)), organizationId),
  );
  const [arrivals, setArrivals] = useState<Arrivals>({ events: [], count: 0 });
  const [started, setStarted] = useState(false);
  // Set by "Reconnect" after the subscription ended: from the newest event shown.
  const [resumeAfter, setResumeAfter] = useState<string | null>();

  const arrived = new Set(arrivals.events.map((event) => event.event_id));
  const shown = [...arrivals.events, ...(newest.data ?? []).filter((event) => !arrived.has(event.event_id))].slice(
    0,
    MAX_ROWS,
  );
  // A primitive, so the input is the same on every render and the subscription is not restarted.
  // Without any event yet there is nothing to resume after: the service starts from its newest.
  const after = resumeAfter !== undefined ? resumeAfter : newest.data && (newest.data[0]?.event_id ?? null);
  const subscription = useSubscription(
    trpc.events.watch.subscriptionOptions(
      { organization_id: organizationId, lastEventId: after ?? null },
      {
        enabled: after !== undefined,
        onStarted: () => setStarted(true),
        onData: ({ id, data: event }) =>
          setArrivals((previous) =>
            previous.events.some((each) => each.event_id === id)
              ? previous
              : { events: [event, ...previous.events].slice(0, MAX_ROWS), count: previous.count + 1 },
          ),
      },
    ),
  );

  // Without the member list (a failure to read it) the people are shown by their user ids.
  const names = new Map(
    members.data?.map((member) => [member.user_id, `${member.first_name} ${member.last_name}`] as const),
  );

  const status = subscription.status;
  const connection = newest.isError
    ? { label: 'Not connected', tone: 'danger' as const }
    : status === 'pending'
      ? { label: 'Live', tone: 'success' as const }
      : status === 'error'
        ? { label: 'Disconnected', tone: 'danger' as const }
        : status === 'idle' && started
          ? { label: 'Ended', tone: 'danger' as const }
          : started
            ? { label: 'Reconnecting', tone: 'warning' as const }
            : { label: 'Connecting', tone: 'neutral' as const };
  // The button goes once clicked: the focus goes to the line that says how the connection is.
  const statusLine = useRef<HTMLParagraphElement>(null);
  const retry = newest.isError
    ? () => void newest.refetch()
    : status === 'error' || (status === 'idle' && started)
      ? () => {
          const from = shown[0]?.event_id ?? null;
          if (from === (after ?? null)) subscription.reset();
          else setResumeAfter(from);
        }
      : undefined;

  return (
    <>
      <Section
        title="Latest events"
        description="Newest first. New events appear as they happen."
        actions={
          retry && (
            <Button
              variant="primary"
              onClick={() => {
                retry();
                statusLine.current?.focus();
              }}
            >
              Reconnect
            </Button>
          )
        }
      >
        <p className="osc-row" role="status" ref={statusLine} tabIndex={-1}>
          <Badge tone={connection.tone}>{connection.label}</Badge>
          {arrivals.count > 0 && (
            <span>
              {arrivals.count} new {arrivals.count === 1 ? 'event' : 'events'}
            </span>
          )}
        </p>
        {subscription.status === 'error' && <ErrorNotice error={subscription.error} />}
        <QueryList
          query={newest}
          items={shown}
          loading="Loading events…"
          empty="No events yet. They appear here as they happen."
        >
          {(rows) => <EventsTable events={rows} names={names} />}
        </QueryList>
      </Section>
      <EventsHistory organizationId={organizationId} names={names} />
    </>
  );
}
