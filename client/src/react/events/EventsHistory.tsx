/**
 * The audit log's past (behaviour §9): the events of one type or by one person, newest first, a page
 * at a time back to the first, each page read by the cursor of the one before.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
// The zod-free list (shared/events.ts would bring zod into the bundle).
import { EVENT_TYPES, type EventType } from '../../../../shared/event-types.ts';
import type { Member } from '../members/member.ts';
import { MemberPicker } from '../members/MemberPicker.tsx';
import { useTRPC } from '../service.tsx';
import { Pager, QueryList, Section, SelectField, useCursorPages } from '../ui/index.ts';
import { EventsTable } from './EventsTable.tsx';

const PAGE = 50;

export function EventsHistory({
  organizationId,
  names,
}: {
  organizationId: string;
  names: ReadonlyMap<string, string>;
}) {
  const [type, setType] = useState<EventType | ''>('');
  const [actor, setActor] = useState<Member>();
  return (
    <Section title="Event history" description="Newest first, a page at a time back to the first event.">
      <div className="osc-filters" role="search" aria-label="Events">
        <SelectField
          label="Type"
          value={type}
          options={[{ value: '', label: 'All types' }, ...EVENT_TYPES.map((each) => ({ value: each, label: each }))]}
          onChange={(event) => setType(event.target.value as EventType | '')}
        />
        <MemberPicker organizationId={organizationId} label="Actor" value={actor} onChange={setActor} />
      </div>
      {/* Another filter starts again at the newest page. */}
      <HistoryPages
        key={`${type} ${actor?.user_id ?? ''}`}
        organizationId={organizationId}
        names={names}
        type={type}
        actorUserId={actor?.user_id}
      />
    </Section>
  );
}

function HistoryPages({
  organizationId,
  names,
  type,
  actorUserId,
}: {
  organizationId: string;
  names: ReadonlyMap<string, string>;
  type: EventType | '';
  actorUserId: string | undefined;
}) {
  const trpc = useTRPC();
  // Newer goes back along the cursors that led here, without the service having to page forwards.
  const pages = useCursorPages();
  const page = useQuery({
    ...trpc.events.page.queryOptions({
      organization_id: organizationId,
      limit: PAGE,
      newest_first: true,
      cursor: pages.cursor,
      ...(type && { type }),
      ...(actorUserId && { actor_user_id: actorUserId }),
    }),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <QueryList query={page} items={page.data?.items} loading="Loading events…" empty="No event matches.">
        {(events) => <EventsTable label="Event history" events={events} names={names} />}
      </QueryList>
      {page.isSuccess && (
        <Pager
          label="Event pages"
          pages={pages}
          nextCursor={page.data.nextCursor}
          loading={page.isPlaceholderData}
          previous="Newer events"
          next="Older events"
        />
      )}
    </>
  );
}
