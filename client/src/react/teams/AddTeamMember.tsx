import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { type Member } from '../members/member.ts';
import { MemberPicker } from '../members/MemberPicker.tsx';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, Form, FormActions, Notice } from '../ui/index.ts';
import { fullName, type Team } from './team.ts';
import { useTeamsChanged } from './useTeamsChanged.ts';

/** A member of the organization not in the team yet, found by the member picker's search. */
export function AddTeamMember({
  organizationId,
  team,
  inTeam,
}: {
  organizationId: string;
  team: Team;
  inTeam: string[];
}) {
  const trpc = useTRPC();
  const teamsChanged = useTeamsChanged();
  const [chosen, setChosen] = useState<Member>();
  // A new key empties the picker after each addition.
  const [added, setAdded] = useState<{ count: number; notice?: string }>({ count: 0 });
  const add = useMutation(
    trpc.teams.addMember.mutationOptions({
      onSuccess: async () => {
        setAdded(({ count }) => ({
          count: count + 1,
          notice: `${chosen ? fullName(chosen) : 'The member'} added to the team.`,
        }));
        setChosen(undefined);
        await teamsChanged();
      },
    }),
  );

  return (
    <Form
      busy={add.isPending}
      label={`Add a member to ${team.name}`}
      className="osc-form--inline"
      onSubmit={() => {
        if (!chosen) return;
        setAdded(({ count }) => ({ count }));
        add.mutate({ organization_id: organizationId, team_id: team.team_id, user_id: chosen.user_id });
      }}
    >
      {added.notice && <Notice tone="success">{added.notice}</Notice>}
      <ErrorNotice error={add.error} />
      <MemberPicker
        key={added.count}
        organizationId={organizationId}
        label="Member"
        value={chosen}
        onChange={setChosen}
        exclude={(member) => inTeam.includes(member.user_id)}
        error={errorView(add.error).fields.user_id}
      />
      <FormActions submit="Add to team" />
    </Form>
  );
}
