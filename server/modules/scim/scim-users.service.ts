/**
 * Directory users (behaviour §18): what an identity provider's `/Users` requests do. An active
 * directory user is a member of the organization (at once when a user record has their userName as
 * its e-mail, else when one is made: `activateAwaitingRecord`); deactivating or deleting one removes
 * the membership with its team places. Every change is the organization's (in-organization.ts), so
 * requests an identity provider sends in parallel run one after the other and a repeated create
 * finds the first (409 uniqueness).
 */
import { ERROR_STATUS } from '../../../shared/errors.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { ReadMoved } from '../../platform/database/failures.ts';
import { newId } from '../../platform/database/ids.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';
import { DomainError } from '../../platform/errors.ts';
import {
  appendEvent,
  personActor,
  takeOrganization,
  type OrganizationChange,
} from '../../platform/organization-changes.ts';
import { deprovisionMember, provisionMember } from '../members/members.service.ts';
import { insertTeamMember } from '../teams/teams.service.ts';
import { lockUserWithEmail } from '../users/user-with-email.ts';
import { userCondition } from './filter.ts';
import { pageOf, parameter, type ListQuery } from './paging.ts';
import { applyPatch, patchOperations } from './patch.ts';
import { USER_NAMES, userFields, userResource, type UserResource } from './resources.ts';
import { listResponse } from './schemas.ts';
import { mutability, noSuchResource, uniqueness } from './scim-errors.ts';
import {
  awaitingRecord,
  deleteDirectoryUser,
  directoryDefaults,
  directoryUser,
  directoryUserPage,
  groupsOfUser,
  insertDirectoryUser,
  updateDirectoryUser,
  type DirectoryUser,
  type DirectoryUserFields,
  type DirectoryUserRow,
} from './scim.queries.ts';

/** A SCIM request in the key's organization, with the base URL its resources' locations start with. */
export interface ScimScope {
  org: InOrganization;
  base: string;
}

const taken = (userName: string) => uniqueness(`A directory user with the userName ${userName} exists already`);

/** The last owner cannot be deprovisioned: 409 mutability, as SCIM says it. */
async function deprovision(tx: Tx, change: OrganizationChange, userId: string): Promise<void> {
  try {
    await deprovisionMember(tx, change, userId);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'CONFLICT') throw mutability(error.message);
    throw error;
  }
}

/** Puts a new member in the teams of the directory groups they are in (behaviour §18). */
async function joinGroupsTeams(tx: Tx, change: OrganizationChange, directoryUserId: string, userId: string) {
  for (const team of await groupsOfUser(tx, directoryUserId, userId)) {
    if (team.in_team !== null) continue;
    insertTeamMember(tx, team.id, change.organizationId, userId);
    await appendEvent(tx, change, {
      type: 'team.member_added',
      subjectUserId: userId,
      data: { team_id: team.id, name: team.name, via: 'scim' },
    });
  }
}

/**
 * A record with the directory user's e-mail made by a sign-up after the change's snapshot, seen by
 * the current read that waited for it: the change runs again, and makes them a member (§18).
 */
const recordMade = () => new ReadMoved('A user record with the e-mail was made while the directory read it');

/**
 * The membership a directory user's new state asks for: removed when they are deactivated or their
 * userName changes, made (or adopted) when they are active and a record has that e-mail, whether
 * they never were a member or their membership ended another way (an owner removed them, they
 * left, it expired). Returns the user record they are now a member as, or null.
 *
 * A person may be making their record with that e-mail at the same moment (POST /users), which
 * links the directory users awaiting one only after its own commit (activateAwaitingRecord). The
 * record is read here by a current read holding its place in the e-mail's unique index
 * (lockUserWithEmail): a record inserted before it is waited for and seen, and the change runs
 * again when its snapshot had not seen it; one inserted after it waits for this change to commit,
 * and its sign-up then finds this directory user awaiting it. Either way they become a member.
 */
async function follow(
  tx: Tx,
  change: OrganizationChange,
  before: DirectoryUser | undefined,
  after: Omit<DirectoryUserFields, 'user_id'>,
  defaultRole: () => string,
): Promise<string | null> {
  let userId = before?.member_id ?? null;
  if (userId !== null && (!after.active || before!.user_name_key !== after.user_name_key)) {
    await deprovision(tx, change, userId);
    userId = null;
  }
  if (after.active && userId === null) {
    let recordNow: string | null = null;
    lockUserWithEmail(tx, after.user_name_key, (id) => (recordNow = id));
    userId = (await provisionMember(tx, change, after.user_name_key, defaultRole))?.userId ?? null;
    if (userId === null && recordNow !== null) throw recordMade();
    if (userId !== null && before) await joinGroupsTeams(tx, change, before.id, userId);
  }
  return userId;
}

/**
 * `follow`, for a request that names a userName: another directory user's is 409 uniqueness, and
 * answers before a conflict the membership met (the seat limit, the last owner), since the
 * duplicate is what the request is. The defaults' read goes out with the membership's, in the
 * change's first round trip; a refusal of the caller (401, 403) comes before both, as ever.
 */
async function followUnique(
  tx: Tx,
  change: OrganizationChange,
  before: DirectoryUser | undefined,
  after: Omit<DirectoryUserFields, 'user_id'>,
  defaults: ReturnType<typeof directoryDefaults>,
): Promise<string | null> {
  const assertUnique = async () => {
    const named = (await defaults.read()).userNamedId;
    if (named !== null && named !== after.id) throw taken(after.user_name);
  };
  let userId: string | null;
  try {
    userId = await follow(tx, change, before, after, () => defaults.now().defaultRole);
  } catch (error) {
    if (error instanceof DomainError && ERROR_STATUS[error.code] === 409) await assertUnique();
    throw error;
  }
  await assertUnique();
  return userId;
}

/** The row as it is after the change wrote it, to answer with. */
const written = (
  tx: Tx,
  organizationId: string,
  fields: DirectoryUserFields,
  createdAt?: DirectoryUserRow['created_at'],
): DirectoryUserRow => ({
  ...fields,
  organization_id: organizationId,
  created_at: createdAt ?? tx.timestamp(),
  updated_at: tx.timestamp(),
});

export async function createUser({ org, base }: ScimScope, body: unknown): Promise<UserResource> {
  const fields = userFields(body);
  try {
    return await org.change(async (tx, change) => {
      // One round trip: the defaults go out with the lock, the guard and the membership's reads.
      const defaults = directoryDefaults(tx, org.organizationId, fields.user_name_key);
      const id = newId(tx.now.getTime());
      const userId = await followUnique(tx, change, undefined, { ...fields, id }, defaults);
      const row = { ...fields, id, user_id: userId };
      insertDirectoryUser(tx, org.organizationId, row);
      return userResource(written(tx, org.organizationId, row), base);
    });
  } catch (error) {
    // Defence in depth: the organization's lock already keeps two creations of one userName apart.
    if (org.isUniqueViolation(error)) throw taken(fields.user_name);
    throw error;
  }
}

export async function getUser({ org, base }: ScimScope, id: string): Promise<UserResource> {
  const row = await directoryUser(org.reads, org.organizationId, id.toLowerCase());
  if (!row) throw noSuchResource('User', id);
  return userResource(row, base);
}

export async function listUsers({ org, base }: ScimScope, query: ListQuery) {
  const filter = parameter(query, 'filter');
  const condition = filter === undefined ? undefined : userCondition(filter);
  const { startIndex, offset, count } = pageOf(query);
  const { rows, total } = await directoryUserPage(org.reads, org.organizationId, condition, offset, count);
  return listResponse(
    rows.map((row) => userResource(row, base)),
    total,
    startIndex,
  );
}

/** Whether `after` is the row as it is: every field the directory keeps the same. */
const unchanged = (before: DirectoryUserRow, after: DirectoryUserFields): boolean =>
  (Object.keys(after) as Array<keyof DirectoryUserFields>).every((field) =>
    field === 'active' ? Boolean(before.active) === after.active : before[field] === after[field],
  );

/**
 * Replaces a directory user with what `fieldsOf` makes of it (PUT: the body; PATCH: the patched
 * resource). The row, and with it `meta.lastModified` (RFC 7643 §3.1), is written only when what it
 * holds changes; the membership follows the user's state either way.
 */
async function changeUser(
  { org, base }: ScimScope,
  id: string,
  fieldsOf: (row: DirectoryUserRow) => ReturnType<typeof userFields>,
): Promise<UserResource> {
  let userName = '';
  try {
    return await org.change(async (tx, change) => {
      const before = await directoryUser(tx, org.organizationId, id.toLowerCase());
      if (!before) throw noSuchResource('User', id);
      const fields = fieldsOf(before);
      userName = fields.user_name;
      const defaults = directoryDefaults(tx, org.organizationId, fields.user_name_key);
      const userId = await followUnique(tx, change, before, { ...fields, id: before.id }, defaults);
      const row = { ...fields, id: before.id, user_id: userId };
      if (unchanged(before, row)) return userResource(before, base);
      updateDirectoryUser(tx, row);
      return userResource(written(tx, org.organizationId, row, before.created_at), base);
    });
  } catch (error) {
    if (org.isUniqueViolation(error)) throw taken(userName);
    throw error;
  }
}

export const replaceUser = (scope: ScimScope, id: string, body: unknown) =>
  changeUser(scope, id, () => userFields(body));

export function patchUser(scope: ScimScope, id: string, body: unknown): Promise<UserResource> {
  const operations = patchOperations(body, USER_NAMES);
  return changeUser(scope, id, (row) => userFields(applyPatch(userResource(row, scope.base), operations)));
}

export async function deleteUser({ org }: ScimScope, id: string): Promise<void> {
  await org.change(async (tx, change) => {
    const row = await directoryUser(tx, org.organizationId, id.toLowerCase());
    if (!row) throw noSuchResource('User', id);
    if (row.member_id !== null) await deprovision(tx, change, row.member_id);
    deleteDirectoryUser(tx, row.id);
  });
}

/**
 * A person with a verified e-mail made their record (behaviour §18): each organization whose
 * directory has them active, and awaited them, makes them a member, the change named after them.
 * An organization that cannot (its seat limit) leaves them waiting; the record is made either way.
 */
export async function activateAwaitingRecord(db: Db, userId: string, email: string): Promise<void> {
  for (const entry of await awaitingRecord(db, email.toLowerCase())) {
    await db
      .transaction(
        async (tx) => {
          const change = takeOrganization(
            tx,
            entry.organization_id,
            personActor(userId),
            () => new DomainError('NOT_FOUND', 'The organization is gone'),
          );
          const before = await directoryUser(tx, entry.organization_id, entry.id);
          if (!before || !before.active || before.user_id !== null) return;
          const defaults = directoryDefaults(tx, entry.organization_id, before.user_name_key);
          const linked = await follow(
            tx,
            change,
            before,
            { ...before, active: true },
            () => defaults.now().defaultRole,
          );
          if (linked !== null) updateDirectoryUser(tx, { ...before, active: true, user_id: linked });
        },
        { organizationId: entry.organization_id },
      )
      .catch((error: unknown) => {
        // A refusal (the seat limit) leaves them waiting; the record is made whatever it says.
        if (!(error instanceof DomainError)) throw error;
      });
  }
}
