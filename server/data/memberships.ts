/**
 * Memberships of users in organizations (interface 4.3, CONTRACT 3.2 and 4). Every change runs in
 * one transaction that first locks the organization's row, so concurrent changes to one
 * organization are serialised and the last-owner rule holds under races. The lock must be the
 * transaction's first statement: on MariaDB's REPEATABLE READ a plain read before it would fix the
 * snapshot early and let a stale owner count through.
 */
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { z } from 'zod';
import type {
  addMemberInput,
  changeRoleInput,
  Member,
  MemberListItem,
  membershipOutput,
  removeMemberInput,
  Role,
} from '../../shared/schemas.ts';
import { conflict, notFound } from '../errors.ts';
import { Membership, Organization, User } from './entities.ts';
import { assertCanChange, assertCanManageMembers, assertKeepsAnOwner, notInOrganization } from './permissions.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from './pages.ts';
import { selectRow, selectRows, storedDate } from './sql.ts';
import { isoTimestamp, listTimestamp, type StoredTimestamp } from './timestamps.ts';

/** The caller acting on an organization named by the `organization_id` header. */
export interface OrganizationActor {
  userId: string;
  organizationId: string;
}

const notAMember = () => notFound('The user is not a member of this organization');

/** The caller's role in an organization, or undefined when not a member (or no such organization). */
export async function roleInOrganization(
  em: SqlEntityManager,
  organizationId: string,
  userId: string,
): Promise<Role | undefined> {
  const row = await selectRow<{ role: Role }>(
    em,
    'select role from organization_users where organization_id = ? and user_id = ?',
    [organizationId, userId],
  );
  return row?.role;
}

/**
 * Locks the organization row and returns the actor's role as it stands under the lock, refusing
 * actors who may not manage members. Runs first in every membership-changing transaction.
 */
async function lockForManager(tx: SqlEntityManager, actor: OrganizationActor): Promise<Role> {
  const locked = await tx
    .createQueryBuilder(Organization)
    .select('id')
    .where({ id: actor.organizationId })
    .setLockMode(LockMode.PESSIMISTIC_WRITE)
    .execute('get', false);
  if (!locked) throw notInOrganization();
  const role = await roleInOrganization(tx, actor.organizationId, actor.userId);
  assertCanManageMembers(role);
  return role;
}

async function targetMembership(tx: SqlEntityManager, actor: OrganizationActor, userId: string) {
  const membership = await tx.findOne(Membership, { organization: actor.organizationId, user: userId });
  if (!membership) throw notAMember();
  return membership;
}

const countOwners = (tx: SqlEntityManager, organizationId: string) =>
  tx.count(Membership, { organization: organizationId, role: 'owner' });

export async function addMember(
  em: SqlEntityManager,
  actor: OrganizationActor,
  input: z.infer<typeof addMemberInput>,
): Promise<z.infer<typeof membershipOutput>> {
  try {
    return await em.transactional(async (tx) => {
      const actorRole = await lockForManager(tx, actor);
      assertCanChange(actorRole, undefined, input.role);
      const user = await tx.findOne(User, { email: input.email }, { fields: ['id'] });
      if (!user) throw notFound('No user has this e-mail address');
      if (await tx.findOne(Membership, { organization: actor.organizationId, user: user.id }, { fields: ['role'] })) {
        throw conflict('The user is already a member of this organization');
      }
      tx.create(Membership, { organization: actor.organizationId, user: user.id, role: input.role });
      return { organization_id: actor.organizationId, user_id: user.id, role: input.role };
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw conflict('The user is already a member of this organization');
    }
    throw error;
  }
}

export async function changeRole(
  em: SqlEntityManager,
  actor: OrganizationActor,
  input: z.infer<typeof changeRoleInput>,
): Promise<void> {
  await em.transactional(async (tx) => {
    const actorRole = await lockForManager(tx, actor);
    const membership = await targetMembership(tx, actor, input.user_id);
    assertCanChange(actorRole, membership.role, input.role);
    assertKeepsAnOwner(membership.role, input.role, await countOwners(tx, actor.organizationId));
    membership.role = input.role;
    membership.updatedAt = new Date();
  });
}

export async function removeMember(
  em: SqlEntityManager,
  actor: OrganizationActor,
  input: z.infer<typeof removeMemberInput>,
): Promise<void> {
  await em.transactional(async (tx) => {
    const actorRole = await lockForManager(tx, actor);
    const membership = await targetMembership(tx, actor, input.user_id);
    assertCanChange(actorRole, membership.role, undefined);
    assertKeepsAnOwner(membership.role, undefined, await countOwners(tx, actor.organizationId));
    tx.remove(membership);
  });
}

interface MemberRow {
  user_id: string;
  first_name: string;
  last_name: string;
  email: string;
  role: Role;
  created_at: StoredTimestamp;
  updated_at: StoredTimestamp;
}

/** Member rows projected straight from SQL: a list of thousands never hydrates entities. */
const MEMBER_COLUMNS = `select u.id as user_id, u.first_name, u.last_name, u.email, m.role, m.created_at, m.updated_at
  from organization_users m join users u on u.id = m.user_id where m.organization_id = ?`;

export async function getMember(em: SqlEntityManager, organizationId: string, userId: string): Promise<Member> {
  const row = await selectRow<MemberRow>(em, `${MEMBER_COLUMNS} and m.user_id = ?`, [organizationId, userId]);
  if (!row) throw notAMember();
  return {
    organization_id: organizationId,
    user_id: row.user_id,
    role: row.role,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
  };
}

/** Members ordered by membership `created_at`, then `user_id` (CONTRACT 4): one page or all of them. */
export async function listMembers(
  em: SqlEntityManager,
  organizationId: string,
  page: PageRequest = {},
): Promise<Page<MemberListItem>> {
  const after = decodeCursor(page.cursor);
  const params: unknown[] = [organizationId];
  let sql = MEMBER_COLUMNS;
  if (after) {
    const createdAt = storedDate(em, after.createdAt);
    sql += ' and (m.created_at > ? or (m.created_at = ? and m.user_id > ?))';
    params.push(createdAt, createdAt, after.id);
  }
  sql += ' order by m.created_at, m.user_id';
  if (page.limit !== undefined) {
    sql += ' limit ?';
    params.push(page.limit + 1);
  }
  const rows = await selectRows<MemberRow>(em, sql, params);
  return toPage(
    rows,
    page.limit,
    (row) => ({ createdAt: row.created_at, id: row.user_id }),
    (row) => ({
      user_id: row.user_id,
      first_name: row.first_name,
      last_name: row.last_name,
      role: row.role,
      email: row.email,
      created_at: listTimestamp(row.created_at),
    }),
  );
}
