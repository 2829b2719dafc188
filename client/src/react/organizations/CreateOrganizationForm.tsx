import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { Form, FormActions, Notice, Section } from '../ui/index.ts';
import { OrganizationFields, type OrganizationDraft } from './OrganizationFields.tsx';

export interface CreateOrganizationFormProps {
  /** Called with the new organization's id; the caller is its owner. */
  onCreated?: (organizationId: string) => void;
}

export function CreateOrganizationForm({ onCreated }: CreateOrganizationFormProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const empty: OrganizationDraft = { organization_name: '', organization_description: '' };
  const [draft, setDraft] = useState(empty);
  const [created, setCreated] = useState<string>();
  const create = useMutation(
    trpc.organizations.create.mutationOptions({
      onSuccess: async (membership, input) => {
        setCreated(`Organization “${input.organization_name.trim()}” created. You are its owner.`);
        setDraft(empty);
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
        onCreated?.(membership.organization_id);
      },
    }),
  );

  return (
    <Section title="New organization">
      <Form
        busy={create.isPending}
        label="New organization"
        onSubmit={() => {
          setCreated(undefined);
          create.mutate(draft);
        }}
      >
        {created && <Notice tone="success">{created}</Notice>}
        <OrganizationFields
          draft={draft}
          onChange={setDraft}
          error={create.error}
          descriptionHint="Optional, up to 1000 characters."
        />
        <FormActions submit="Create organization" />
      </Form>
    </Section>
  );
}
