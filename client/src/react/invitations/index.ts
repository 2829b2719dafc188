/**
 * Invitations (behaviour §8): the organization's side, inviting an e-mail address with a role and
 * an optional membership expiry (§11) and listing and revoking its invitations, and the invitee's
 * side, their own pending invitations to accept or decline.
 */
export { InvitationsTable, type InvitationsTableProps } from './InvitationsTable.tsx';
export { InviteForm, type InviteFormProps } from './InviteForm.tsx';
export { MyInvitations } from './MyInvitations.tsx';
