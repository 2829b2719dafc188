/**
 * The statements of an organization's own roles (behaviour §11), rows of `organization_roles`:
 * each builds, queues or runs SQL and returns rows; none decides anything or throws. The rules are
 * roles.service.ts's.
 */
import type { Role } from '../../../shared/fields.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { DbTimestamp } from '../../platform/database/schema.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

/** An organization role's row. */
export interface StoredRole {
  name: string;
  description: string;
  /** JSON array of permission names, stored sorted. */
  permissions: string;
  created_at: DbTimestamp;
  updated_at: DbTimestamp;
}

const ownRoles = prepare((sql, organizationId: string) =>
  sql
    .selectFrom('organization_roles')
    .select(['name', 'description', 'permissions', 'created_at', 'updated_at'])
    .where('organization_id', '=', organizationId)
    .orderBy('name'),
);

/** The organization's own roles, by name. */
export const organizationRoleRows = (reader: Reader, organizationId: string): Promise<StoredRole[]> =>
  reader.all(ownRoles(reader.sql, organizationId));

const oneRole = prepare((sql, organizationId: string, name: string) =>
  sql
    .selectFrom('organization_roles')
    .select(['name', 'description', 'permissions', 'created_at', 'updated_at'])
    .where('organization_id', '=', organizationId)
    .where('name', '=', name),
);

/** One of the organization's own roles, if it has it. */
export const organizationRoleRow = (reader: Reader, organizationId: string, name: string) =>
  reader.first(oneRole(reader.sql, organizationId, name));

/** Whether the organization has a role of that name of its own, and how many it has. */
export const roleNameAndCount = (tx: Tx, organizationId: string, name: string) =>
  tx.first(
    tx.sql
      .selectFrom('organizations as o')
      .leftJoin('organization_roles as r', (join) =>
        join.onRef('r.organization_id', '=', 'o.id').on('r.name', '=', name),
      )
      .select((eb) => [
        'r.name as existing',
        eb
          .selectFrom('organization_roles as c')
          .select((count) => count.fn.countAll<number | string>().as('roles'))
          .whereRef('c.organization_id', '=', 'o.id')
          .as('role_count'),
      ])
      .where('o.id', '=', organizationId),
  );

export function insertRole(tx: Tx, organizationId: string, role: Role, description: string, permissions: string): void {
  const now = tx.timestamp();
  tx.later(
    tx.sql.insertInto('organization_roles').values({
      organization_id: organizationId,
      name: role,
      description,
      permissions,
      created_at: now,
      updated_at: now,
    }),
  );
}

export function updateRoleRow(
  tx: Tx,
  organizationId: string,
  role: Role,
  changes: { description?: string; permissions?: string },
): void {
  tx.later(
    tx.sql
      .updateTable('organization_roles')
      .set({ description: changes.description, permissions: changes.permissions, updated_at: tx.timestamp() })
      .where('organization_id', '=', organizationId)
      .where('name', '=', role),
  );
}

export function deleteRole(tx: Tx, organizationId: string, role: Role): void {
  tx.later(
    tx.sql.deleteFrom('organization_roles').where('organization_id', '=', organizationId).where('name', '=', role),
  );
}
