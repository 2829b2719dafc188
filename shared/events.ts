/**
 * The audit events of an organization (CONTRACT 9): their types and the `data` each carries.
 */
import type { Role } from './schemas.ts';

/** What each event type records in `data`. */
export interface EventData {
  'organization.created': { organization_name: string; organization_description: string };
  /** Only the fields that changed, each with its value before and after. */
  'organization.updated': {
    changes: Partial<Record<'organization_name' | 'organization_description', { from: string; to: string }>>;
  };
  'organization.deleted': { organization_name: string };
  'member.added': { role: Role };
  'member.role_changed': { from: Role; to: Role };
  'member.removed': { role: Role };
  'member.left': { role: Role };
  /** `subject_user_id` is the new owner; the previous owner (the actor) becomes admin. */
  'ownership.transferred': { previous_owner_user_id: string; new_owner_previous_role: Role };
  'invitation.created': { invitation_id: string; email: string; role: Role };
  'invitation.revoked': { invitation_id: string; email: string; role: Role };
  'invitation.accepted': { invitation_id: string; role: Role };
  'invitation.declined': { invitation_id: string; email: string; role: Role };
}

export type EventType = keyof EventData;

export const EVENT_TYPES = [
  'organization.created',
  'organization.updated',
  'organization.deleted',
  'member.added',
  'member.role_changed',
  'member.removed',
  'member.left',
  'ownership.transferred',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
  'invitation.declined',
] as const satisfies readonly EventType[];
