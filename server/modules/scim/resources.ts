/**
 * SCIM resources in and out (RFC 7643, behaviour §18): a User's or Group's JSON read into the
 * fields the directory keeps, loosely as identity providers send it (Entra ID's `"active":
 * "False"`, attributes this service does not keep ignored), and rows written back as resources.
 */
import { z } from 'zod';
import { emailSchema } from '../../../shared/fields.ts';
import { teamNameSchema } from '../../../shared/teams.ts';
import { nameText, plainText } from '../../../shared/text.ts';
import { isoTimestamp, type StoredTimestamp } from '../../platform/database/timestamps.ts';
import { declaredAttributes, namesOf, type ResourceNames } from './attribute-names.ts';
import { invalidValue } from './scim-errors.ts';
import { GROUP_ATTRIBUTES, GROUP_SCHEMA, USER_ATTRIBUTES, USER_SCHEMA } from './schemas.ts';
import type { DirectoryGroupRow, DirectoryUserFields, DirectoryUserRow } from './scim.queries.ts';

/** A SCIM boolean, or the strings Entra ID sends for one ("True", "False"), ignoring case. */
const scimBoolean = z.union(
  [
    z.boolean(),
    z
      .string()
      .regex(/^(true|false)$/i)
      .transform((text) => text.toLowerCase() === 'true'),
  ],
  { error: 'Must be true or false, or the string "True" or "False"' },
);

/** An optional field: absent, null or empty (as identity providers send an unset attribute) is none. */
const optional = <Schema extends z.ZodType>(schema: Schema) =>
  z.preprocess((value) => (value === '' ? null : value), schema.nullish());

/** An e-mail address by the service's rule for one (behaviour §4.4), kept as sent: SCIM compares it ignoring case. */
const emailAddress = z
  .string()
  .trim()
  .refine((text) => emailSchema.safeParse(text).success, 'Must be an e-mail address');

const email = z.object({
  value: emailAddress,
  type: optional(plainText({ min: 1, max: 64 })),
  primary: scimBoolean.nullish(),
});
type Email = z.infer<typeof email>;

const userInput = z.object({
  userName: emailAddress,
  externalId: optional(plainText({ min: 1, max: 254 })),
  name: z.object({ givenName: optional(nameText(100)), familyName: optional(nameText(100)) }).nullish(),
  displayName: optional(nameText(254)),
  emails: z.array(email).max(20).nullish(),
  active: scimBoolean.nullish(),
});

const groupInput = z.object({
  displayName: teamNameSchema,
  externalId: optional(plainText({ min: 1, max: 254 })),
  members: z
    .array(z.object({ value: z.string().max(64) }))
    .max(100_000)
    .nullish(),
});

export const USER_NAMES = namesOf(USER_SCHEMA, USER_ATTRIBUTES);
export const GROUP_NAMES = namesOf(GROUP_SCHEMA, GROUP_ATTRIBUTES);

/** A body read in the attributes' declared names (whatever case and URN prefix it wrote them in). */
function parsed<Schema extends z.ZodType>(schema: Schema, names: ResourceNames, body: unknown): z.output<Schema> {
  const result = schema.safeParse(declaredAttributes(names, body));
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw invalidValue(`${issue!.path.join('.') || 'The body'}: ${issue!.message}`);
}

/** The e-mail a directory user is found by: the primary one, else the first, else the userName. */
const emailKeyOf = (emails: Email[], userName: string) =>
  (emails.find((entry) => entry.primary === true) ?? emails[0])?.value.toLowerCase() ?? userName.toLowerCase();

/** A User resource's fields as the directory keeps them; `id` and `user_id` are the caller's to set. */
export function userFields(body: unknown): Omit<DirectoryUserFields, 'id' | 'user_id'> {
  const user = parsed(userInput, USER_NAMES, body);
  const emails = (user.emails ?? []).map((entry) => ({
    value: entry.value,
    ...(entry.type != null && { type: entry.type }),
    ...(entry.primary != null && { primary: entry.primary }),
  }));
  return {
    user_name: user.userName,
    user_name_key: user.userName.toLowerCase(),
    email_key: emailKeyOf(emails, user.userName),
    external_id: user.externalId ?? null,
    given_name: user.name?.givenName ?? '',
    family_name: user.name?.familyName ?? '',
    display_name: user.displayName ?? '',
    emails: JSON.stringify(emails),
    active: user.active ?? true,
  };
}

export type GroupFields = { displayName: string; externalId: string | null; members: string[] };

/** A Group resource's fields; its members are the directory users' ids, each once. */
export function groupFields(body: unknown): GroupFields {
  const group = parsed(groupInput, GROUP_NAMES, body);
  return {
    displayName: group.displayName,
    externalId: group.externalId ?? null,
    members: [...new Set((group.members ?? []).map((member) => member.value.toLowerCase()))],
  };
}

const meta = (
  resourceType: 'User' | 'Group',
  location: string,
  row: { created_at: StoredTimestamp; updated_at: StoredTimestamp },
) => ({
  resourceType,
  created: isoTimestamp(row.created_at),
  lastModified: isoTimestamp(row.updated_at),
  location,
});

/**
 * A User as SCIM answers one. A name part the directory keeps empty is unassigned (RFC 7643 §2.5), and
 * left out, as is the whole `name` when no part is kept.
 */
export function userResource(row: DirectoryUserRow, base: string) {
  const formatted = `${row.given_name} ${row.family_name}`.trim();
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.external_id !== null && { externalId: row.external_id }),
    userName: row.user_name,
    ...(formatted && {
      name: {
        ...(row.given_name && { givenName: row.given_name }),
        ...(row.family_name && { familyName: row.family_name }),
        formatted,
      },
    }),
    ...(row.display_name && { displayName: row.display_name }),
    emails: JSON.parse(row.emails) as Email[],
    active: Boolean(row.active),
    meta: meta('User', `${base}/Users/${row.id}`, row),
  };
}

export type UserResource = ReturnType<typeof userResource>;

export interface GroupMember {
  id: string;
  user_name: string;
}

export function groupResource(row: DirectoryGroupRow, members: GroupMember[] | undefined, base: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    displayName: row.name,
    ...(row.external_id !== null && { externalId: row.external_id }),
    ...(members && {
      members: members.map((member) => ({
        value: member.id,
        display: member.user_name,
        $ref: `${base}/Users/${member.id}`,
      })),
    }),
    meta: meta('Group', `${base}/Groups/${row.id}`, row),
  };
}
