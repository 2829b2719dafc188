import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';
import { QueryList, Section, Table, Time } from '../ui/index.ts';
import { DIRECTORY_PAGE_SIZE } from './directory.ts';

/** The directory's groups (the teams it made), oldest first, with how many directory users each has. */
export function DirectoryGroupsTable({ organizationId }: { organizationId: string }) {
  const trpc = useTRPC();
  const groups = useQuery(
    trpc.directory.groupsPage.queryOptions({ organization_id: organizationId, limit: DIRECTORY_PAGE_SIZE }),
  );

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
          <>
            <Table label="Directory groups" columns={['Group', 'Members', 'Provisioned']}>
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
            {groups.data?.nextCursor && (
              <p className="osc-muted">The first {DIRECTORY_PAGE_SIZE}; the service's list has them all.</p>
            )}
          </>
        )}
      </QueryList>
    </Section>
  );
}
