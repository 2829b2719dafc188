/** Organizations and the caller's memberships in them (interface 4.2, CONTRACT 4). */
import { v7 as uuidv7 } from 'uuid';
import type { z } from 'zod';
import type {
  createOrganizationInput,
  membershipOutput,
  Organization as OrganizationView,
} from '../../shared/schemas.ts';
import type { Caller } from '../auth/tokens.ts';
import { notFound } from '../errors.ts';
import { appendEvent, newOrganization } from './organization-changes.ts';
import { paged, toPage, type Page, type PageRequest } from './pages.ts';
import { isoTimestamp } from './timestamps.ts';
import type { Db } from './transaction.ts';

const noUserRecord = () => notFound('No user record for this caller: create it with POST /users first');

/** The organization, its owner's membership and its first event, in one transaction. */
export async function createOrganization(
  db: Db,
  caller: Caller,
  input: z.infer<typeof createOrganizationInput>,
): Promise<z.infer<typeof membershipOutput>> {
  try {
    return await db.transaction(async (tx) => {
      const organizationId = uuidv7();
      // No user record: the foreign key on created_by refuses the row (no read needed first).
      await tx.sql
        .insertInto('organizations')
        .values({
          id: organizationId,
          name: input.organization_name,
          description: input.organization_description,
          created_by: caller.userId,
          created_at: tx.timestamp(),
          updated_at: tx.timestamp(),
          version: 0,
        })
        .execute();
      await tx.sql
        .insertInto('organization_users')
        .values({
          organization_id: organizationId,
          user_id: caller.userId,
          role: 'owner',
          created_at: tx.timestamp(),
          updated_at: tx.timestamp(),
        })
        .execute();
      await appendEvent(tx, newOrganization(organizationId), {
        type: 'organization.created',
        actorUserId: caller.userId,
        subjectUserId: caller.userId,
        data: { organization_name: input.organization_name, organization_description: input.organization_description },
      });
      return { organization_id: organizationId, user_id: caller.userId, role: 'owner' as const };
    });
  } catch (error) {
    if (db.isForeignKeyViolation(error)) throw noUserRecord();
    throw error;
  }
}

/**
 * The organizations the caller belongs to, in any role, oldest first (then by id), one page or
 * all of them; projected from SQL, not hydrated.
 */
export async function listOrganizations(
  db: Db,
  caller: Caller,
  page: PageRequest = {},
): Promise<Page<OrganizationView>> {
  const query = db.sql
    .selectFrom('organization_users as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.name', 'o.description', 'o.created_by', 'o.created_at'])
    .where('m.user_id', '=', caller.userId);
  const rows = await paged(query, db.dialect, page, { createdAt: 'o.created_at', id: 'o.id' }).execute();
  return toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.id }),
    (row) => ({ ...row, created_at: isoTimestamp(row.created_at) }),
  );
}
