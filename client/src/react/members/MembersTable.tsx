/**
 * An organization's members (behaviour §4.3, §11) a page at a time (`members.page`, cursor pages),
 * with what the caller's permissions allow on each row. The member procedures name the
 * organization in a header (`inOrganization`).
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { usePermissions } from '../permissions.ts';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';
import { Button, keepFocus, Notice, QueryList, Section, Table } from '../ui/index.ts';
import { fullName, MEMBER_COLUMNS } from './member.ts';
import { MemberRow } from './MemberRow.tsx';

const DEFAULT_PAGE_SIZE = 50;

export interface MembersTableProps {
  organizationId: string;
  /** Members a page, 1 to 1000; 50 unless given. */
  pageSize?: number;
  /** Called once the caller has left the organization from their own row (to go elsewhere). */
  onLeft?: () => void;
}

/** The organization's members a page at a time, each row with the changes the caller may make. */
export function MembersTable(props: MembersTableProps) {
  // Another organization or page size starts again on the first page, with no row open.
  return <MembersPages key={`${props.organizationId} ${props.pageSize ?? DEFAULT_PAGE_SIZE}`} {...props} />;
}

function MembersPages({ organizationId, pageSize = DEFAULT_PAGE_SIZE, onLeft }: MembersTableProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { can, userId } = usePermissions(organizationId);
  // The cursors of the pages after the first that led here, the last one the page shown: Previous
  // goes back without the service having to page backwards.
  const [cursors, setCursors] = useState<string[]>([]);
  // The last move between pages: a new object at each, for the effect that follows it.
  const [move, setMove] = useState<{ direction: 'next' | 'previous' }>();
  const [removed, setRemoved] = useState<string>();
  const [left, setLeft] = useState(false);
  const table = useRef<HTMLTableElement>(null);
  const previousButton = useRef<HTMLButtonElement>(null);
  const nextButton = useRef<HTMLButtonElement>(null);
  const leftNotice = useRef<HTMLDivElement>(null);
  const page = useQuery({
    ...keyedByOrganization(
      trpc.members.page.queryOptions(
        { limit: pageSize, cursor: cursors.at(-1) ?? null },
        inOrganization(organizationId),
      ),
      organizationId,
    ),
    // The page shown stays while the next one loads; its pager button says it is busy.
    placeholderData: keepPreviousData,
    enabled: !left,
  });
  const loadingPage = page.isPlaceholderData;

  // A pager button disabled by its own loading, or for good on the first or last page, hands the
  // focus to its neighbour rather than to nobody.
  useEffect(() => {
    if (move === undefined || loadingPage) return;
    const [pressed, other] =
      move.direction === 'next'
        ? [nextButton.current, previousButton.current]
        : [previousButton.current, nextButton.current];
    keepFocus(pressed?.disabled ? other : pressed);
  }, [move, loadingPage]);
  // A removed member's row took the focus with it.
  useEffect(() => {
    if (removed !== undefined) keepFocus(table.current);
  }, [removed]);
  useEffect(() => {
    if (left) leftNotice.current?.focus();
  }, [left]);

  const goTo = (pages: string[], direction: 'next' | 'previous') => {
    setCursors(pages);
    setMove({ direction });
    setRemoved(undefined);
  };
  const nextCursor = page.data?.nextCursor;
  const leave = () => {
    setLeft(true);
    // The caller's organizations and permissions change; this list is no longer theirs to read.
    void queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.permissions.mine.pathKey() });
    onLeft?.();
  };

  if (left) {
    return (
      <Section title="Members">
        <div ref={leftNotice} tabIndex={-1}>
          <Notice tone="success">You left this organization.</Notice>
        </div>
      </Section>
    );
  }
  const pageNumber = cursors.length + 1;
  return (
    <Section title="Members" description="Everyone in the organization, in the order they joined.">
      {removed !== undefined && <Notice tone="success">{removed} was removed from the organization.</Notice>}
      <QueryList
        query={page}
        items={page.data?.items}
        loading="Loading members…"
        empty={pageNumber === 1 ? 'This organization has no members.' : 'No members on this page.'}
      >
        {(members) => (
          <Table
            label="Members"
            columns={MEMBER_COLUMNS}
            actions
            aria-busy={loadingPage || undefined}
            ref={table}
            tabIndex={-1}
          >
            {members.map((member) => (
              <MemberRow
                key={member.user_id}
                organizationId={organizationId}
                member={member}
                self={member.user_id === userId}
                canUpdate={can('members:update')}
                canRemove={can('members:remove')}
                onRemoved={() => setRemoved(fullName(member))}
                onLeft={leave}
              />
            ))}
          </Table>
        )}
      </QueryList>
      {page.isSuccess && (
        <nav className="osc-pager" aria-label="Member pages">
          <span className="osc-muted" aria-live="polite">
            Page {pageNumber}
          </span>
          <Button
            ref={previousButton}
            disabled={pageNumber === 1}
            busy={loadingPage && move?.direction === 'previous'}
            onClick={() => goTo(cursors.slice(0, -1), 'previous')}
          >
            Previous page
          </Button>
          <Button
            ref={nextButton}
            disabled={!nextCursor}
            busy={loadingPage && move?.direction === 'next'}
            onClick={() => nextCursor && goTo([...cursors, nextCursor], 'next')}
          >
            Next page
          </Button>
        </nav>
      )}
    </Section>
  );
}
