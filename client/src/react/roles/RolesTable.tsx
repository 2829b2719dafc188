import { useEffect, useRef, useState } from 'react';
import { keepFocus, Notice, Table } from '../ui/index.ts';
import { ROLE_COLUMNS, type CatalogueQuery, type Role } from './role.ts';
import type { RoleHoldersProps } from './RoleHolders.tsx';
import { RoleRow } from './RoleRow.tsx';

export function RolesTable({
  organizationId,
  roles,
  manage,
  catalogue,
  holders,
}: {
  organizationId: string;
  roles: readonly Role[];
  manage: boolean;
  catalogue: CatalogueQuery;
  holders: { link?: RoleHoldersProps['link'] } | undefined;
}) {
  const [deleted, setDeleted] = useState<string>();
  const table = useRef<HTMLTableElement>(null);
  // The deleted role's row took the focus with it.
  useEffect(() => {
    if (deleted !== undefined) keepFocus(table.current);
  }, [deleted]);
  return (
    <>
      {deleted !== undefined && <Notice tone="success">Role {deleted} deleted.</Notice>}
      <Table label="Roles" columns={ROLE_COLUMNS} actions={manage} ref={table} tabIndex={-1}>
        {roles.map((role) => (
          <RoleRow
            key={role.role}
            organizationId={organizationId}
            role={role}
            manage={manage}
            catalogue={catalogue}
            onDeleted={() => setDeleted(role.role)}
            holders={holders}
          />
        ))}
      </Table>
    </>
  );
}
