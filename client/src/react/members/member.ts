import type { RouterOutputs } from '../../index.ts';

export type Member = RouterOutputs['members']['page']['items'][number];

/** The members table's columns, before the one of each row's buttons. */
export const MEMBER_COLUMNS = ['Name', 'Email', 'Role', 'Expires', 'Joined'];

export const fullName = (member: Member) => `${member.first_name} ${member.last_name}`.trim() || member.email;
