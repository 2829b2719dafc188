import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { fromLocalInput } from '../local-time.ts';
import { usePermissions } from '../permissions.ts';
import { roleOptions } from '../roles/roleOptions.ts';
import { inOrganization, useTRPC } from '../service.tsx';
import { ErrorNotice, Form, FormActions, Notice, SelectField, TextField, useFocusAfter } from '../ui/index.ts';
import { ExpiryField } from './ExpiryField.tsx';
import { useMembershipsChanged } from './useMembershipsChanged.ts';

export interface AddMemberFormProps {
  organizationId: string;
  /** Called after each member added. */
  onAdded?: () => void;
}

/** Adds a user who has a profile, by e-mail, with a role and an optional expiry; nothing without `members:add`. */
export function AddMemberForm({ organizationId, onAdded }: AddMemberFormProps) {
  const { can } = usePermissions(organizationId);
  if (!can('members:add')) return null;
  return <AddMember organizationId={organizationId} onAdded={onAdded} />;
}

function AddMember({ organizationId, onAdded }: AddMemberFormProps) {
  const trpc = useTRPC();
  const membershipsChanged = useMembershipsChanged(organizationId);
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const permissions = usePermissions(organizationId);
  const [email, setEmail] = useState('');
  // Every organization has the built-in `member` (behaviour §3.2).
  const [role, setRole] = useState('member');
  const [expiry, setExpiry] = useState('');
  const [added, setAdded] = useState<string>();
  const add = useMutation(
    trpc.members.add.mutationOptions({
      ...inOrganization(organizationId),
      onSuccess: async (membership, input) => {
        await membershipsChanged();
        setAdded(`${input.email} was added as ${membership.role}.`);
        setEmail('');
        setExpiry('');
        onAdded?.();
      },
    }),
  );
  const submitButton = useFocusAfter(add.status, ['success', 'error']);
  const fields = errorView(add.error).fields;
  return (
    <div className="osc-stack">
      {added !== undefined && add.isSuccess && <Notice tone="success">{added}</Notice>}
      <ErrorNotice error={roles.error} />
      <ErrorNotice error={add.error} />
      <Form
        busy={add.isPending}
        label="Add a member"
        onSubmit={() => add.mutate({ email, role, ...(expiry !== '' && { expires_at: fromLocalInput(expiry) }) })}
      >
        <TextField
          label="Email"
          type="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fields.email}
          hint="The address of a user who has a profile."
          autoComplete="off"
        />
        <SelectField
          label="Role"
          value={role}
          onChange={(event) => setRole(event.target.value)}
          options={roleOptions(roles.data, role, permissions)}
          error={fields.role}
        />
        <div className="osc-row">
          <ExpiryField value={expiry} onChange={setExpiry} error={fields.expires_at} />
        </div>
        <FormActions submit="Add member" submitRef={submitButton} />
      </Form>
    </div>
  );
}
