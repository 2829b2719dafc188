import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { usePermissions } from '../permissions.ts';
import { fromLocalInput, toLocalInput } from '../local-time.ts';
import { roleOptions } from '../roles/roleOptions.ts';
import { inOrganization, useTRPC } from '../service.tsx';
import { EditorForm, SelectField } from '../ui/index.ts';
import { ExpiryField } from './ExpiryField.tsx';
import type { Member } from './member.ts';

/** A member's row editor: their role and the membership's expiry. */
export function MemberEditForm({
  organizationId,
  member,
  name,
  onClose,
}: {
  organizationId: string;
  member: Member;
  name: string;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const permissions = usePermissions(organizationId);
  const initialExpiry = toLocalInput(member.expires_at);
  const [role, setRole] = useState(member.role);
  const [expiry, setExpiry] = useState(initialExpiry);
  const change = useMutation(
    trpc.members.changeRole.mutationOptions({
      ...inOrganization(organizationId),
      onSuccess: async () => {
        // The caller's own permissions change with their own role.
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.members.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.permissions.mine.pathKey() }),
        ]);
        onClose();
      },
    }),
  );
  const submit = () =>
    change.mutate({
      user_id: member.user_id,
      role,
      // Untouched, the expiry stays as it is (to the millisecond); emptied, the membership lasts.
      ...(expiry !== initialExpiry && { expires_at: expiry === '' ? null : fromLocalInput(expiry) }),
    });
  const fields = errorView(change.error).fields;
  return (
    <EditorForm
      label={`Edit the membership of ${name}`}
      saving={change}
      loadError={roles.error}
      onSubmit={submit}
      onClose={onClose}
      className="osc-form--inline"
    >
      <SelectField
        label="Role"
        value={role}
        onChange={(event) => setRole(event.target.value)}
        options={roleOptions(roles.data, member.role, permissions)}
        error={fields.role}
        autoFocus
      />
      <ExpiryField value={expiry} onChange={setExpiry} error={fields.expires_at} />
    </EditorForm>
  );
}
