/**
 * An organization's members (behaviour §4.3, §11, §15): `MembersTable` finds them (search, role,
 * order) a page at a time with what the caller's permissions allow on each row and on the rows
 * selected; `MemberProfile` is one member's page; `MemberPicker` chooses one member by typing;
 * `AddMemberForm` adds a user by e-mail.
 */
export { AddMemberForm, type AddMemberFormProps } from './AddMemberForm.tsx';
export { MemberPicker, type MemberPickerProps } from './MemberPicker.tsx';
export { MemberProfile, type MemberProfileProps } from './MemberProfile.tsx';
export { MembersTable, type MembersTableProps } from './MembersTable.tsx';
export type { Member } from './member.ts';
