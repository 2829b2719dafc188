import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { usePermissions } from '../permissions.ts';
import { roleOptions } from '../roles/roleOptions.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, Form, FormActions, Section, SelectField, TextField } from '../ui/index.ts';
import type { CreatedApiKey } from './api-key.ts';

/** A new key: a name and a role of the organization other than owner, one the caller may give. */
export function CreateApiKeyForm({
  organizationId,
  onCreated,
}: {
  organizationId: string;
  onCreated: (created: CreatedApiKey) => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const permissions = usePermissions(organizationId);
  const [name, setName] = useState('');
  // Every organization has the built-in `member` (behaviour §3.2).
  const [role, setRole] = useState('member');
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (created) => {
        setName('');
        return onCreated(created);
      },
    }),
  );
  const fields = errorView(create.error).fields;
  // A key never has the owner role, nor one with more than its maker holds (behaviour §16).
  const options = roleOptions(roles.data, role, permissions).filter((option) => option.value !== 'owner');

  return (
    <Section
      title="New API key"
      description="For the organization's own systems. It acts with its role's permissions; its secret is shown once."
    >
      <Form
        busy={create.isPending}
        label="New API key"
        onSubmit={() => create.mutate({ organization_id: organizationId, name: name.trim(), role })}
      >
        <ErrorNotice error={roles.error} />
        <ErrorNotice error={create.error} />
        <TextField
          label="Name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={fields.name}
          hint="What uses it, up to 100 characters."
          autoComplete="off"
        />
        <SelectField
          label="Role"
          value={role}
          onChange={(event) => setRole(event.target.value)}
          options={options}
          error={fields.role}
        />
        <FormActions submit="Create API key" />
      </Form>
    </Section>
  );
}
