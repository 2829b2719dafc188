/** POST /organizations: an organization, its creator as its owner, and its first event. */
import type { RowDataPacket } from 'mysql2/promise';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstFreeSlug, slugOfName } from '../../server/modules/organizations/slug.ts';
import { pauseBefore } from '../../server/platform/database/backoff.ts';
import { notFound, unavailable } from './errors.ts';
import { storedNow, uuidV7After, INSERT_EVENT } from './events.ts';
import { text } from './input.ts';
import { INDEX_MEMBER_WORDS, MEMBER_COUNT_CHANGE } from './memberships.ts';
import { assertMayCreate, type Caller } from './tokens.ts';
import {
  batch,
  DUPLICATE_KEY,
  errnoOf,
  lastBatch,
  MISSING_PARENT_ROW,
  read,
  transaction,
  type Scope,
} from './transactions.ts';
import { organizationWords, wordRows } from './words.ts';

/** Attempts at a derived slug that others took meanwhile, as the service makes them. */
const SLUG_ATTEMPTS = 50;

/** The first free slug the name gives (behaviour §15), as the service derives it. */
async function freeSlug(name: string, scope: Scope): Promise<string> {
  const base = slugOfName(name);
  const taken = await read<RowDataPacket[]>(scope, {
    sql: 'select slug from organizations where slug = ? or slug like ?',
    values: [base, `${base}-%`],
  });
  return firstFreeSlug(base, new Set(taken.map((row) => row.slug as string)));
}

/**
 * The organization with its search words, its owner (the member count, their search words) and its
 * first event, then COMMIT; a slug another creation took meanwhile is derived again, after a pause
 * with jitter growing with each attempt, as the service's transactions retry (so that creations of
 * one name racing each other do not collide again in step).
 */
export async function createOrganization(
  caller: Caller,
  body: Record<string, unknown>,
  scope: Scope,
): Promise<[number, unknown]> {
  assertMayCreate(caller);
  const name = text(body.organization_name, 'organization_name', 1, 100, true);
  const description = text(body.organization_description, 'organization_description', 0, 1000);
  const organizationId = uuidV7After(null);
  const now = storedNow();
  for (let attempt = 1; ; attempt++) {
    const slug = await freeSlug(name, scope);
    try {
      await insertOrganization(caller, { organizationId, name, description, slug, now }, scope);
      return [201, { organization_id: organizationId, user_id: caller.userId, role: 'owner' }];
    } catch (error) {
      // The creator's user row is the foreign key's parent: no row, no user record.
      if (errnoOf(error) === MISSING_PARENT_ROW)
        throw notFound('No user record for this caller: create it with POST /users first');
      if (errnoOf(error) !== DUPLICATE_KEY) throw error;
      if (attempt >= SLUG_ATTEMPTS)
        throw unavailable('Too many organizations of this name are being created at once, try again');
      await sleep(pauseBefore(attempt));
    }
  }
}

async function insertOrganization(
  caller: Caller,
  {
    organizationId,
    name,
    description,
    slug,
    now,
  }: { organizationId: string; name: string; description: string; slug: string; now: string },
  scope: Scope,
): Promise<void> {
  const words = wordRows('organization_words (organization_id, word)', organizationId, organizationWords(name, slug));
  await transaction(undefined, scope, async (connection) => {
    await batch(
      connection,
      scope,
      [
        'start transaction',
        'insert into organizations (id, name, slug, description, created_by, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)',
        words.sql,
        "insert into organization_users (organization_id, user_id, role, created_at, updated_at) values (?, ?, 'owner', ?, ?)",
        MEMBER_COUNT_CHANGE,
        INDEX_MEMBER_WORDS,
        INSERT_EVENT,
      ],
      [
        ...[organizationId, name, slug, description, caller.userId, now, now],
        ...words.values,
        ...[organizationId, caller.userId, now, now],
        ...[1, organizationId],
        ...[organizationId, caller.userId],
        ...[uuidV7After(null), organizationId, 'organization.created', caller.userId, caller.userId],
        ...[JSON.stringify({ organization_name: name, organization_description: description }), now],
      ],
    );
    await lastBatch(connection, scope, ['commit'], []);
  });
}
