/**
 * An organization's members (behaviour §4.3, §11, §15) a page at a time (`members.page`, cursor
 * pages): found by a search as one types, filtered by role, in the order chosen, with what the
 * caller's permissions allow on each row and on the rows selected. The member procedures name the
 * organization in a header (`inOrganization`).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTRPC } from '../service.tsx';
import { Section, SelectField, TextField, useDebounced } from '../ui/index.ts';
import { MEMBER_SORTS, type Member, type MemberQuery, type MemberSort } from './member.ts';
import { MembersPages } from './MembersPages.tsx';

const DEFAULT_PAGE_SIZE = 50;
const PAGE_SIZES = [25, 50, 100, 250, 1000];

export interface MembersTableProps {
  organizationId: string;
  /** Members a page at first, 1 to 1000; 50 unless given. The reader may choose another. */
  pageSize?: number;
  /** The role filter at first (a link from a role to its holders). */
  role?: string;
  /** Called once the caller has left the organization from their own row (to go elsewhere). */
  onLeft?: () => void;
  /** A member's name as a link to a page of theirs, where the host application has one. */
  memberLink?: (member: Member, name: string) => ReactNode;
}

/** The organization's members: the search, filter, order and page size, then the pages they find. */
export function MembersTable(props: MembersTableProps) {
  const { organizationId } = props;
  const trpc = useTRPC();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const [text, setText] = useState('');
  const search = useDebounced(text);
  const [role, setRole] = useState(props.role ?? '');
  const [sort, setSort] = useState<MemberSort>('created_at');
  const [pageSize, setPageSize] = useState(props.pageSize ?? DEFAULT_PAGE_SIZE);
  // The service's problem with the search (a 400's issue), said next to the box.
  const [searchProblem, setSearchProblem] = useState<string>();
  const query: MemberQuery = { search, role, sort };
  const roleNames = new Set([...(roles.data ?? []).map((each) => each.role), ...(role ? [role] : [])]);
  return (
    <Section title="Members" description="Everyone in the organization: find them by name or e-mail, by role.">
      <div className="osc-filters" role="search" aria-label="Members">
        <TextField
          label="Search members"
          type="search"
          hint="Beginnings of a name's or an e-mail's words"
          value={text}
          maxLength={100}
          error={searchProblem}
          onChange={(event) => setText(event.target.value)}
        />
        <SelectField
          label="Role"
          value={role}
          options={[{ value: '', label: 'All roles' }, ...[...roleNames].map((name) => ({ value: name, label: name }))]}
          onChange={(event) => setRole(event.target.value)}
        />
        <SelectField
          label="Order"
          value={sort}
          options={Object.entries(MEMBER_SORTS).map(([value, label]) => ({ value, label }))}
          onChange={(event) => setSort(event.target.value as MemberSort)}
        />
        <SelectField
          label="Per page"
          value={String(pageSize)}
          options={PAGE_SIZES.map((size) => ({ value: String(size), label: String(size) }))}
          onChange={(event) => setPageSize(Number(event.target.value))}
        />
      </div>
      {/* Another organization, search or page size starts again on the first page, nothing selected. */}
      <MembersPages
        key={JSON.stringify([organizationId, search, role, sort, pageSize])}
        {...props}
        query={query}
        pageSize={pageSize}
        onSearchProblem={setSearchProblem}
      />
    </Section>
  );
}
