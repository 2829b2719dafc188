import { Badge, Button, ConfirmButton, Table, Time, type ButtonProps } from '../ui/index.ts';
import type { Team } from './team.ts';

/** The teams, a row each with the buttons that open its members and its editor, and with teams:manage its deletion. */
export function TeamsTable({
  teams,
  manage,
  membersButton,
  editButton,
  deleting,
  onDelete,
}: {
  teams: readonly Team[];
  manage: boolean;
  /** The props of the row's button that opens the team's members. */
  membersButton: (teamId: string) => ButtonProps;
  /** The props of the row's button that opens the team's editor. */
  editButton: (teamId: string) => ButtonProps;
  /** The id of the team whose deletion is under way. */
  deleting: string | undefined;
  onDelete: (team: Team) => void;
}) {
  return (
    <Table label="Teams" columns={['Name', 'Description', 'Roles', 'Members', 'Created']} actions>
      {teams.map((team) => (
        <tr key={team.team_id}>
          <th scope="row">{team.name}</th>
          <td data-label="Description" className="osc-pre-wrap">
            {team.description || <span className="osc-muted">No description</span>}
          </td>
          <td data-label="Roles">
            {team.roles.length ? (
              <span className="osc-row">
                {team.roles.map((role) => (
                  <Badge key={role} tone="accent">
                    {role}
                  </Badge>
                ))}
              </span>
            ) : (
              <span className="osc-muted">None</span>
            )}
          </td>
          <td data-label="Members">{team.member_count}</td>
          <td data-label="Created">
            <Time value={team.created_at} />
          </td>
          <td className="osc-table__actions">
            <span className="osc-row">
              <Button {...membersButton(team.team_id)}>Members</Button>
              {manage && <Button {...editButton(team.team_id)}>Edit</Button>}
              {manage && (
                <ConfirmButton
                  confirmLabel={`Delete the team “${team.name}”?`}
                  busy={deleting === team.team_id}
                  onConfirm={() => onDelete(team)}
                >
                  Delete
                </ConfirmButton>
              )}
            </span>
          </td>
        </tr>
      ))}
    </Table>
  );
}
