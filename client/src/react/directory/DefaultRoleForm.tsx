import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { roleOptions } from '../roles/roleOptions.ts';
import { useTRPC } from '../service.tsx';
import { Busy, ErrorNotice, FocusedNotice, Form, FormActions, Section, SelectField } from '../ui/index.ts';
import type { DirectoryRead } from './directory.ts';

/** The role of the memberships the directory makes: any role but owner, one the caller may give. */
export function DefaultRoleForm({ organizationId, directory }: { organizationId: string; directory: DirectoryRead }) {
  return (
    <Section
      title="Default role"
      description="The role of the memberships the directory makes from now on; memberships made before keep theirs."
    >
      {directory.isPending ? (
        <Busy label="Loading the directory…" />
      ) : !directory.data ? (
        <ErrorNotice error={directory.error} />
      ) : (
        // The select starts at the saved role and keeps what the person chose (and the notice of a save).
        <RoleSelect organizationId={organizationId} saved={directory.data.default_role} />
      )}
    </Section>
  );
}

function RoleSelect({ organizationId, saved }: { organizationId: string; saved: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const [role, setRole] = useState(saved);
  const [notice, setNotice] = useState<string>();
  const update = useMutation(
    trpc.directory.update.mutationOptions({
      onSuccess: (updated) => {
        setNotice(`New directory members get the role ${updated.default_role}.`);
        return queryClient.invalidateQueries({ queryKey: trpc.directory.get.pathKey() });
      },
    }),
  );
  // The directory never makes owners (behaviour §18).
  const options = roleOptions(roles.data, role).filter((option) => option.value !== 'owner');

  return (
    <Form
      busy={update.isPending}
      label="Default role"
      onSubmit={() => {
        setNotice(undefined);
        update.mutate({ organization_id: organizationId, default_role: role });
      }}
    >
      {notice && <FocusedNotice>{notice}</FocusedNotice>}
      <ErrorNotice error={roles.error} />
      <ErrorNotice error={update.error} />
      <SelectField
        label="Role of new directory members"
        value={role}
        onChange={(event) => setRole(event.target.value)}
        options={options}
        error={errorView(update.error).fields.default_role}
      />
      <FormActions submit="Save default role" />
    </Form>
  );
}
