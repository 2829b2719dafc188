import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';
import { Busy, ErrorNotice, Form, FormActions, Notice, SelectField, TextField } from '../ui/index.ts';
import { fullName, type Team } from './team.ts';
import { useTeamsChanged } from './useTeamsChanged.ts';

/** A select over the organization's members not in the team yet; their user id when the list cannot be read. */
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
  const people = useQuery(
    keyedByOrganization(trpc.members.list.queryOptions(undefined, inOrganization(organizationId)), organizationId),
  );
  const [userId, setUserId] = useState('');
  const [added, setAdded] = useState<string>();
  const add = useMutation(
    trpc.teams.addMember.mutationOptions({
      onSuccess: async (_, input) => {
        const person = people.data?.find((each) => each.user_id === input.user_id);
        setAdded(`${person ? fullName(person) : input.user_id} added to the team.`);
        setUserId('');
        await teamsChanged();
      },
    }),
  );
  const error = errorView(add.error).fields.user_id;
  const candidates = (people.data ?? []).filter((person) => !inTeam.includes(person.user_id));

  return (
    <Form
      label={`Add a member to ${team.name}`}
      className="osc-form--inline"
      onSubmit={() => {
        setAdded(undefined);
        add.mutate({ organization_id: organizationId, team_id: team.team_id, user_id: userId.trim() });
      }}
    >
      {added && <Notice tone="success">{added}</Notice>}
      <ErrorNotice error={add.error} />
      {people.isPending ? (
        <Busy label="Loading members…" />
      ) : people.isError ? (
        <TextField
          label="User id"
          hint="The organization's member list could not be read; give the member's user id."
          value={userId}
          onChange={(event) => setUserId(event.target.value)}
          error={error}
        />
      ) : (
        <SelectField
          label="Member"
          value={userId}
          options={[
            {
              value: '',
              label: candidates.length ? 'Choose a member' : 'Every member is in this team',
            },
            ...candidates.map((person) => ({ value: person.user_id, label: `${fullName(person)} (${person.email})` })),
          ]}
          onChange={(event) => setUserId(event.target.value)}
          error={error}
        />
      )}
      <FormActions submit="Add to team" busy={add.isPending} />
    </Form>
  );
}
