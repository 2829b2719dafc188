/**
 * The audit events of an organization (behaviour §9): their types and the `data` each carries.
 */
import { z } from 'zod';
import { EVENT_TYPES, type EventData, type EventType } from './event-types.ts';
import { roleSchema } from './fields.ts';

export { EVENT_TYPES, type EventData, type EventType } from './event-types.ts';

// ---- schemas of events as the API returns them -----------------------------------------------

const role = roleSchema;
const fieldChange = z.object({ from: z.string(), to: z.string() });
const invitation = z.object({ invitation_id: z.string(), email: z.string().nullable(), role });
/** What a change made by the organization's identity provider says of itself (behaviour §18). */
const via = z.literal('scim').optional();
const team = z.object({ team_id: z.string(), name: z.string(), via });
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
    changes: z.object({
      organization_name: fieldChange.optional(),
      organization_description: fieldChange.optional(),
      organization_slug: fieldChange.optional(),
      max_members: z.object({ from: z.number().int().nullable(), to: z.number().int().nullable() }).optional(),
    }),
    public_metadata_keys: z.array(z.string()).optional(),
    private_metadata_changed: z.literal(true).optional(),
  }),
  'organization.deleted': z.object({ organization_name: z.string() }),
  'member.added': z.object({ role, expires_at: z.string().optional(), via: z.enum(['domain', 'scim']).optional() }),
  'member.role_changed': z.object({
    from: role,
    to: role,
    expires_at: z.object({ from: z.string().nullable(), to: z.string().nullable() }).optional(),
  }),
  'member.removed': z.object({ role, via }),
  'member.left': z.object({ role, reason: z.literal('account_deleted').optional() }),
  'member.updated': z.object({ public_metadata_keys: z.array(z.string()) }),
  'member.expired': z.object({ role, expires_at: z.string() }),
  'ownership.transferred': z.object({ previous_owner_user_id: z.string().nullable(), new_owner_previous_role: role }),
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
  'team.created': z.object({
    team_id: z.string(),
    name: z.string(),
    description: z.string(),
    roles: z.array(role),
    via,
  }),
  'team.updated': z.object({
    team_id: z.string(),
    changes: z.object({
      name: fieldChange.optional(),
      description: fieldChange.optional(),
      roles: z.object({ from: z.array(role), to: z.array(role) }).optional(),
    }),
    via,
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
  'api_key.created': z.object({
    key_id: z.string(),
    name: z.string(),
    role,
    prefix: z.string(),
    expires_at: z.string().nullable(),
  }),
  'api_key.revoked': z.object({ key_id: z.string(), name: z.string(), role, prefix: z.string() }),
  'domain.created': z.object({ domain_id: z.string(), domain: z.string(), status: z.enum(['pending', 'verified']) }),
  'domain.verified': z.object({ domain_id: z.string(), domain: z.string(), by: z.enum(['dns_txt', 'email']) }),
  'domain.updated': z.object({
    domain_id: z.string(),
    domain: z.string(),
    changes: z.object({
      enrollment: fieldChange.optional(),
      default_role: z.object({ from: role, to: role }).optional(),
    }),
  }),
  'domain.deleted': z.object({ domain_id: z.string(), domain: z.string() }),
  'directory.updated': z.object({ changes: z.object({ default_role: z.object({ from: role, to: role }).optional() }) }),
  'join_request.created': z.object({ request_id: z.string(), role }),
  'join_request.approved': z.object({ request_id: z.string(), role }),
  'join_request.rejected': z.object({ request_id: z.string() }),
  'join_request.withdrawn': z.object({ request_id: z.string() }),
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
    /** The person who made the change; null when a key did (behaviour §16). */
    actor_user_id: z.string().nullable(),
    /** The key that made the change (an organization's API key or an application key); null for a person. */
    actor_key_id: z.string().nullable(),
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
  eventOf('member.updated'),
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
  eventOf('api_key.created'),
  eventOf('api_key.revoked'),
  eventOf('domain.created'),
  eventOf('domain.verified'),
  eventOf('domain.updated'),
  eventOf('domain.deleted'),
  eventOf('directory.updated'),
  eventOf('join_request.created'),
  eventOf('join_request.approved'),
  eventOf('join_request.rejected'),
  eventOf('join_request.withdrawn'),
]);
export type AuditEvent = z.infer<typeof auditEventOutput>;

const everyTypeHasASchema: [EventType] extends [AuditEvent['type']] ? true : never = true;
void everyTypeHasASchema;
