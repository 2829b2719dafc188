import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { EditorForm, Section } from '../ui/index.ts';
import type { Team, TeamDraft } from './team.ts';
import { TeamFields } from './TeamFields.tsx';
import { useTeamsChanged } from './useTeamsChanged.ts';

const sameRoles = (a: string[], b: string[]) => a.length === b.length && a.every((role) => b.includes(role));

/** A team's editor, as every row's editor: Save and Cancel, Escape cancels, the focus back on its Edit. */
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
      <EditorForm label={`Edit the team “${team.name}”`} saving={update} onSubmit={save} onClose={onDone}>
        <TeamFields
          organizationId={organizationId}
          draft={draft}
          onChange={setDraft}
          error={update.error}
          submitted={update.variables?.roles}
          // The editor opens where the reader is going: its first field.
          autoFocus
        />
      </EditorForm>
    </Section>
  );
}
