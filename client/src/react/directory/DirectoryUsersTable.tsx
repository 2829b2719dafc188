import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';
import { Badge, QueryList, Section, Table, Time } from '../ui/index.ts';
import { DIRECTORY_PAGE_SIZE, type Directory, type DirectoryUser } from './directory.ts';

const STATES: Record<DirectoryUser['state'], { label: string; tone: 'success' | 'warning' | 'neutral' }> = {
  member: { label: 'Member', tone: 'success' },
  pending: { label: 'Pending: no profile yet', tone: 'warning' },
  inactive: { label: 'Inactive', tone: 'neutral' },
};

/** The directory's users, oldest first: a member, pending their profile, or deactivated. */
export function DirectoryUsersTable({
  organizationId,
  counts,
}: {
  organizationId: string;
  counts: Directory['users'] | undefined;
}) {
  const trpc = useTRPC();
  const users = useQuery(
    trpc.directory.usersPage.queryOptions({ organization_id: organizationId, limit: DIRECTORY_PAGE_SIZE }),
  );
  const description = counts
    ? `${counts.active} active, ${counts.inactive} inactive.`
    : 'The people your identity provider provisioned.';

  return (
    <Section title="Directory users" description={description}>
      <QueryList
        query={users}
        items={users.data?.items}
        loading="Loading directory users…"
        empty="Your identity provider has provisioned no one yet."
      >
        {(rows) => (
          <>
            <Table label="Directory users" columns={['User name', 'Name', 'State', 'Provisioned']}>
              {rows.map((user) => (
                <tr key={user.directory_user_id}>
                  <th scope="row">{user.user_name}</th>
                  <td data-label="Name">{user.display_name || <span className="osc-muted">None</span>}</td>
                  <td data-label="State">
                    <Badge tone={STATES[user.state].tone}>{STATES[user.state].label}</Badge>
                  </td>
                  <td data-label="Provisioned">
                    <Time value={user.created_at} />
                  </td>
                </tr>
              ))}
            </Table>
            {users.data?.nextCursor && (
              <p className="osc-muted">The first {DIRECTORY_PAGE_SIZE}; the service's list has them all.</p>
            )}
          </>
        )}
      </QueryList>
    </Section>
  );
}
