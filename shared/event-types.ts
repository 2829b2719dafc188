/**
 * The audit events' types and the `data` each carries (behaviour §9), without their schemas: what
 * a browser bundle imports (the console's webhook form lists the types) without zod.
 */
import type { Role } from './fields.ts';

/** What each event type records in `data`. */
export interface EventData {
  'organization.created': { organization_name: string; organization_description: string };
  /**
   * Only the fields that changed, each with its value before and after (`max_members`: the seat
   * limit, null for none, behaviour §16); `public_metadata_keys`: the top-level keys of the public
   * metadata that a patch changed; `private_metadata_changed` when the private metadata changed
   * (nothing of it is ever in an event, behaviour §16).
   */
  'organization.updated': {
    changes: Partial<
      Record<'organization_name' | 'organization_description' | 'organization_slug', { from: string; to: string }>
    > & { max_members?: { from: number | null; to: number | null } };
    public_metadata_keys?: string[];
    private_metadata_changed?: true;
  };
  'organization.deleted': { organization_name: string };
  /** `expires_at` only for a membership that expires; `via`: made by a verified domain or by the directory (SCIM). */
  'member.added': { role: Role; expires_at?: string; via?: 'domain' | 'scim' };
  /** A change of the expiry alone is recorded as well, `from` then being `to`; `expires_at` only when it changed. */
  'member.role_changed': { from: Role; to: Role; expires_at?: { from: string | null; to: string | null } };
  'member.removed': { role: Role; via?: 'scim' };
  /** `reason` `account_deleted` when the member deleted their account (behaviour §15). */
  'member.left': { role: Role; reason?: 'account_deleted' };
  /** The top-level keys of the membership's public metadata that a patch changed. */
  'member.updated': { public_metadata_keys: string[] };
  /** The membership ended at `expires_at`; the sweep removed it. */
  'member.expired': { role: Role; expires_at: string };
  /** `subject_user_id` is the new owner; the previous owner (the actor) becomes admin. */
  /** `previous_owner_user_id` null: the application's key made the member an owner, and nobody stepped down. */
  'ownership.transferred': { previous_owner_user_id: string | null; new_owner_previous_role: Role };
  /**
   * `membership_expires_at` only for an invitation to a membership that expires. `email` (here, on
   * revoked and declined) is null once the invitee's account is deleted (behaviour §15).
   */
  'invitation.created': { invitation_id: string; email: string | null; role: Role; membership_expires_at?: string };
  'invitation.revoked': { invitation_id: string; email: string | null; role: Role };
  'invitation.accepted': { invitation_id: string; role: Role; expires_at?: string };
  'invitation.declined': { invitation_id: string; email: string | null; role: Role };
  'role.created': { role: Role; description: string; permissions: string[] };
  /** Only the fields that changed, each with its value before and after. */
  'role.updated': {
    role: Role;
    changes: { description?: { from: string; to: string }; permissions?: { from: string[]; to: string[] } };
  };
  'role.deleted': { role: Role };
  'team.created': { team_id: string; name: string; description: string; roles: Role[]; via?: 'scim' };
  /** Only the fields that changed, each with its value before and after. */
  'team.updated': {
    team_id: string;
    changes: {
      name?: { from: string; to: string };
      description?: { from: string; to: string };
      roles?: { from: Role[]; to: Role[] };
    };
    via?: 'scim';
  };
  'team.deleted': { team_id: string; name: string; via?: 'scim' };
  /** `subject_user_id` is the member added. */
  'team.member_added': { team_id: string; name: string; via?: 'scim' };
  /** `subject_user_id` is the member; also recorded for each team when they leave the organization. */
  'team.member_removed': { team_id: string; name: string; via?: 'scim' };
  'webhook.created': { webhook_id: string; url: string; event_types: string[]; description: string };
  /**
   * Only the fields that changed, each with its value before and after; `secret_rotated` when the
   * signing secret was replaced (the secret itself is never in an event).
   */
  'webhook.updated': {
    webhook_id: string;
    changes: {
      url?: { from: string; to: string };
      event_types?: { from: string[]; to: string[] };
      description?: { from: string; to: string };
      enabled?: { from: boolean; to: boolean };
    };
    secret_rotated?: true;
  };
  'webhook.deleted': { webhook_id: string; url: string };
  /** The service disabled the endpoint: every delivery to it failed for WEBHOOK_DISABLE_AFTER_HOURS. */
  'webhook.disabled': { webhook_id: string; url: string; reason: string };
  /** An API key was made (its secret is never in an event); `expires_at` null: it does not expire. */
  'api_key.created': { key_id: string; name: string; role: Role; prefix: string; expires_at: string | null };
  'api_key.revoked': { key_id: string; name: string; role: Role; prefix: string };
  'domain.created': { domain_id: string; domain: string; status: 'pending' | 'verified' };
  /** `by`: a TXT record found (`dns_txt`), or the verified e-mail of whoever added it (`email`). */
  'domain.verified': { domain_id: string; domain: string; by: 'dns_txt' | 'email' };
  /** Only the fields that changed, each with its value before and after. */
  'domain.updated': {
    domain_id: string;
    domain: string;
    changes: { enrollment?: { from: string; to: string }; default_role?: { from: Role; to: Role } };
  };
  'domain.deleted': { domain_id: string; domain: string };
  /** The directory's settings changed (behaviour §18): only the fields that changed, before and after. */
  'directory.updated': { changes: { default_role?: { from: Role; to: Role } } };
  /** `subject_user_id` is the requester, who is the actor too but for approval and rejection. */
  'join_request.created': { request_id: string; role: Role };
  'join_request.approved': { request_id: string; role: Role };
  'join_request.rejected': { request_id: string };
  'join_request.withdrawn': { request_id: string };
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
  'member.updated',
  'member.expired',
  'ownership.transferred',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
  'invitation.declined',
  'role.created',
  'role.updated',
  'role.deleted',
  'team.created',
  'team.updated',
  'team.deleted',
  'team.member_added',
  'team.member_removed',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.disabled',
  'api_key.created',
  'api_key.revoked',
  'domain.created',
  'domain.verified',
  'domain.updated',
  'domain.deleted',
  'directory.updated',
  'join_request.created',
  'join_request.approved',
  'join_request.rejected',
  'join_request.withdrawn',
] as const satisfies readonly EventType[];
