import type { RouterOutputs } from '../../index.ts';

export type Member = RouterOutputs['members']['page']['items'][number];

/** The members table's columns, before the one of each row's buttons. */
export const MEMBER_COLUMNS = ['Name', 'Email', 'Role', 'Expires', 'Joined'];

export const fullName = (member: Pick<Member, 'first_name' | 'last_name' | 'email'>) =>
  `${member.first_name} ${member.last_name}`.trim() || member.email;

/** The member page's orders (behaviour §15): ascending, or reversed with a leading `-`. */
export const MEMBER_SORTS = {
  created_at: 'Joined, oldest first',
  '-created_at': 'Joined, newest first',
  name: 'Name, A to Z',
  '-name': 'Name, Z to A',
  email: 'Email, A to Z',
  '-email': 'Email, Z to A',
} as const;
export type MemberSort = keyof typeof MEMBER_SORTS;

/** What narrows and orders the member page (behaviour §15): each left out when empty. */
export interface MemberQuery {
  search?: string;
  /** One role name, or several comma-separated. */
  role?: string;
  sort?: MemberSort;
}

/** The `members.page` input's search, filter and order (behaviour §15), each left out when empty. */
export function memberQueryInput({ search, role, sort }: MemberQuery): MemberQuery {
  const query: MemberQuery = {};
  if (search?.trim()) query.search = search.trim().slice(0, 100);
  if (role) query.role = role;
  if (sort && sort !== 'created_at') query.sort = sort;
  return query;
}
