import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { Button, ConfirmButton, ErrorNotice, FocusedNotice, QueryList, Section, Table, Time } from '../ui/index.ts';
import { AddTeamMember } from './AddTeamMember.tsx';
import { fullName, type Team, type TeamMember } from './team.ts';
import { useTeamsChanged } from './useTeamsChanged.ts';

/** A team's members, each removable with teams:manage, the caller's own row with Leave; with teams:manage, adding one. */
export function TeamMembers({
  organizationId,
  team,
  manage,
  userId,
  onClose,
}: {
  organizationId: string;
  team: Team;
  manage: boolean;
  userId: string | undefined;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const teamsChanged = useTeamsChanged();
  const members = useQuery(trpc.teams.members.queryOptions({ organization_id: organizationId, team_id: team.team_id }));
  const [notice, setNotice] = useState<string>();
  const remove = useMutation(
    trpc.teams.removeMember.mutationOptions({
      onSuccess: async (_, { user_id }) => {
        const member = members.data?.find((each) => each.user_id === user_id);
        const name = member ? fullName(member) : user_id;
        setNotice(user_id === userId ? `You left the team “${team.name}”.` : `${name} removed from the team.`);
        await teamsChanged();
      },
    }),
  );
  const removeLabel = (member: TeamMember) =>
    member.user_id === userId ? `Leave the team “${team.name}”?` : `Remove ${fullName(member)} from the team?`;

  return (
    <Section
      title={`Members of “${team.name}”`}
      actions={
        <Button variant="ghost" onClick={onClose}>
          Close
        </Button>
      }
    >
      {notice && <FocusedNotice>{notice}</FocusedNotice>}
      <ErrorNotice error={remove.error} />
      <QueryList
        query={members}
        items={members.data}
        loading="Loading the team's members…"
        empty="This team has no members yet."
      >
        {(rows) => (
          <Table label={`Members of ${team.name}`} columns={['Name', 'Email', 'Joined the team']} actions>
            {rows.map((member) => (
              <tr key={member.user_id}>
                <th scope="row">
                  {fullName(member)}
                  {member.user_id === userId && <span className="osc-muted"> (you)</span>}
                </th>
                <td data-label="Email" className="osc-wrap">
                  {member.email}
                </td>
                <td data-label="Joined the team">
                  <Time value={member.added_at} />
                </td>
                <td className="osc-table__actions">
                  {(manage || member.user_id === userId) && (
                    <ConfirmButton
                      confirmLabel={removeLabel(member)}
                      busy={remove.isPending && remove.variables.user_id === member.user_id}
                      onConfirm={() => {
                        setNotice(undefined);
                        remove.mutate({
                          organization_id: organizationId,
                          team_id: team.team_id,
                          user_id: member.user_id,
                        });
                      }}
                    >
                      {member.user_id === userId ? 'Leave team' : 'Remove'}
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryList>
      {manage && members.data && (
        <AddTeamMember
          organizationId={organizationId}
          team={team}
          inTeam={members.data.map((member) => member.user_id)}
        />
      )}
    </Section>
  );
}
