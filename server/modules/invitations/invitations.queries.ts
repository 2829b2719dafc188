/**
 * The statements of invitations (behaviour §8): each builds, queues or runs SQL and returns rows;
 * none decides anything or throws. The rules are invitations.service.ts's.
 */
import type { InvitationView } from '../../../shared/invitations.ts';
import type { Role } from '../../../shared/fields.ts';
import { lapsed, nowFor, unexpired, type ClockedReader } from '../../platform/authorization/memberships.ts';
import type { DbTimestamp, Sql } from '../../platform/database/schema.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

export type InvitationStatus = InvitationView['status'];

/** The invitation as stored, with its organization's name. */
export interface InvitationRow {
  id: string;
  organization_id: string;
  organization_name: string;
  email: string;
  role: Role;
  status: InvitationStatus;
  invited_by: string | null;
  invited_by_key_id: string | null;
  created_at: DbTimestamp;
  expires_at: DbTimestamp;
  membership_expires_at: DbTimestamp | null;
}

/** An invitation's columns as its view needs them (`i`: invitations, `o`: its organization). */
const INVITATION_COLUMNS = [
  'i.id',
  'i.organization_id',
  'o.name as organization_name',
  'i.email',
  'i.role',
  'i.status',
  'i.invited_by',
  'i.invited_by_key_id',
  'i.created_at',
  'i.expires_at',
  'i.membership_expires_at',
] as const;

/** Pending, unexpired invitations with their organization's name, oldest first. */
const openInvitations = (sql: Sql, now: DbTimestamp) =>
  sql
    .selectFrom('invitations as i')
    .innerJoin('organizations as o', 'o.id', 'i.organization_id')
    .select(INVITATION_COLUMNS)
    .where('i.status', '=', 'pending')
    .where('i.expires_at', '>', now)
    .orderBy('i.created_at')
    .orderBy('i.id');

export const openInvitationsOf = (reader: ClockedReader, organizationId: string): Promise<InvitationRow[]> =>
  reader.all(openInvitations(reader.sql, nowFor(reader)).where('i.organization_id', '=', organizationId));

export const openInvitationsTo = (reader: ClockedReader, email: string): Promise<InvitationRow[]> =>
  reader.all(openInvitations(reader.sql, nowFor(reader)).where('i.email', '=', email));

/** The organization's name, and the current membership here of the user with the e-mail (if any). */
export const organizationAndInvitee = (tx: Tx, organizationId: string, email: string) =>
  tx.first(
    tx.sql
      .selectFrom('organizations as o')
      .leftJoin('users as u', (join) => join.on('u.email', '=', email))
      .leftJoin('organization_users as m', (join) =>
        join.onRef('m.organization_id', '=', 'o.id').onRef('m.user_id', '=', 'u.id').on(unexpired('m', tx.timestamp())),
      )
      .select(['o.name', 'm.role as member_role'])
      .where('o.id', '=', organizationId),
  );

/** The open invitation of the organization to an e-mail, if there is one. */
export const openInvitationTo = (tx: Tx, organizationId: string, email: string) =>
  tx.first(
    tx.sql
      .selectFrom('invitations')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('email', '=', email)
      .where('status', '=', 'pending')
      .where('expires_at', '>', tx.timestamp()),
  );

/** How many open invitations of the organization offer `role`. */
export async function openInvitationsWithRole(tx: Tx, organizationId: string, role: Role): Promise<number> {
  const row = await tx.first(
    tx.sql
      .selectFrom('invitations as i')
      .select((count) => count.fn.countAll<number | string>().as('invitations'))
      .where('i.organization_id', '=', organizationId)
      .where('i.role', '=', role)
      .where('i.status', '=', 'pending')
      .where('i.expires_at', '>', tx.timestamp()),
  );
  return Number(row?.invitations ?? 0);
}

export type NewInvitation = Omit<InvitationRow, 'organization_name'>;

export function insertInvitation(tx: Tx, invitation: NewInvitation): void {
  tx.later(tx.sql.insertInto('invitations').values({ ...invitation, updated_at: tx.timestamp() }));
}

export function setStatus(tx: Tx, invitationId: string, status: InvitationStatus): void {
  tx.later(
    tx.sql.updateTable('invitations').set({ status, updated_at: tx.timestamp() }).where('id', '=', invitationId),
  );
}

/** An invitation of the organization (null columns: none), with the user its e-mail belongs to. */
export const invitationOf = (tx: Tx, organizationId: string, invitationId: string) =>
  tx.first(
    tx.sql
      .selectFrom('invitations as i')
      .leftJoin('users as u', 'u.email', 'i.email')
      .select(['i.email', 'i.role', 'i.status', 'i.expires_at', 'u.id as invitee_user_id'])
      .where('i.organization_id', '=', organizationId)
      .where('i.id', '=', invitationId),
  );

/** Which organization an invitation is of. */
export const invitationOrganization = (reader: Reader, invitationId: string) =>
  reader.first(reader.sql.selectFrom('invitations').select('organization_id').where('id', '=', invitationId));

/**
 * An invitation with what the invitee's answer decides on: the caller's e-mail (null: no record),
 * their current membership in its organization, and the expired one still stored.
 */
export const invitationForAnswer = (tx: Tx, invitationId: string, callerId: string) => {
  const now = tx.timestamp();
  return tx.first(
    tx.sql
      .selectFrom('invitations as i')
      .innerJoin('organizations as o', 'o.id', 'i.organization_id')
      .leftJoin('users as u', (join) => join.on('u.id', '=', callerId))
      .leftJoin('organization_users as m', (join) =>
        join
          .onRef('m.organization_id', '=', 'i.organization_id')
          .on('m.user_id', '=', callerId)
          .on(unexpired('m', now)),
      )
      .leftJoin('organization_users as x', (join) =>
        join.onRef('x.organization_id', '=', 'i.organization_id').on('x.user_id', '=', callerId).on(lapsed('x', now)),
      )
      .select([
        ...INVITATION_COLUMNS,
        'u.email as caller_email',
        'm.role as member_role',
        'x.role as lapsed_role',
        'x.expires_at as lapsed_expires_at',
      ])
      .where('i.id', '=', invitationId),
  );
};
