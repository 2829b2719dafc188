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

/**
 * The `members.page` input's search, filter and order, left out when empty. Typed apart from the
 * input (and so passed by spreading) because the service takes them since behaviour §15; one that
 * does not yet ignores them, and `matchesSearch` narrows its answer instead.
 */
export function memberQueryInput({ search, role, sort }: MemberQuery): MemberQuery {
  const query: MemberQuery = {};
  if (search?.trim()) query.search = search.trim().slice(0, 100);
  if (role) query.role = role;
  if (sort && sort !== 'created_at') query.sort = sort;
  return query;
}

/** The words of an e-mail address: its parts between `@`, `.`, `_`, `-` and `+` (behaviour §15). */
const words = (member: Pick<Member, 'first_name' | 'last_name' | 'email'>) =>
  [member.first_name, member.last_name, member.email]
    .flatMap((field) => field.toLowerCase().split(/[\s@._+-]+/))
    .filter(Boolean);

/**
 * Whether a member matches `search` as the service's search does (behaviour §15: every word of it
 * begins a word of their names or e-mail): a page the service did not narrow is narrowed here.
 */
export function matchesSearch(member: Pick<Member, 'first_name' | 'last_name' | 'email'>, search: string): boolean {
  const own = words(member);
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => own.some((each) => each.startsWith(word)));
}

/** A page's members as the query asks for them, whether or not the service narrowed them already. */
export const narrowed = <Item extends Member>(items: readonly Item[], { search, role }: MemberQuery): Item[] =>
  items.filter(
    (member) => (!search?.trim() || matchesSearch(member, search)) && (!role || role.split(',').includes(member.role)),
  );

/** The member page's total when the service gives one (behaviour §15), else undefined. */
export const totalOf = (page: object | undefined): number | undefined =>
  page && 'total' in page && typeof page.total === 'number' ? page.total : undefined;
