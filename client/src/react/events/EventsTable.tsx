import { Badge, Table, Time } from '../ui/index.ts';
import { eventDetails, type AuditEvent } from './event.ts';

/** The events, a row each: when, its type, who did it to whom (by name where `names` has them), its data. */
export function EventsTable({
  events,
  names,
}: {
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
    <Table label="Events" columns={['Time', 'Type', 'Actor', 'Subject', 'Details']}>
      {events.map((event) => (
        <tr key={event.event_id}>
          <td>
            <Time value={event.created_at} />
          </td>
          <td>
            <Badge tone="accent">{event.type}</Badge>
          </td>
          <td>{person(event.actor_user_id)}</td>
          <td>{person(event.subject_user_id)}</td>
          <td className="osc-mono">{eventDetails(event.data)}</td>
        </tr>
      ))}
    </Table>
  );
}
