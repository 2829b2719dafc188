import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';
import { Badge, Button, ConfirmButton, EditableRow, useRowEditor } from '../ui/index.ts';
import { CatalogueOr } from './CatalogueOr.tsx';
import { EditRoleForm } from './EditRoleForm.tsx';
import { PermissionGroups } from './PermissionGroups.tsx';
import { RoleHolders, type RoleHoldersProps } from './RoleHolders.tsx';
import { KINDS, ROLE_COLUMNS, type CatalogueQuery, type Role } from './role.ts';

/** A role's row: with `roles:manage`, an organization's own role is edited and deleted in place. */
export function RoleRow({
  organizationId,
  role,
  manage,
  catalogue,
  onDeleted,
  holders,
}: {
  organizationId: string;
  role: Role;
  manage: boolean;
  catalogue: CatalogueQuery;
  onDeleted: () => void;
  /** The count of its holders (with members:read), and how it links to them. */
  holders: { link?: RoleHoldersProps['link'] } | undefined;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.roles.remove.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.roles.pathKey() });
        onDeleted();
      },
    }),
  );
  // A deletion may be refused: 409 while a member, invitation or team holds the role.
  const editor = useRowEditor(remove);
  const editable = manage && role.kind === 'organization';
  return (
    <EditableRow
      editor={editor}
      columns={ROLE_COLUMNS.length + (manage ? 1 : 0)}
      form={
        <CatalogueOr catalogue={catalogue}>
          {(entries) => (
            <EditRoleForm organizationId={organizationId} role={role} catalogue={entries} onClose={editor.close} />
          )}
        </CatalogueOr>
      }
    >
      <td data-label="Role">{role.role}</td>
      <td data-label="Kind">
        <Badge tone={KINDS[role.kind].tone}>{KINDS[role.kind].label}</Badge>
      </td>
      <td data-label="Description">{role.description || <span className="osc-muted">No description</span>}</td>
      <td data-label="Permissions">
        <PermissionGroups permissions={role.permissions} catalogue={catalogue.data} />
      </td>
      <td data-label="Held by">
        {holders ? (
          <RoleHolders organizationId={organizationId} role={role.role} link={holders.link} />
        ) : (
          <span className="osc-muted">Not shown</span>
        )}
      </td>
      {manage && (
        <td className="osc-table__actions">
          {editable ? (
            <span className="osc-row">
              <Button {...editor.editButton}>Edit</Button>
              <span {...editor.removalHolder}>
                <ConfirmButton
                  confirmLabel={`Delete role ${role.role}?`}
                  busy={remove.isPending}
                  onConfirm={() => remove.mutate({ organization_id: organizationId, role: role.role })}
                >
                  Delete
                </ConfirmButton>
              </span>
            </span>
          ) : (
            <span className="osc-muted">Read-only</span>
          )}
        </td>
      )}
    </EditableRow>
  );
}
