/**
 * The tables, defined with MikroORM's `defineEntity` (no decorators, so Node runs this file as it
 * is). They are the one description of the schema: the migrations are checked against them
 * (tests/migrations.test.ts) and the typed queries of the data layer are typed from them
 * (`Database` in schema.ts). Column names are snake_case through MikroORM's default naming
 * strategy. Timestamps are `datetime(3)`: milliseconds are part of the contract's ISO format.
 *
 * No column names a collation: ids and keys must compare byte for byte, and on MySQL and MariaDB
 * every table's default collation is binary NO PAD (set by a migration, which picks the name that
 * server has), inherited by all its columns. SQLite compares text that way already. E-mail
 * addresses are stored and looked up in lower case.
 *
 * A foreign key has no index of its own (`.index(false)`) where the primary key or another index
 * begins with its column: MariaDB checks the key through that one, and a second index would be one
 * more write on every insert and delete for nothing (docs/performance.md, "Measured choices in the
 * code"; tests/migrations.test.ts finds any index that begins another).
 */
import { defineEntity, p } from '@mikro-orm/core';
import { ROLE_NAME_MAX_LENGTH } from '../../../shared/fields.ts';
import { DOMAIN_ENROLLMENTS, MAX_DOMAIN_LENGTH } from '../../../shared/domains.ts';
import { INVITATION_STATUSES } from '../../../shared/invitations.ts';
import { WORD_MAX_LENGTH } from '../../../shared/search.ts';
import { JOIN_REQUEST_STATUSES } from '../../../shared/joining.ts';
import { DELIVERY_STATUSES, MAX_WEBHOOK_DESCRIPTION, MAX_WEBHOOK_URL } from '../../../shared/webhooks.ts';
import { MAX_TEAM_DESCRIPTION, MAX_TEAM_NAME, MAX_TEAM_NAME_KEY } from '../../../shared/teams.ts';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().length(128).primary(),
    firstName: p.string().length(100),
    lastName: p.string().length(100),
    email: p.string().length(254).unique('users_email_unique'),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
});

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.string().length(36).primary(),
    name: p.string().length(100),
    description: p.string().length(1000),
    /** Who created it; no foreign key, so that a person may delete their record (behaviour §15). */
    createdBy: p.string().length(128).index('organizations_created_by_index'),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
    /**
     * Bumped by every transaction that changes the organization, its members or its invitations,
     * as its first statement: the row lock that serialises those changes on one server, and the
     * write that makes two of them conflict at certification on a multi-primary cluster (Galera
     * certifies the rows a transaction writes, not the ones it locks for reading).
     */
    version: p.integer().default(0),
    /**
     * Unique over the service (behaviour §15): how an application names the organization in a URL.
     * No organization keeps the default: its creation sets one, and the migration that added the
     * column gave every existing organization its own; the embedded database adds a column that
     * may not be null only with a default.
     */
    slug: p.string().length(64).unique('organizations_slug_unique').default(''),
    /** JSON objects (behaviour §15, §16): the public one any member reads, the private one only an application key. */
    publicMetadata: p.text().default('{}'),
    privateMetadata: p.text().default('{}'),
    /** The seat limit (behaviour §16); null: none. */
    maxMembers: p.integer().nullable(),
    /**
     * The membership rows of the organization, kept under its lock by every change that adds or
     * removes one, so that a read of the organization counts nothing (expired rows the sweep has not
     * removed yet are subtracted by their own index: organization_users_lapsed_idx).
     */
    memberCount: p.integer().default(0),
    /** The role a directory user's new membership gets (behaviour §18). */
    directoryDefaultRole: p.string().length(ROLE_NAME_MAX_LENGTH).default('member'),
  },
});

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'organization_users',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade').index(false),
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    /** A built-in role, an instance role (ROLES_FILE) or one of the organization's roles. */
    role: p.string().length(ROLE_NAME_MAX_LENGTH),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
    /** From this instant the membership counts as none (behaviour §11); null: it does not expire. */
    expiresAt: p.datetime(3).nullable(),
    /** A JSON object (behaviour §15). */
    publicMetadata: p.text().default('{}'),
  },
  indexes: [
    // The member list is ordered by (created_at, user_id) within an organization and pages by it.
    { name: 'organization_users_list_idx', properties: ['organization', 'createdAt', 'user'] },
    // The member list filtered by role (behaviour §15), in its default order.
    { name: 'organization_users_role_idx', properties: ['organization', 'role', 'createdAt', 'user'] },
    // The sweep looks for the memberships that have expired.
    { name: 'organization_users_expires_idx', properties: ['expiresAt'] },
    // An organization's expired memberships not yet swept, subtracted from its member count.
    { name: 'organization_users_lapsed_idx', properties: ['organization', 'expiresAt'] },
  ],
});

export const Invitation = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  properties: {
    id: p.string().length(36).primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(false),
    email: p.string().length(254),
    role: p.string().length(ROLE_NAME_MAX_LENGTH),
    status: p.enum(INVITATION_STATUSES).length(16),
    /** Who invited: a person, or a key (`invited_by_key_id`, behaviour §16) and no person. */
    invitedBy: () => p.manyToOne(User).fieldName('invited_by').nullable(),
    invitedByKeyId: p.string().length(36).nullable(),
    createdAt: p.datetime(3),
    expiresAt: p.datetime(3),
    updatedAt: p.datetime(3),
    /** When the membership that accepting makes expires; null: it does not. */
    membershipExpiresAt: p.datetime(3).nullable(),
  },
  indexes: [
    // An organization's pending invitations, oldest first; an invitee's pending invitations.
    { name: 'invitations_organization_status_idx', properties: ['organization', 'status', 'createdAt'] },
    { name: 'invitations_email_status_idx', properties: ['email', 'status'] },
  ],
});

/**
 * An organization's own roles (behaviour §11), beside the built-in and instance ones, which are not
 * stored. `permissions` is a JSON array of permission names, read whole with the role.
 */
export const OrganizationRole = defineEntity({
  name: 'OrganizationRole',
  tableName: 'organization_roles',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade').index(false),
    name: p.string().length(ROLE_NAME_MAX_LENGTH).primary(),
    description: p.string().length(500),
    permissions: p.text(),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
});

/**
 * An organization's teams (behaviour §12). `name_key` is the digest of the name's comparable form
 * (server/modules/teams/name-key.ts): the tables compare text byte for byte, so the key, unique in
 * the organization, is what makes names unique ignoring case, width and invisible characters
 * (behaviour §4.4). Listed oldest first, by (created_at, id).
 */
export const Team = defineEntity({
  name: 'Team',
  tableName: 'teams',
  properties: {
    id: p.string().length(36).primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(false),
    name: p.string().length(MAX_TEAM_NAME),
    nameKey: p.string().length(MAX_TEAM_NAME_KEY),
    description: p.string().length(MAX_TEAM_DESCRIPTION),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
  uniques: [{ name: 'teams_name_key_unique', properties: ['organization', 'nameKey'] }],
  indexes: [{ name: 'teams_list_idx', properties: ['organization', 'createdAt', 'id'] }],
});

/**
 * The roles a team gives its members: names, as a membership's role is. `permissions` is a copy of
 * an organization role's own (JSON, as organization_roles holds it), kept in step by every change
 * of that role under the organization's lock (roles.sql.ts), so that the permission check reads
 * no organization_roles row per team; null for a built-in or instance role, which the role
 * catalogue answers.
 */
export const TeamRole = defineEntity({
  name: 'TeamRole',
  tableName: 'team_roles',
  properties: {
    team: () => p.manyToOne(Team).primary().deleteRule('cascade').index(false),
    role: p.string().length(ROLE_NAME_MAX_LENGTH).primary(),
    permissions: p.text().nullable(),
  },
});

/**
 * The members of a team. Each row references the membership it rests on (organization_id,
 * user_id): the database itself removes a user from an organization's teams when their membership
 * goes, and refuses a team member who is not a member of the organization.
 */
export const TeamMember = defineEntity({
  name: 'TeamMember',
  tableName: 'team_members',
  properties: {
    team: () => p.manyToOne(Team).primary().deleteRule('cascade').index(false),
    membership: () => p.manyToOne(Membership).primary().fieldNames('organization_id', 'user_id').deleteRule('cascade'),
    addedAt: p.datetime(3),
  },
  // A team's members, oldest first, paged by (added_at, user_id) (organization_id is the team's).
  indexes: [{ name: 'team_members_list_idx', properties: ['team', 'addedAt', 'membership'] }],
});

/**
 * An organization's webhook endpoints (behaviour §13). `event_types` is a JSON array (`["*"]`: all).
 * The previous secret signs beside the current one until `previous_secret_expires_at`. Events are
 * delivered to an endpoint from `created_event_id` (its own webhook.created) on. `failing_since`:
 * the first failed attempt since the last success, from which the endpoint is disabled in time.
 */
export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  properties: {
    id: p.string().length(36).primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(false),
    url: p.string().length(MAX_WEBHOOK_URL),
    eventTypes: p.text(),
    description: p.string().length(MAX_WEBHOOK_DESCRIPTION),
    secret: p.string().length(64),
    previousSecret: p.string().length(64).nullable(),
    previousSecretExpiresAt: p.datetime(3).nullable(),
    /** 1 or 0: the embedded driver cannot bind booleans. */
    enabled: p.integer(),
    disabledReason: p.string().length(200).nullable(),
    failingSince: p.datetime(3).nullable(),
    createdEventId: p.string().length(36),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
  indexes: [{ name: 'webhooks_list_idx', properties: ['organization', 'createdAt', 'id'] }],
});

/**
 * One event's delivery to one endpoint, and its attempts so far (behaviour §13). While an attempt
 * is under way, `claim_token` names it and `next_attempt_at` is when the claim lapses: an instance
 * that dies mid-attempt leaves a row that falls due again then, for another to take over.
 */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p.string().length(36).primary(),
    webhook: () => p.manyToOne(Webhook).deleteRule('cascade').index(false),
    organizationId: p.string().length(36),
    eventId: p.string().length(36),
    eventType: p.string().length(32),
    status: p.enum(DELIVERY_STATUSES).length(16),
    attempts: p.integer(),
    lastStatusCode: p.integer().nullable(),
    lastError: p.string().length(1200).nullable(),
    // Up to 1 KiB of the body the last attempt was answered with, cut between characters; null without an answer.
    lastResponseBody: p.string().length(1024).nullable(),
    nextAttemptAt: p.datetime(3).nullable(),
    claimToken: p.string().length(36).nullable(),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
  uniques: [{ name: 'webhook_deliveries_event_unique', properties: ['webhook', 'eventId'] }],
  indexes: [
    // What is due: pending rows by when.
    { name: 'webhook_deliveries_due_idx', properties: ['status', 'nextAttemptAt'] },
    // An endpoint's log, newest first.
    { name: 'webhook_deliveries_list_idx', properties: ['webhook', 'createdAt', 'id'] },
  ],
});

/**
 * How far each organization's events have been handed out to its endpoints: the event log is the
 * outbox, and this is its read position, moved by a conditional update (one instance wins).
 */
export const WebhookCursor = defineEntity({
  name: 'WebhookCursor',
  tableName: 'webhook_cursors',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade').index(false),
    lastEventId: p.string().length(36),
  },
});

/**
 * The audit trail (behaviour §9). No foreign key to the organization: the events of a deleted
 * organization stay. `event_id` is a UUID v7 that sorts in commit order within an organization.
 */
export const OrganizationEvent = defineEntity({
  name: 'OrganizationEvent',
  tableName: 'organization_events',
  properties: {
    eventId: p.string().length(36).primary(),
    organizationId: p.string().length(36),
    type: p.string().length(32),
    /** The person who made the change, or null when a key did (`actor_key_id`, behaviour §16). */
    actorUserId: p.string().length(128).nullable(),
    actorKeyId: p.string().length(36).nullable(),
    subjectUserId: p.string().length(128).nullable(),
    /** The event's `data` object as JSON text. */
    data: p.text(),
    createdAt: p.datetime(3),
  },
  indexes: [
    { name: 'organization_events_organization_idx', properties: ['organizationId', 'eventId'] },
    // A person's own events (behaviour §15: their export), as actor and as subject.
    { name: 'organization_events_actor_idx', properties: ['actorUserId', 'eventId'] },
    { name: 'organization_events_subject_idx', properties: ['subjectUserId', 'eventId'] },
  ],
});

/**
 * Idempotency keys (behaviour §10): claimed before a change runs, completed with the stored answer in
 * the change's own transaction. Scoped per caller (the token's subject, who may have no user record).
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    callerId: p.string().length(128).primary(),
    idempotencyKey: p.string().length(255).primary(),
    /** SHA-256 (hex) of the method, path, organization and body the key was first used with. */
    fingerprint: p.string().length(64),
    /** The stored answer as JSON; null while the first request runs. */
    responseBody: p.text().nullable(),
    createdAt: p.datetime(3),
  },
  indexes: [{ name: 'idempotency_keys_created_idx', properties: ['createdAt'] }],
});

/**
 * An organization's API keys (behaviour §16). The secret is kept only as its SHA-256
 * (`secret_hash`, base64url), by which a request's key is found; `prefix` is its first characters,
 * to tell keys apart. `created_by` is the user id of the person who made it, or the id of the key
 * that did. A revoked key keeps its row (`revoked_at`), for the audit trail.
 */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().length(36).primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(false),
    name: p.string().length(100),
    role: p.string().length(ROLE_NAME_MAX_LENGTH),
    prefix: p.string().length(16),
    secretHash: p.string().length(43).unique('api_keys_secret_hash_unique'),
    createdBy: p.string().length(128),
    createdAt: p.datetime(3),
    expiresAt: p.datetime(3).nullable(),
    revokedAt: p.datetime(3).nullable(),
    lastUsedAt: p.datetime(3).nullable(),
  },
  indexes: [{ name: 'api_keys_list_idx', properties: ['organization', 'createdAt', 'id'] }],
});

/** The application's own keys (behaviour §16), made and revoked by the operator (`npm run app-key`). */
export const ApplicationKey = defineEntity({
  name: 'ApplicationKey',
  tableName: 'application_keys',
  properties: {
    id: p.string().length(36).primary(),
    name: p.string().length(100),
    prefix: p.string().length(16),
    secretHash: p.string().length(43).unique('application_keys_secret_hash_unique'),
    createdAt: p.datetime(3),
    revokedAt: p.datetime(3).nullable(),
    lastUsedAt: p.datetime(3).nullable(),
  },
});

/**
 * The directory's search (behaviour §15): each user's words, folded (shared/search.ts), kept by
 * word-index.ts with the user's names and e-mail address; found by their beginning.
 */
export const UserWord = defineEntity({
  name: 'UserWord',
  tableName: 'user_words',
  properties: {
    user: () => p.manyToOne(User).primary().deleteRule('cascade').index(false),
    word: p.string().length(WORD_MAX_LENGTH).primary(),
  },
  indexes: [{ name: 'user_words_search_idx', properties: ['word', 'user'] }],
});

/**
 * A copy of a member's words for each of their memberships, so that a search in an organization
 * reads that organization's words alone: its key (organization_id, word, user_id) is the search's
 * index. They go with the user or the organization by the foreign keys, and with the membership
 * when members.queries.ts deletes it.
 */
export const MemberWord = defineEntity({
  name: 'MemberWord',
  tableName: 'member_words',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade').index(false),
    word: p.string().length(WORD_MAX_LENGTH).primary(),
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
  },
  // A membership's words, deleted with it.
  indexes: [{ name: 'member_words_membership_idx', properties: ['organization', 'user'] }],
});

/** An organization's words (its name's and its slug's), for the search of organizations. */
export const OrganizationWord = defineEntity({
  name: 'OrganizationWord',
  tableName: 'organization_words',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade').index(false),
    word: p.string().length(WORD_MAX_LENGTH).primary(),
  },
  indexes: [{ name: 'organization_words_search_idx', properties: ['word', 'organization'] }],
});

/**
 * An organization's e-mail domains (behaviour §17). `verified_domain` is the domain while it is
 * verified and null before: its unique index lets one organization at a time hold a domain
 * verified, whatever organizations race to verify it.
 */
export const OrganizationDomain = defineEntity({
  name: 'OrganizationDomain',
  tableName: 'organization_domains',
  properties: {
    id: p.string().length(36).primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(false),
    domain: p.string().length(MAX_DOMAIN_LENGTH),
    /** The text the TXT record must hold. */
    verificationValue: p.string().length(64),
    enrollment: p.enum(DOMAIN_ENROLLMENTS).length(32),
    defaultRole: p.string().length(ROLE_NAME_MAX_LENGTH),
    createdAt: p.datetime(3),
    verifiedAt: p.datetime(3).nullable(),
    verifiedDomain: p
      .string()
      .length(MAX_DOMAIN_LENGTH)
      .nullable()
      .unique('organization_domains_verified_domain_unique'),
  },
  uniques: [{ name: 'organization_domains_organization_domain_unique', properties: ['organization', 'domain'] }],
  indexes: [{ name: 'organization_domains_list_idx', properties: ['organization', 'createdAt', 'id'] }],
});

/** A person's request to join an organization by their verified domain (behaviour §17). */
export const JoinRequest = defineEntity({
  name: 'JoinRequest',
  tableName: 'join_requests',
  properties: {
    id: p.string().length(36).primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(false),
    user: () => p.manyToOne(User).deleteRule('cascade').index(false),
    /** The domain's default role when the request was made: what approving gives unless told otherwise. */
    role: p.string().length(ROLE_NAME_MAX_LENGTH),
    status: p.enum(JOIN_REQUEST_STATUSES).length(16),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
  indexes: [
    { name: 'join_requests_organization_status_idx', properties: ['organization', 'status', 'createdAt', 'id'] },
    { name: 'join_requests_user_idx', properties: ['user', 'createdAt'] },
  ],
});

/** The automatic invitation a domain made for a person: made once, not again after a decline (behaviour §17). */
export const DomainInvitation = defineEntity({
  name: 'DomainInvitation',
  tableName: 'domain_invitations',
  properties: {
    domain: () => p.manyToOne(OrganizationDomain).primary().deleteRule('cascade').index(false),
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    createdAt: p.datetime(3),
  },
});

/**
 * An organization's directory users, as its identity provider provisions them over SCIM (behaviour
 * §18). `user_name_key` and `email_key` are the lower-cased `userName` and primary e-mail, by which
 * they are found and unique; `user_id` is the user record the entry is, once one has that e-mail.
 * `emails` is the SCIM list as JSON.
 */
export const DirectoryUser = defineEntity({
  name: 'DirectoryUser',
  tableName: 'directory_users',
  properties: {
    id: p.string().length(36).primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(false),
    userName: p.string().length(254),
    userNameKey: p.string().length(254),
    emailKey: p.string().length(254),
    externalId: p.string().length(254).nullable(),
    givenName: p.string().length(100),
    familyName: p.string().length(100),
    displayName: p.string().length(254),
    emails: p.text(),
    active: p.boolean(),
    userId: p.string().length(128).nullable(),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
  uniques: [{ name: 'directory_users_user_name_unique', properties: ['organization', 'userNameKey'] }],
  indexes: [
    { name: 'directory_users_list_idx', properties: ['organization', 'createdAt', 'id'] },
    { name: 'directory_users_email_idx', properties: ['organization', 'emailKey'] },
    { name: 'directory_users_external_id_idx', properties: ['organization', 'externalId'] },
    { name: 'directory_users_user_idx', properties: ['organization', 'userId'] },
    // A person creating their record is looked for in every organization's directory.
    { name: 'directory_users_user_name_key_idx', properties: ['userNameKey'] },
    // A person deleting their record is unlinked in every organization's directory (behaviour §15).
    { name: 'directory_users_user_id_idx', properties: ['userId'] },
  ],
});

/** The teams an organization's identity provider made (behaviour §18): a SCIM group is its team. */
export const DirectoryGroup = defineEntity({
  name: 'DirectoryGroup',
  tableName: 'directory_groups',
  properties: {
    team: () => p.manyToOne(Team).primary().deleteRule('cascade').index(false),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(false),
    externalId: p.string().length(254).nullable(),
  },
  indexes: [{ name: 'directory_groups_external_id_idx', properties: ['organization', 'externalId'] }],
});

/**
 * A directory group's members as the identity provider gave them: directory users, who are in the
 * team while they are members of the organization (a directory user without a record joins it later).
 */
export const DirectoryGroupMember = defineEntity({
  name: 'DirectoryGroupMember',
  tableName: 'directory_group_members',
  properties: {
    team: () => p.manyToOne(Team).primary().deleteRule('cascade').index(false),
    directoryUser: () => p.manyToOne(DirectoryUser).primary().deleteRule('cascade'),
  },
});

export const entities = [
  User,
  Organization,
  Membership,
  Invitation,
  OrganizationRole,
  Team,
  TeamRole,
  TeamMember,
  Webhook,
  WebhookDelivery,
  WebhookCursor,
  OrganizationEvent,
  IdempotencyKey,
  ApiKey,
  ApplicationKey,
  UserWord,
  MemberWord,
  OrganizationWord,
  OrganizationDomain,
  JoinRequest,
  DomainInvitation,
  DirectoryUser,
  DirectoryGroup,
  DirectoryGroupMember,
];
