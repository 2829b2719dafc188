/** The pages of members a search finds, each row with its changes, and the changes to the rows selected. */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { errorView } from '../errors.ts';
import { usePermissions } from '../permissions.ts';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';
import { keepFocus, Notice, Pager, QueryList, Table, useCursorPages } from '../ui/index.ts';
import { BulkActions, type Outcomes } from './BulkActions.tsx';
import { ExportMembers } from './ExportMembers.tsx';
import { fullName, MEMBER_COLUMNS, memberQueryInput, type MemberQuery } from './member.ts';
import { MemberRow } from './MemberRow.tsx';
import type { MembersTableProps } from './MembersTable.tsx';

export function MembersPages({
  organizationId,
  pageSize,
  query,
  onLeft,
  memberLink,
  onSearchProblem,
}: MembersTableProps & {
  pageSize: number;
  query: MemberQuery;
  /** Told the service's problem with the search, if it has one, for the search box to show. */
  onSearchProblem: (problem: string | undefined) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { can, userId } = usePermissions(organizationId);
  const pages = useCursorPages();
  const [removed, setRemoved] = useState<string>();
  const [left, setLeft] = useState(false);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [bulk, setBulk] = useState<{ what: string; outcomes: Outcomes }>();
  const table = useRef<HTMLTableElement>(null);
  const leftNotice = useRef<HTMLDivElement>(null);
  const page = useQuery({
    ...keyedByOrganization(
      trpc.members.page.queryOptions(
        { limit: pageSize, cursor: pages.cursor, ...memberQueryInput(query) },
        inOrganization(organizationId),
      ),
      organizationId,
    ),
    // The page shown stays while the next one loads; its pager button says it is busy.
    placeholderData: keepPreviousData,
    enabled: !left,
  });
  const loadingPage = page.isPlaceholderData;
  // Each page of the whole list says how many members there are, as of its own read: a page read
  // again after a change says how many there are after it.
  const total = page.data?.total;
  const searched = Boolean(query.search?.trim() || query.role);
  const searchProblem = errorView(page.error).fields.search;
  useEffect(() => onSearchProblem(searchProblem), [searchProblem, onSearchProblem]);

  // A removed member's row took the focus with it.
  useEffect(() => {
    if (removed !== undefined) keepFocus(table.current);
  }, [removed]);
  useEffect(() => {
    if (left) leftNotice.current?.focus();
  }, [left]);

  // What was done on the page left is not the next one's.
  const leavePage = () => {
    setRemoved(undefined);
    setSelected(new Set());
    setBulk(undefined);
  };
  const leave = () => {
    setLeft(true);
    // The caller's organizations and permissions change; this list is no longer theirs to read.
    void queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.permissions.mine.pathKey() });
    onLeft?.();
  };

  if (left) {
    return (
      <div ref={leftNotice} tabIndex={-1}>
        <Notice tone="success">You left this organization.</Notice>
      </div>
    );
  }
  const canUpdate = can('members:update');
  const canRemove = can('members:remove');
  const selecting = canUpdate || canRemove;
  const members = page.data?.items;
  const onPage = new Set(members?.map((member) => member.user_id));
  const chosen = [...selected].filter((id) => onPage.has(id));
  const select = (ids: readonly string[], on: boolean) =>
    setSelected((previous) => {
      const next = new Set(previous);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  const failed = bulk && [...bulk.outcomes.values()].filter((outcome) => outcome !== null).length;
  return (
    <>
      <div className="osc-row osc-members-summary">
        {total !== undefined && !searched && <span>{total === 1 ? '1 member' : `${total} members`}</span>}
        <ExportMembers organizationId={organizationId} query={query} />
      </div>
      {selecting && (
        <BulkActions
          organizationId={organizationId}
          selected={chosen}
          canUpdate={canUpdate}
          canRemove={canRemove}
          onDone={(what, outcomes) => {
            setBulk({ what, outcomes });
            setSelected(new Set());
          }}
        />
      )}
      {bulk && (
        <Notice tone={failed ? 'warning' : 'success'}>
          {bulk.what}: {bulk.outcomes.size - failed!} done
          {failed ? `, ${failed} failed (said on their rows)` : ''}.
        </Notice>
      )}
      {removed !== undefined && <Notice tone="success">{removed} was removed from the organization.</Notice>}
      <QueryList
        query={page}
        items={members}
        loading="Loading members…"
        empty={
          query.search || query.role
            ? 'No member matches.'
            : pages.number === 1
              ? 'This organization has no members.'
              : 'No members on this page.'
        }
      >
        {(rows) => (
          <Table
            label="Members"
            columns={MEMBER_COLUMNS}
            select={
              selecting
                ? {
                    label: 'Select every member on this page',
                    checked: rows.every((member) => selected.has(member.user_id)),
                    onChange: (on) =>
                      select(
                        rows.map((member) => member.user_id),
                        on,
                      ),
                  }
                : undefined
            }
            actions
            aria-busy={loadingPage || undefined}
            ref={table}
            tabIndex={-1}
          >
            {rows.map((member) => (
              <MemberRow
                key={member.user_id}
                organizationId={organizationId}
                member={member}
                self={member.user_id === userId}
                canUpdate={canUpdate}
                canRemove={canRemove}
                onRemoved={() => setRemoved(fullName(member))}
                onLeft={leave}
                selection={
                  selecting
                    ? { selected: selected.has(member.user_id), onChange: (on) => select([member.user_id], on) }
                    : undefined
                }
                outcome={bulk?.outcomes.get(member.user_id)}
                link={memberLink && ((name) => memberLink(member, name))}
              />
            ))}
          </Table>
        )}
      </QueryList>
      {page.isSuccess && (
        <Pager
          label="Member pages"
          pages={pages}
          nextCursor={page.data.nextCursor}
          loading={loadingPage}
          total={searched ? undefined : total}
          pageSize={pageSize}
          onMove={leavePage}
        />
      )}
    </>
  );
}
