import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { roleOptions } from '../roles/roleOptions.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, Form, FormActions, Notice, SelectField } from '../ui/index.ts';
import { ENROLLMENT_OPTIONS, type Domain, type Enrollment } from './domain.ts';

/** A domain's enrollment (other than manual once verified) and the role its people get (not owner). */
export function DomainSettingsForm({ organizationId, domain }: { organizationId: string; domain: Domain }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const [enrollment, setEnrollment] = useState<Enrollment>(domain.enrollment);
  const [role, setRole] = useState(domain.default_role);
  const update = useMutation(
    trpc.domains.update.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.domains.pathKey() }),
    }),
  );
  const fields = errorView(update.error).fields;
  // A domain never gives the owner role (behaviour §17).
  const options = roleOptions(roles.data, role).filter((option) => option.value !== 'owner');

  return (
    <Form
      busy={update.isPending}
      label={`Joining by ${domain.domain}`}
      onSubmit={() =>
        update.mutate({ organization_id: organizationId, domain_id: domain.domain_id, enrollment, default_role: role })
      }
    >
      <ErrorNotice error={roles.error} />
      <ErrorNotice error={update.error} />
      {update.isSuccess && <Notice tone="success">Saved.</Notice>}
      <SelectField
        label="Enrollment"
        value={enrollment}
        onChange={(event) => setEnrollment(event.target.value as Enrollment)}
        options={ENROLLMENT_OPTIONS}
        error={fields.enrollment}
        hint={domain.status === 'pending' ? 'Other than manual once the domain is verified.' : undefined}
      />
      <SelectField
        label="Default role"
        value={role}
        onChange={(event) => setRole(event.target.value)}
        options={options}
        error={fields.default_role}
        hint="The role of those who join by this domain."
      />
      <FormActions submit="Save" />
    </Form>
  );
}
