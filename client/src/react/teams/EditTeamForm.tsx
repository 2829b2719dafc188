import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTRPC } from '../service.tsx';
import { Form, FormActions, Section } from '../ui/index.ts';
import type { Team, TeamDraft } from './team.ts';
import { TeamFields } from './TeamFields.tsx';
import { useTeamsChanged } from './useTeamsChanged.ts';

const sameRoles = (a: string[], b: string[]) => a.length === b.length && a.every((role) => b.includes(role));

export function EditTeamForm({
  organizationId,
  team,
  onDone,
}: {
  organizationId: string;
  team: Team;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const teamsChanged = useTeamsChanged();
  const [draft, setDraft] = useState<TeamDraft>({ name: team.name, description: team.description, roles: team.roles });
  const update = useMutation(
    trpc.teams.update.mutationOptions({
      onSuccess: async () => {
        await teamsChanged();
        onDone();
      },
    }),
  );
  // The editor opens where the reader is going: its first field.
  const frame = useRef<HTMLDivElement>(null);
  useEffect(() => frame.current?.querySelector('input')?.focus(), []);

  // Only what changed is sent: changing roles needs every permission of them (behaviour §12), renaming does not.
  const save = () => {
    const changes = {
      ...(draft.name !== team.name && { name: draft.name }),
      ...(draft.description !== team.description && { description: draft.description }),
      ...(!sameRoles(draft.roles, team.roles) && { roles: draft.roles }),
    };
    if (Object.keys(changes).length === 0) onDone();
    else update.mutate({ organization_id: organizationId, team_id: team.team_id, ...changes });
  };

  return (
    <Section title={`Edit the team “${team.name}”`}>
      <div ref={frame}>
        <Form busy={update.isPending} label={`Edit the team “${team.name}”`} onSubmit={save}>
          <TeamFields
            organizationId={organizationId}
            draft={draft}
            onChange={setDraft}
            error={update.error}
            submitted={update.variables?.roles}
          />
          <FormActions submit="Save team" onCancel={onDone} />
        </Form>
      </div>
    </Section>
  );
}
