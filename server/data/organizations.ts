/** Organizations and the caller's memberships in them (interface 4.2, CONTRACT 4). */
import type { SqlEntityManager } from '@mikro-orm/sql';
import { v7 as uuidv7 } from 'uuid';
import type { z } from 'zod';
import type {
  createOrganizationInput,
  membershipOutput,
  Organization as OrganizationView,
} from '../../shared/schemas.ts';
import type { Caller } from '../auth/tokens.ts';
import { notFound } from '../errors.ts';
import { Membership, Organization, User } from './entities.ts';
import { pagedQuery, toPage, type Page, type PageRequest } from './pages.ts';
import { selectRows } from './sql.ts';
import { isoTimestamp, type StoredTimestamp } from './timestamps.ts';

export async function createOrganization(
  em: SqlEntityManager,
  caller: Caller,
  input: z.infer<typeof createOrganizationInput>,
): Promise<z.infer<typeof membershipOutput>> {
  return em.transactional(async (tx) => {
    const creator = await tx.findOne(User, { id: caller.userId }, { fields: ['id'] });
    if (!creator) throw notFound('No user record for this caller: create it with POST /users first');
    const organization = tx.create(Organization, {
      id: uuidv7(),
      name: input.organization_name,
      description: input.organization_description,
      createdBy: creator.id,
    });
    tx.create(Membership, { organization, user: creator.id, role: 'owner' });
    return { organization_id: organization.id, user_id: caller.userId, role: 'owner' as const };
  });
}

interface OrganizationRow {
  id: string;
  name: string;
  description: string;
  created_by: string;
  created_at: StoredTimestamp;
}

/**
 * The organizations the caller belongs to, in any role, oldest first (then by id), one page or
 * all of them; projected from SQL, not hydrated.
 */
export async function listOrganizations(
  em: SqlEntityManager,
  caller: Caller,
  page: PageRequest = {},
): Promise<Page<OrganizationView>> {
  const base = `select o.id, o.name, o.description, o.created_by, o.created_at
    from organization_users m join organizations o on o.id = m.organization_id where m.user_id = ?`;
  const { sql, params } = pagedQuery(em, { sql: base, params: [caller.userId] }, page, {
    createdAt: 'o.created_at',
    id: 'o.id',
  });
  const rows = await selectRows<OrganizationRow>(em, sql, params);
  return toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.id }),
    (row) => ({ ...row, created_at: isoTimestamp(row.created_at) }),
  );
}
