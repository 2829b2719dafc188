import { EventsTable } from '../events/EventsTable.tsx';
import { QueryList, Section } from '../ui/index.ts';
import type { DirectoryRead } from './directory.ts';

const NO_NAMES: ReadonlyMap<string, string> = new Map();

/** The newest changes the identity provider made (events with `data.via` "scim"), newest first. */
export function DirectoryChanges({ directory }: { directory: DirectoryRead }) {
  return (
    <Section title="Last changes" description="The 20 newest changes your identity provider made, newest first.">
      <QueryList
        query={directory}
        items={directory.data?.last_changes}
        loading="Loading the last changes…"
        empty="Your identity provider has changed nothing yet."
      >
        {(events) => <EventsTable label="Last directory changes" events={events} names={NO_NAMES} />}
      </QueryList>
    </Section>
  );
}
