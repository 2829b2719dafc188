/**
 * Memberships of users in organizations (interface 4.3, CONTRACT 3.2 and 4). Every change runs in
 * one transaction that first locks the organization's row, so concurrent changes to one
 * organization are serialised and the last-owner rule holds under races. The lock must be the
 * transaction's first statement: on MariaDB's REPEATABLE READ a plain read before it would fix the
 * snapshot early and let a stale owner count through.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
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
import { assertCanChange, assertCanManageMembers, assertKeepsAnOwner, notInOrganization } from './permissions.ts';
import { pagedQuery, toPage, type Page, type PageRequest } from './pages.ts';
import { forUpdate, runStatement, selectRow, selectRows, storedDate } from './sql.ts';
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
  const locked = await selectRow(tx, `select id from organizations where id = ?${forUpdate(tx)}`, [
    actor.organizationId,
  ]);
  if (!locked) throw notInOrganization();
  const role = await roleInOrganization(tx, actor.organizationId, actor.userId);
  assertCanManageMembers(role);
  return role;
}

async function targetRole(tx: SqlEntityManager, actor: OrganizationActor, userId: string): Promise<Role> {
  const role = await roleInOrganization(tx, actor.organizationId, userId);
  if (!role) throw notAMember();
  return role;
}

/** Owners left, counted only where the change could take away the last one. */
async function ownersLeft(tx: SqlEntityManager, organizationId: string, targetRole: Role): Promise<number> {
  if (targetRole !== 'owner') return Number.POSITIVE_INFINITY;
  const row = await selectRow<{ owners: number | string }>(
    tx,
    "select count(*) as owners from organization_users where organization_id = ? and role = 'owner'",
    [organizationId],
  );
  return Number(row?.owners ?? 0);
}

const alreadyMember = () => conflict('The user is already a member of this organization');

/*
 * The three changes below run as plain SQL inside MikroORM's transaction: through entities and the
 * unit of work each one cost several times the database's own time (see sql.ts).
 */

export async function addMember(
  em: SqlEntityManager,
  actor: OrganizationActor,
  input: z.infer<typeof addMemberInput>,
): Promise<z.infer<typeof membershipOutput>> {
  try {
    return await em.transactional(async (tx) => {
      const actorRole = await lockForManager(tx, actor);
      assertCanChange(actorRole, undefined, input.role);
      const user = await selectRow<{ id: string; role: Role | null }>(
        tx,
        `select u.id, m.role from users u
         left join organization_users m on m.user_id = u.id and m.organization_id = ?
         where u.email = ?`,
        [actor.organizationId, input.email],
      );
      if (!user) throw notFound('No user has this e-mail address');
      if (user.role) throw alreadyMember();
      const now = storedDate(tx, new Date());
      await runStatement(
        tx,
        'insert into organization_users (organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, ?, ?)',
        [actor.organizationId, user.id, input.role, now, now],
      );
      return { organization_id: actor.organizationId, user_id: user.id, role: input.role };
    });
  } catch (error) {
    // Two adds of one user raced past the check above; the primary key decides.
    if (error instanceof UniqueConstraintViolationException) throw alreadyMember();
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
    const currentRole = await targetRole(tx, actor, input.user_id);
    assertCanChange(actorRole, currentRole, input.role);
    assertKeepsAnOwner(currentRole, input.role, await ownersLeft(tx, actor.organizationId, currentRole));
    await runStatement(
      tx,
      'update organization_users set role = ?, updated_at = ? where organization_id = ? and user_id = ?',
      [input.role, storedDate(tx, new Date()), actor.organizationId, input.user_id],
    );
  });
}

export async function removeMember(
  em: SqlEntityManager,
  actor: OrganizationActor,
  input: z.infer<typeof removeMemberInput>,
): Promise<void> {
  await em.transactional(async (tx) => {
    const actorRole = await lockForManager(tx, actor);
    const currentRole = await targetRole(tx, actor, input.user_id);
    assertCanChange(actorRole, currentRole, undefined);
    assertKeepsAnOwner(currentRole, undefined, await ownersLeft(tx, actor.organizationId, currentRole));
    await runStatement(tx, 'delete from organization_users where organization_id = ? and user_id = ?', [
      actor.organizationId,
      input.user_id,
    ]);
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

/** Member rows projected straight from SQL (`m` the membership, `u` its user): never hydrated. */
const MEMBER_FIELDS = 'u.id as user_id, u.first_name, u.last_name, u.email, m.role, m.created_at, m.updated_at';
const MEMBERS_OF_ORGANIZATION = `select ${MEMBER_FIELDS}
  from organization_users m join users u on u.id = m.user_id where m.organization_id = ?`;

/**
 * One member, read for an actor whose membership is checked by the same query (CONTRACT 3.2: any
 * member may read): no row means the actor is not a member (403), a row without a member means
 * the target is not one (404).
 */
export async function getMember(em: SqlEntityManager, actor: OrganizationActor, userId: string): Promise<Member> {
  const row = await selectRow<Partial<MemberRow>>(
    em,
    `select ${MEMBER_FIELDS}
     from organization_users actor
     left join organization_users m on m.organization_id = actor.organization_id and m.user_id = ?
     left join users u on u.id = m.user_id
     where actor.organization_id = ? and actor.user_id = ?`,
    [userId, actor.organizationId, actor.userId],
  );
  if (!row) throw notInOrganization();
  if (!row.user_id) throw notAMember();
  const member = row as MemberRow;
  return {
    organization_id: actor.organizationId,
    user_id: member.user_id,
    role: member.role,
    created_at: isoTimestamp(member.created_at),
    updated_at: isoTimestamp(member.updated_at),
    first_name: member.first_name,
    last_name: member.last_name,
    email: member.email,
  };
}

/** Members ordered by membership `created_at`, then `user_id` (CONTRACT 4): one page or all of them. */
export async function listMembers(
  em: SqlEntityManager,
  organizationId: string,
  page: PageRequest = {},
): Promise<Page<MemberListItem>> {
  const { sql, params } = pagedQuery(em, { sql: MEMBERS_OF_ORGANIZATION, params: [organizationId] }, page, {
    createdAt: 'm.created_at',
    id: 'm.user_id',
  });
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
