/** POST /organizations: an organization, its creator as its owner, and its first event. */
import { notFound } from './errors.ts';
import { storedNow, uuidV7After, INSERT_EVENT } from './events.ts';
import { text } from './input.ts';
import { assertMayCreate, type Caller } from './tokens.ts';
import { batch, errnoOf, lastBatch, MISSING_PARENT_ROW, transaction, type Scope } from './transactions.ts';

/** The organization, its owner and its first event, then COMMIT. */
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
  try {
    await transaction(undefined, scope, async (connection) => {
      await batch(
        connection,
        scope,
        [
          'start transaction',
          'insert into organizations (id, name, description, created_by, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
          "insert into organization_users (organization_id, user_id, role, created_at, updated_at) values (?, ?, 'owner', ?, ?)",
          INSERT_EVENT,
        ],
        [
          ...[organizationId, name, description, caller.userId, now, now],
          ...[organizationId, caller.userId, now, now],
          ...[uuidV7After(null), organizationId, 'organization.created', caller.userId, caller.userId],
          ...[JSON.stringify({ organization_name: name, organization_description: description }), now],
        ],
      );
      await lastBatch(connection, scope, ['commit'], []);
    });
  } catch (error) {
    // The creator's user row is the foreign key's parent: no row, no user record.
    if (errnoOf(error) === MISSING_PARENT_ROW)
      throw notFound('No user record for this caller: create it with POST /users first');
    throw error;
  }
  return [201, { organization_id: organizationId, user_id: caller.userId, role: 'owner' }];
}
