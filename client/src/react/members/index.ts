/**
 * An organization's members (behaviour §4.3, §11): `MembersTable` shows them a page at a time with
 * what the caller's permissions allow on each row (changing the role and the membership's expiry,
 * removing, and on their own row leaving); `AddMemberForm` adds a user by e-mail.
 */
export { AddMemberForm, type AddMemberFormProps } from './AddMemberForm.tsx';
export { MembersTable, type MembersTableProps } from './MembersTable.tsx';
