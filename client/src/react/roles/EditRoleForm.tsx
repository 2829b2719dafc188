import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { EditorForm } from '../ui/index.ts';
import { roleInput, type Catalogue, type Role, type RoleDraft } from './role.ts';
import { RoleFields } from './RoleFields.tsx';

/** A role's row editor: its description and permissions. */
export function EditRoleForm({
  organizationId,
  role,
  catalogue,
  onClose,
}: {
  organizationId: string;
  role: Role;
  catalogue: Catalogue;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<RoleDraft>(() => ({
    description: role.description,
    permissions: new Set(role.permissions),
  }));
  const update = useMutation(
    trpc.roles.update.mutationOptions({
      onSuccess: async () => {
        // The caller's own permissions change with a role they hold.
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.roles.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.permissions.mine.pathKey() }),
        ]);
        onClose();
      },
    }),
  );
  return (
    <EditorForm
      label={`Edit role ${role.role}`}
      saving={update}
      onClose={onClose}
      onSubmit={() =>
        update.mutate({ organization_id: organizationId, role: role.role, ...roleInput(catalogue, draft) })
      }
    >
      <RoleFields
        catalogue={catalogue}
        draft={draft}
        onChange={setDraft}
        error={update.error}
        submitted={update.variables?.permissions}
        autoFocus
      />
    </EditorForm>
  );
}
