/**
 * An organization's roles (behaviour §11): the built-in and instance roles of the catalogue, which
 * every organization has and none may change, and the organization's own, rows of
 * `organization_roles`. Every change takes the organization first (organization-changes.ts), like
 * every membership and invitation change: giving a role (assertMayGive) and deleting it run one
 * after the other, so no member is ever left holding a role that no longer exists.
 */
import type { z } from 'zod';
import type { EventData } from '../../../shared/events.ts';
import type { Role } from '../../../shared/fields.ts';
import {
  MAX_ORGANIZATION_ROLES,
  type createRoleInput,
  type RoleView,
  type updateRoleInput,
} from '../../../shared/roles.ts';
import {
  actorMembership,
  assertHoldsAll,
  assertMay,
  assertMayAndGetHeld,
  assertMember,
  NONE,
  notInOrganization,
  nowFor,
  unexpired,
  type ClockedReader,
  type OrganizationActor,
} from '../../platform/access.ts';
import { badRequest, conflict, notFound } from '../../platform/errors.ts';
import { sameList } from '../../platform/same-list.ts';
import { appendEvent, changeOrganization, organizationWithActor } from '../../platform/organization-changes.ts';
import type { RoleDefinition } from '../../platform/role-catalogue.ts';
import type { DbTimestamp } from '../../platform/database/schema.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import type { Db, Tx } from '../../platform/database/transaction.ts';

/** An organization role's row as the changes read it. */
interface StoredRole {
  name: string;
  description: string;
  /** JSON array of permission names, stored sorted. */
  permissions: string;
  created_at: DbTimestamp;
  updated_at: DbTimestamp;
}

const fixedRoleView = ({ role, description, permissions, kind }: RoleDefinition): RoleView => ({
  role,
  description,
  permissions: [...permissions].sort(),
  kind,
  created_at: null,
  updated_at: null,
});

const storedRoleView = (row: StoredRole): RoleView => ({
  role: row.name,
  description: row.description,
  permissions: (JSON.parse(row.permissions) as string[]).sort(),
  kind: 'organization',
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

const nameInUse = (role: string) => conflict(`The organization has a role named ${role} already`);

/**
 * Queues the copy of a role's permissions into the rows of the organization's teams that give it
 * (entities.ts, TeamRole), in the change that sets them: a team may name a role that was an
 * instance role when it was given and is the organization's own now.
 */
function copyToTeams(tx: Tx, organizationId: string, role: Role, permissions: string): void {
  tx.later(
    tx.sql
      .updateTable('team_roles')
      .set({ permissions })
      .where('role', '=', role)
      .where('team_id', 'in', (eb) =>
        eb.selectFrom('teams').select('id').where('organization_id', '=', organizationId),
      ),
  );
}

/** Built-in and instance roles belong to the deployment: no organization changes or deletes them. */
function assertOrganizationsOwn(actor: OrganizationActor, role: string): void {
  const fixed = actor.roles.fixedRoles.get(role);
  if (fixed) {
    const what = fixed.kind === 'built_in' ? 'a built-in role' : "an instance role (the service's roles file)";
    throw conflict(`${role} is ${what}; only the organization's own roles can be changed or deleted`);
  }
}

/** A permission no role may hold, or only owners may (behaviour §11): 400. */
function assertGrantable(actor: OrganizationActor, permissions: readonly string[]): void {
  const problem = actor.roles.problemWithPermissions(permissions);
  if (problem) throw badRequest(problem, [{ field: 'permissions', problem }]);
}

/**
 * Every role usable in the organization: the built-in ones, the instance ones (in the roles file's
 * order), then the organization's own by name. One query reads the actor's membership with the
 * organization's roles, which hold the actor's own role's permissions when it is one of them.
 */
export async function listRoles(reader: ClockedReader, actor: OrganizationActor): Promise<RoleView[]> {
  const rows = await reader.all(
    actorMembership(reader.sql, actor.organizationId, actor.userId, nowFor(reader))
      .leftJoin('organization_roles as r', 'r.organization_id', 'a.organization_id')
      .select(['a.role as actor_role', 'r.name', 'r.description', 'r.permissions', 'r.created_at', 'r.updated_at'])
      .orderBy('r.name'),
  );
  const actorRole = rows[0]?.actor_role;
  assertMember(actorRole);
  const own = rows.filter((row): row is typeof row & StoredRole => row.name !== null);
  const actorRoleRow = own.find((row) => row.name === actorRole);
  const roleHolds = actor.roles.permissionsOf(actorRole, actorRoleRow?.permissions) ?? NONE;
  // The role's permissions first; the actor's teams are read only when it lacks roles:read.
  if (!roleHolds.has(actor.permission)) await assertMay(reader, actor, actorRole);
  // A role of its own that a roles file declared later as an instance role no longer counts.
  const counted = own.filter((row) => !actor.roles.fixedRoles.has(row.name));
  return [...[...actor.roles.fixedRoles.values()].map(fixedRoleView), ...counted.map(storedRoleView)];
}

/**
 * Creates one of the organization's own roles. Its permissions must be known and not the owners'
 * own (400), all held by the actor (no one grants what they do not hold, 403); its name must be
 * free (409), and the organization may have at most MAX_ORGANIZATION_ROLES of its own (409).
 */
export async function createRole(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof createRoleInput>,
): Promise<RoleView> {
  try {
    return await changeOrganization(db, actor, async (tx, change) => {
      const row = await tx.first(
        organizationWithActor(tx, actor)
          .leftJoin('organization_roles as r', (join) =>
            join.onRef('r.organization_id', '=', 'o.id').on('r.name', '=', input.role),
          )
          .select((eb) => [
            'a.role as actor_role',
            'r.name as existing',
            eb
              .selectFrom('organization_roles as c')
              .select((count) => count.fn.countAll<number | string>().as('roles'))
              .whereRef('c.organization_id', '=', 'o.id')
              .as('role_count'),
          ]),
      );
      if (!row) throw notInOrganization();
      const held = await assertMayAndGetHeld(tx, actor, row.actor_role);
      assertGrantable(actor, input.permissions);
      assertHoldsAll(held, input.permissions, `create the role ${input.role}`);
      if (actor.roles.fixedRoles.has(input.role) || row.existing !== null) throw nameInUse(input.role);
      if (Number(row.role_count) >= MAX_ORGANIZATION_ROLES) {
        throw conflict(
          `The organization has ${MAX_ORGANIZATION_ROLES} roles of its own, the most it may have: delete one first`,
        );
      }
      const permissions = [...input.permissions].sort();
      const now = tx.timestamp();
      tx.later(
        tx.sql.insertInto('organization_roles').values({
          organization_id: actor.organizationId,
          name: input.role,
          description: input.description,
          permissions: JSON.stringify(permissions),
          created_at: now,
          updated_at: now,
        }),
      );
      copyToTeams(tx, actor.organizationId, input.role, JSON.stringify(permissions));
      await appendEvent(tx, change, {
        type: 'role.created',
        actorUserId: actor.userId,
        subjectUserId: null,
        data: { role: input.role, description: input.description, permissions },
      });
      const at = tx.now.toISOString();
      return {
        role: input.role,
        description: input.description,
        permissions,
        kind: 'organization',
        created_at: at,
        updated_at: at,
      };
    });
  } catch (error) {
    // Defence in depth: the organization's lock already keeps two creations of one name apart.
    if (db.isUniqueViolation(error)) throw nameInUse(input.role);
    throw error;
  }
}

/**
 * The actor's role and the organization's own role `role` (null columns: it has none), read under
 * the lock for a change; the actor must hold the procedure's permission. Returns what the actor
 * holds, with the row.
 */
async function readForChange(tx: Tx, actor: OrganizationActor, role: Role) {
  const row = await tx.first(
    organizationWithActor(tx, actor)
      .leftJoin('organization_roles as r', (join) =>
        join.onRef('r.organization_id', '=', 'o.id').on('r.name', '=', role),
      )
      .select(['a.role as actor_role', 'r.name', 'r.description', 'r.permissions', 'r.created_at', 'r.updated_at']),
  );
  if (!row) throw notInOrganization();
  const held = await assertMayAndGetHeld(tx, actor, row.actor_role);
  return { held, row };
}

/** The row of one of the organization's own roles: 409 for a built-in or instance role, 404 for none. */
function ownRole<Row extends { name: string | null }>(actor: OrganizationActor, role: Role, row: Row) {
  assertOrganizationsOwn(actor, role);
  if (row.name === null) throw notFound(`The organization has no role ${role}`);
  return row as Row & StoredRole;
}

type RoleChanges = EventData['role.updated']['changes'];

/**
 * Changes the description and/or the permissions of one of the organization's own roles. The
 * actor must hold every permission the role will hold, so no one makes a role more powerful than
 * themselves. A request that changes nothing records no event and leaves `updated_at` as it was.
 */
export async function updateRole(
  db: Db,
  actor: OrganizationActor,
  input: z.infer<typeof updateRoleInput>,
): Promise<RoleView> {
  return changeOrganization(db, actor, async (tx, change) => {
    const { held, row } = await readForChange(tx, actor, input.role);
    if (input.permissions) assertGrantable(actor, input.permissions);
    const before = storedRoleView(ownRole(actor, input.role, row));
    const permissions = input.permissions ? [...input.permissions].sort() : before.permissions;
    assertHoldsAll(held, permissions, `give the role ${input.role} these permissions`);
    const changes: RoleChanges = {};
    if (input.description !== undefined && input.description !== before.description) {
      changes.description = { from: before.description, to: input.description };
    }
    if (!sameList(permissions, before.permissions)) changes.permissions = { from: before.permissions, to: permissions };
    if (!changes.description && !changes.permissions) return before;
    tx.later(
      tx.sql
        .updateTable('organization_roles')
        .set({
          description: changes.description?.to,
          permissions: changes.permissions && JSON.stringify(permissions),
          updated_at: tx.timestamp(),
        })
        .where('organization_id', '=', actor.organizationId)
        .where('name', '=', input.role),
    );
    if (changes.permissions) copyToTeams(tx, actor.organizationId, input.role, JSON.stringify(permissions));
    await appendEvent(tx, change, {
      type: 'role.updated',
      actorUserId: actor.userId,
      subjectUserId: null,
      data: { role: input.role, changes },
    });
    return {
      ...before,
      description: changes.description?.to ?? before.description,
      permissions,
      updated_at: tx.now.toISOString(),
    };
  });
}

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

/**
 * What still holds `role` in the organization, in words, or undefined when nothing does: its
 * memberships and its pending invitations, in either case only those that have not expired (an
 * expired membership counts as none, and an expired invitation can no longer be accepted, so
 * neither can bring the role back), and the teams that give it. Read under the organization's
 * lock, which every assignment of a role takes too.
 */
async function roleInUse(tx: Tx, organizationId: string, role: Role): Promise<string | undefined> {
  const row = await tx.first(
    tx.sql
      .selectFrom('organizations as o')
      .where('o.id', '=', organizationId)
      .select((eb) => [
        eb
          .selectFrom('organization_users as m')
          .select((count) => count.fn.countAll<number | string>().as('members'))
          .whereRef('m.organization_id', '=', 'o.id')
          .where('m.role', '=', role)
          .where(unexpired('m', tx.timestamp()))
          .as('members'),
        eb
          .selectFrom('invitations as i')
          .select((count) => count.fn.countAll<number | string>().as('invitations'))
          .whereRef('i.organization_id', '=', 'o.id')
          .where('i.role', '=', role)
          .where('i.status', '=', 'pending')
          .where('i.expires_at', '>', tx.timestamp())
          .as('invitations'),
        eb
          .selectFrom('teams as t')
          .innerJoin('team_roles as tr', 'tr.team_id', 't.id')
          .select((count) => count.fn.countAll<number | string>().as('teams'))
          .whereRef('t.organization_id', '=', 'o.id')
          .where('tr.role', '=', role)
          .as('teams'),
      ]),
  );
  const members = Number(row?.members ?? 0);
  const invitations = Number(row?.invitations ?? 0);
  const teams = Number(row?.teams ?? 0);
  const holders = [
    ...(members > 0 ? [plural(members, 'member')] : []),
    ...(invitations > 0 ? [plural(invitations, 'pending invitation')] : []),
    ...(teams > 0 ? [plural(teams, 'team')] : []),
  ];
  return holders.length > 0 ? holders.join(', ') : undefined;
}

/**
 * Deletes one of the organization's own roles, unless something still holds it (409). Deleting
 * takes power away, so the actor need not hold the role's permissions.
 */
export async function removeRole(db: Db, actor: OrganizationActor, role: Role): Promise<{ message: string }> {
  return changeOrganization(db, actor, async (tx, change) => {
    const { row } = await readForChange(tx, actor, role);
    ownRole(actor, role, row);
    const holders = await roleInUse(tx, actor.organizationId, role);
    if (holders) {
      throw conflict(`The role ${role} is in use by ${holders}: it can be deleted once nothing holds it`);
    }
    tx.later(
      tx.sql
        .deleteFrom('organization_roles')
        .where('organization_id', '=', actor.organizationId)
        .where('name', '=', role),
    );
    await appendEvent(tx, change, {
      type: 'role.deleted',
      actorUserId: actor.userId,
      subjectUserId: null,
      data: { role },
    });
    return { message: 'Role deleted' };
  });
}
