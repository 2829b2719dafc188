import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';
import { Badge, Pager, QueryList, Section, Table, Time, useCursorPages } from '../ui/index.ts';
import { DIRECTORY_PAGE_SIZE, type Directory, type DirectoryUser } from './directory.ts';

const STATES: Record<DirectoryUser['state'], { label: string; tone: 'success' | 'warning' | 'neutral' }> = {
  member: { label: 'Member', tone: 'success' },
  pending: { label: 'Pending: no profile yet', tone: 'warning' },
  removed: { label: 'Removed here: a member again at the next sync', tone: 'warning' },
  inactive: { label: 'Inactive', tone: 'neutral' },
};

/** The directory's users, oldest first, a page at a time: a member, pending their profile, removed here, or deactivated. */
export function DirectoryUsersTable({
  organizationId,
  counts,
}: {
  organizationId: string;
  counts: Directory['users'] | undefined;
}) {
  const trpc = useTRPC();
  const pages = useCursorPages();
  const users = useQuery({
    ...trpc.directory.usersPage.queryOptions({
      organization_id: organizationId,
      limit: DIRECTORY_PAGE_SIZE,
      cursor: pages.cursor,
    }),
    // The page shown stays while the next one loads; its pager button says it is busy.
    placeholderData: keepPreviousData,
  });
  const description = counts
    ? `${counts.active} active, ${counts.inactive} inactive.`
    : 'The people your identity provider provisioned.';
  const nextCursor = users.data?.nextCursor;

  return (
    <Section title="Directory users" description={description}>
      <QueryList
        query={users}
        items={users.data?.items}
        loading="Loading directory users…"
        empty="Your identity provider has provisioned no one yet."
      >
        {(rows) => (
          <Table
            label="Directory users"
            columns={['User name', 'Name', 'State', 'Provisioned']}
            aria-busy={users.isPlaceholderData || undefined}
          >
            {rows.map((user) => (
              <tr key={user.directory_user_id}>
                <th scope="row">{user.user_name}</th>
                <td data-label="Name" className="osc-wrap">
                  {user.display_name || <span className="osc-muted">None</span>}
                </td>
                <td data-label="State">
                  <Badge tone={STATES[user.state].tone}>{STATES[user.state].label}</Badge>
                </td>
                <td data-label="Provisioned">
                  <Time value={user.created_at} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryList>
      {/* One page needs no pager. */}
      {users.isSuccess && (pages.number > 1 || nextCursor) && (
        <Pager
          label="Directory user pages"
          pages={pages}
          nextCursor={nextCursor}
          loading={users.isPlaceholderData}
          total={counts && counts.active + counts.inactive}
          pageSize={DIRECTORY_PAGE_SIZE}
        />
      )}
    </Section>
  );
}
