/**
 * The audit events of an organization (behaviour §9): their types and the `data` each carries.
 */
import { z } from 'zod';
import { roleSchema, type Role } from './fields.ts';

/** What each event type records in `data`. */
export interface EventData {
  'organization.created': { organization_name: string; organization_description: string };
  /** Only the fields that changed, each with its value before and after. */
  'organization.updated': {
    changes: Partial<Record<'organization_name' | 'organization_description', { from: string; to: string }>>;
  };
  'organization.deleted': { organization_name: string };
  /** `expires_at` only for a membership that expires. */
  'member.added': { role: Role; expires_at?: string };
  /** A change of the expiry alone is recorded as well, `from` then being `to`; `expires_at` only when it changed. */
  'member.role_changed': { from: Role; to: Role; expires_at?: { from: string | null; to: string | null } };
  'member.removed': { role: Role };
  'member.left': { role: Role };
  /** The membership ended at `expires_at`; the sweep removed it. */
  'member.expired': { role: Role; expires_at: string };
  /** `subject_user_id` is the new owner; the previous owner (the actor) becomes admin. */
  'ownership.transferred': { previous_owner_user_id: string; new_owner_previous_role: Role };
  /** `membership_expires_at` only for an invitation to a membership that expires. */
  'invitation.created': { invitation_id: string; email: string; role: Role; membership_expires_at?: string };
  'invitation.revoked': { invitation_id: string; email: string; role: Role };
  'invitation.accepted': { invitation_id: string; role: Role; expires_at?: string };
  'invitation.declined': { invitation_id: string; email: string; role: Role };
  'role.created': { role: Role; description: string; permissions: string[] };
  /** Only the fields that changed, each with its value before and after. */
  'role.updated': {
    role: Role;
    changes: { description?: { from: string; to: string }; permissions?: { from: string[]; to: string[] } };
  };
  'role.deleted': { role: Role };
  'team.created': { team_id: string; name: string; description: string; roles: Role[] };
  /** Only the fields that changed, each with its value before and after. */
  'team.updated': {
    team_id: string;
    changes: {
      name?: { from: string; to: string };
      description?: { from: string; to: string };
      roles?: { from: Role[]; to: Role[] };
    };
  };
  'team.deleted': { team_id: string; name: string };
  /** `subject_user_id` is the member added. */
  'team.member_added': { team_id: string; name: string };
  /** `subject_user_id` is the member; also recorded for each team when they leave the organization. */
  'team.member_removed': { team_id: string; name: string };
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
] as const satisfies readonly EventType[];

// ---- schemas of events as the API returns them -----------------------------------------------

const role = roleSchema;
const fieldChange = z.object({ from: z.string(), to: z.string() });
const invitation = z.object({ invitation_id: z.string(), email: z.string(), role });
const team = z.object({ team_id: z.string(), name: z.string() });
const permissionsChange = z.object({ from: z.array(z.string()), to: z.array(z.string()) });

/** Checks, at compile time, that a schema's input and output are both exactly `T`. */
type Exactly<T, Schema extends z.ZodType> = [z.output<Schema>, z.input<Schema>] extends [T, T]
  ? [T] extends [z.output<Schema>]
    ? Schema
    : never
  : never;

/** The schema of each type's `data`, checked against EventData, which the writers are typed by. */
export const eventDataSchemas = {
  'organization.created': z.object({ organization_name: z.string(), organization_description: z.string() }),
  'organization.updated': z.object({
    changes: z.object({ organization_name: fieldChange.optional(), organization_description: fieldChange.optional() }),
  }),
  'organization.deleted': z.object({ organization_name: z.string() }),
  'member.added': z.object({ role, expires_at: z.string().optional() }),
  'member.role_changed': z.object({
    from: role,
    to: role,
    expires_at: z.object({ from: z.string().nullable(), to: z.string().nullable() }).optional(),
  }),
  'member.removed': z.object({ role }),
  'member.left': z.object({ role }),
  'member.expired': z.object({ role, expires_at: z.string() }),
  'ownership.transferred': z.object({ previous_owner_user_id: z.string(), new_owner_previous_role: role }),
  'invitation.created': invitation.extend({ membership_expires_at: z.string().optional() }),
  'invitation.revoked': invitation,
  'invitation.accepted': z.object({ invitation_id: z.string(), role, expires_at: z.string().optional() }),
  'invitation.declined': invitation,
  'role.created': z.object({ role, description: z.string(), permissions: z.array(z.string()) }),
  'role.updated': z.object({
    role,
    changes: z.object({ description: fieldChange.optional(), permissions: permissionsChange.optional() }),
  }),
  'role.deleted': z.object({ role }),
  'team.created': z.object({ team_id: z.string(), name: z.string(), description: z.string(), roles: z.array(role) }),
  'team.updated': z.object({
    team_id: z.string(),
    changes: z.object({
      name: fieldChange.optional(),
      description: fieldChange.optional(),
      roles: z.object({ from: z.array(role), to: z.array(role) }).optional(),
    }),
  }),
  'team.deleted': team,
  'team.member_added': team,
  'team.member_removed': team,
  'webhook.created': z.object({
    webhook_id: z.string(),
    url: z.string(),
    event_types: z.array(z.string()),
    description: z.string(),
  }),
  'webhook.updated': z.object({
    webhook_id: z.string(),
    changes: z.object({
      url: fieldChange.optional(),
      event_types: z.object({ from: z.array(z.string()), to: z.array(z.string()) }).optional(),
      description: fieldChange.optional(),
      enabled: z.object({ from: z.boolean(), to: z.boolean() }).optional(),
    }),
    secret_rotated: z.literal(true).optional(),
  }),
  'webhook.deleted': z.object({ webhook_id: z.string(), url: z.string() }),
  'webhook.disabled': z.object({ webhook_id: z.string(), url: z.string(), reason: z.string() }),
} satisfies { [Type in EventType]: z.ZodType };

type DataSchemas = typeof eventDataSchemas;
const dataSchemasMatchEventData: { [Type in EventType]: Exactly<EventData[Type], DataSchemas[Type]> } =
  eventDataSchemas;
void dataSchemasMatchEventData;

/** An event id: a UUID (v7 for the ids the service makes); compared in lower case. */
export const eventIdSchema = z.uuid().toLowerCase();
export const eventTypeSchema = z.enum(EVENT_TYPES);

const eventOf = <Type extends EventType>(type: Type) =>
  z.object({
    event_id: z.string(),
    type: z.literal(type),
    organization_id: z.string(),
    actor_user_id: z.string(),
    subject_user_id: z.string().nullable(),
    data: eventDataSchemas[type],
    /** ISO 8601 UTC with milliseconds. */
    created_at: z.string(),
  });

/** One audit event (behaviour §9), its `data` typed by its `type`. */
export const auditEventOutput = z.discriminatedUnion('type', [
  eventOf('organization.created'),
  eventOf('organization.updated'),
  eventOf('organization.deleted'),
  eventOf('member.added'),
  eventOf('member.role_changed'),
  eventOf('member.removed'),
  eventOf('member.left'),
  eventOf('member.expired'),
  eventOf('ownership.transferred'),
  eventOf('invitation.created'),
  eventOf('invitation.revoked'),
  eventOf('invitation.accepted'),
  eventOf('invitation.declined'),
  eventOf('role.created'),
  eventOf('role.updated'),
  eventOf('role.deleted'),
  eventOf('team.created'),
  eventOf('team.updated'),
  eventOf('team.deleted'),
  eventOf('team.member_added'),
  eventOf('team.member_removed'),
  eventOf('webhook.created'),
  eventOf('webhook.updated'),
  eventOf('webhook.deleted'),
  eventOf('webhook.disabled'),
]);
export type AuditEvent = z.infer<typeof auditEventOutput>;

const everyTypeHasASchema: [EventType] extends [AuditEvent['type']] ? true : never = true;
void everyTypeHasASchema;
