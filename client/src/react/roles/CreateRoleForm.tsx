import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, Form, FormActions, Notice, TextField, useFocusAfter } from '../ui/index.ts';
import { roleInput, type Catalogue, type RoleDraft } from './role.ts';
import { RoleFields } from './RoleFields.tsx';

export function CreateRoleForm({ organizationId, catalogue }: { organizationId: string; catalogue: Catalogue }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const empty: RoleDraft = { description: '', permissions: new Set() };
  const [name, setName] = useState('');
  const [draft, setDraft] = useState(empty);
  const [created, setCreated] = useState<string>();
  const create = useMutation(
    trpc.roles.create.mutationOptions({
      onSuccess: async (role) => {
        await queryClient.invalidateQueries({ queryKey: trpc.roles.pathKey() });
        setName('');
        setDraft(empty);
        setCreated(role.role);
      },
    }),
  );
  const submit = useFocusAfter(create.status, ['success', 'error']);
  return (
    <div className="osc-stack">
      {created !== undefined && create.isSuccess && <Notice tone="success">Role {created} created.</Notice>}
      <ErrorNotice error={create.error} />
      <Form
        busy={create.isPending}
        label="Create a role"
        onSubmit={() => create.mutate({ organization_id: organizationId, role: name, ...roleInput(catalogue, draft) })}
      >
        <TextField
          label="Role name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={errorView(create.error).fields.role}
          hint="A lower-case letter, then up to 63 lower-case letters, digits, _ and -."
          autoComplete="off"
          spellCheck={false}
        />
        <RoleFields
          catalogue={catalogue}
          draft={draft}
          onChange={setDraft}
          error={create.error}
          submitted={create.variables?.permissions}
          descriptionHint="Optional: what the role is for."
        />
        <FormActions submit="Create role" submitRef={submit} />
      </Form>
    </div>
  );
}
