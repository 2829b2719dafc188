/**
 * Teams (behaviour §12): an organization's teams with their roles and member counts, and one
 * team's members, for every member (teams:read). With teams:manage: creating, editing and deleting
 * teams, adding members and taking them out. Any member may take themselves out of a team.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, FocusedNotice, QueryList, Section, useRowPanel } from '../ui/index.ts';
import { CreateTeamForm } from './CreateTeamForm.tsx';
import { EditTeamForm } from './EditTeamForm.tsx';
import { TeamMembers } from './TeamMembers.tsx';
import { TeamsTable } from './TeamsTable.tsx';
import { useTeamsChanged } from './useTeamsChanged.ts';

export interface TeamsPanelProps {
  organizationId: string;
}

export function TeamsPanel(props: TeamsPanelProps) {
  // Every built-in role holds teams:read; an organization's own role may not.
  const { can } = usePermissions(props.organizationId);
  if (!can('teams:read')) return null;
  // Another organization starts afresh: no open team, half-typed form or notice of the last one.
  return <TeamsOf key={props.organizationId} {...props} />;
}

function TeamsOf({ organizationId }: TeamsPanelProps) {
  const trpc = useTRPC();
  const { can, userId } = usePermissions(organizationId);
  const manage = can('teams:manage');
  const teams = useQuery(trpc.teams.list.queryOptions({ organization_id: organizationId }));
  // A team's members and its editor open beside the table, each from a button on its row.
  const membersPanel = useRowPanel();
  const editPanel = useRowPanel();
  const [notice, setNotice] = useState<string>();
  const teamsChanged = useTeamsChanged();
  const remove = useMutation(
    trpc.teams.remove.mutationOptions({
      onSuccess: async (_, { team_id }) => {
        const team = teams.data?.find((each) => each.team_id === team_id);
        setNotice(`Team “${team?.name ?? team_id}” deleted.`);
        membersPanel.forget(team_id);
        editPanel.forget(team_id);
        await teamsChanged();
      },
    }),
  );

  const open = teams.data?.find((team) => team.team_id === membersPanel.openKey);
  const editing = manage ? teams.data?.find((team) => team.team_id === editPanel.openKey) : undefined;

  return (
    <>
      <Section title="Teams" description="Each team gives its members the permissions of its roles.">
        {notice && <FocusedNotice>{notice}</FocusedNotice>}
        <ErrorNotice error={remove.error} />
        <QueryList
          query={teams}
          items={teams.data}
          loading="Loading teams…"
          empty="This organization has no teams yet."
        >
          {(rows) => (
            <TeamsTable
              teams={rows}
              manage={manage}
              membersButton={membersPanel.button}
              editButton={editPanel.button}
              deleting={remove.isPending ? remove.variables.team_id : undefined}
              onDelete={(team) => {
                setNotice(undefined);
                remove.mutate({ organization_id: organizationId, team_id: team.team_id });
              }}
            />
          )}
        </QueryList>
      </Section>
      {manage &&
        (editing ? (
          <EditTeamForm
            key={editing.team_id}
            organizationId={organizationId}
            team={editing}
            onDone={() => editPanel.close(editing.team_id)}
          />
        ) : (
          <CreateTeamForm organizationId={organizationId} />
        ))}
      {open && (
        <TeamMembers
          key={open.team_id}
          organizationId={organizationId}
          team={open}
          manage={manage}
          userId={userId}
          onClose={() => membersPanel.close(open.team_id)}
        />
      )}
    </>
  );
}
