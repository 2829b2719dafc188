import { Badge, Disclosure, Table, Time } from '../ui/index.ts';
import { eventDetails, type AuditEvent } from './event.ts';

/**
 * The events, a row each: when (to the second; the instant on hover), its type, who did it to whom
 * (by name where `names` has them), its data in a line and in full.
 */
export function EventsTable({
  label = 'Events',
  events,
  names,
}: {
  label?: string;
  events: readonly AuditEvent[];
  /** The members' names by user id. */
  names: ReadonlyMap<string, string>;
}) {
  const person = (userId: string | null) =>
    userId === null ? (
      <span className="osc-muted">None</span>
    ) : names.has(userId) ? (
      <span title={userId}>{names.get(userId)}</span>
    ) : (
      <span className="osc-mono">{userId}</span>
    );
  return (
    <Table label={label} columns={['Time', 'Type', 'Actor', 'Subject', 'Details']}>
      {events.map((event) => (
        <tr key={event.event_id}>
          <td data-label="Time">
            <Time value={event.created_at} seconds />
          </td>
          <td data-label="Type">
            <Badge tone="accent">{event.type}</Badge>
          </td>
          <td data-label="Actor">{person(event.actor_user_id)}</td>
          <td data-label="Subject">{person(event.subject_user_id)}</td>
          <td data-label="Details">
            <span className="osc-mono">{eventDetails(event.data)}</span>
            <Disclosure summary="Full event">
              {() => <pre className="osc-code">{JSON.stringify(event, null, 2)}</pre>}
            </Disclosure>
          </td>
        </tr>
      ))}
    </Table>
  );
}
