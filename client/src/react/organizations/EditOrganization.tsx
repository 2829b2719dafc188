import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { Form, FormActions, Notice, Section } from '../ui/index.ts';
import type { OrganizationDetails } from './organization.ts';
import { OrganizationFields, type OrganizationDraft } from './OrganizationFields.tsx';

const draftOf = ({ organization_name, organization_description }: OrganizationDraft): OrganizationDraft => ({
  organization_name,
  organization_description,
});

export function EditOrganization({ details }: { details: OrganizationDetails }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(details));
  const [saved, setSaved] = useState(false);
  const update = useMutation(
    trpc.organizations.update.mutationOptions({
      onSuccess: async (updated) => {
        // The service's own text (a trimmed name) replaces what was typed.
        setDraft(draftOf(updated));
        setSaved(true);
        queryClient.setQueryData(
          trpc.organizations.get.queryKey({ organization_id: updated.organization_id }),
          updated,
        );
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
      },
    }),
  );

  return (
    <Section title="Edit organization">
      <Form
        busy={update.isPending}
        label="Edit organization"
        onSubmit={() => {
          setSaved(false);
          update.mutate({ organization_id: details.organization_id, ...draft });
        }}
      >
        {saved && <Notice tone="success">Organization saved.</Notice>}
        <OrganizationFields draft={draft} onChange={setDraft} error={update.error} />
        <FormActions submit="Save changes" />
      </Form>
    </Section>
  );
}
