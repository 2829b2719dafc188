import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';
import { Pager, QueryList, Section, Table, Time, useCursorPages } from '../ui/index.ts';
import { DIRECTORY_PAGE_SIZE } from './directory.ts';

/**
 * The directory's groups (the teams it made), oldest first, a page at a time, with how many
 * directory users each has; `total` is how many groups there are, when the directory's read says.
 */
export function DirectoryGroupsTable({ organizationId, total }: { organizationId: string; total: number | undefined }) {
  const trpc = useTRPC();
  const pages = useCursorPages();
  const groups = useQuery({
    ...trpc.directory.groupsPage.queryOptions({
      organization_id: organizationId,
      limit: DIRECTORY_PAGE_SIZE,
      cursor: pages.cursor,
    }),
    // The page shown stays while the next one loads; its pager button says it is busy.
    placeholderData: keepPreviousData,
  });
  const nextCursor = groups.data?.nextCursor;

  return (
    <Section
      title="Directory groups"
      description="Teams your identity provider made; their roles are set on the Teams page."
    >
      <QueryList
        query={groups}
        items={groups.data?.items}
        loading="Loading directory groups…"
        empty="Your identity provider has pushed no groups yet."
      >
        {(rows) => (
          <Table
            label="Directory groups"
            columns={['Group', 'Members', 'Provisioned']}
            aria-busy={groups.isPlaceholderData || undefined}
          >
            {rows.map((group) => (
              <tr key={group.team_id}>
                <th scope="row">{group.display_name}</th>
                <td data-label="Members">{group.member_count}</td>
                <td data-label="Provisioned">
                  <Time value={group.created_at} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryList>
      {/* One page needs no pager. */}
      {groups.isSuccess && (pages.number > 1 || nextCursor) && (
        <Pager
          label="Directory group pages"
          pages={pages}
          nextCursor={nextCursor}
          loading={groups.isPlaceholderData}
          total={total}
          pageSize={DIRECTORY_PAGE_SIZE}
        />
      )}
    </Section>
  );
}
