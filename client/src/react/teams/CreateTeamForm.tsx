import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, Form, FormActions, Notice, Section } from '../ui/index.ts';
import type { TeamDraft } from './team.ts';
import { TeamFields } from './TeamFields.tsx';
import { useTeamsChanged } from './useTeamsChanged.ts';

export function CreateTeamForm({ organizationId }: { organizationId: string }) {
  const trpc = useTRPC();
  const teamsChanged = useTeamsChanged();
  const empty: TeamDraft = { name: '', description: '', roles: [] };
  const [draft, setDraft] = useState(empty);
  const [created, setCreated] = useState<string>();
  const create = useMutation(
    trpc.teams.create.mutationOptions({
      onSuccess: async (team) => {
        setCreated(`Team “${team.name}” created.`);
        setDraft(empty);
        await teamsChanged();
      },
    }),
  );

  return (
    <Section title="New team">
      <Form
        busy={create.isPending}
        label="New team"
        onSubmit={() => {
          setCreated(undefined);
          create.mutate({ organization_id: organizationId, ...draft });
        }}
      >
        {created && <Notice tone="success">{created}</Notice>}
        <ErrorNotice error={create.error} />
        <TeamFields
          organizationId={organizationId}
          draft={draft}
          onChange={setDraft}
          error={create.error}
          submitted={create.variables?.roles}
        />
        <FormActions submit="Create team" />
      </Form>
    </Section>
  );
}
