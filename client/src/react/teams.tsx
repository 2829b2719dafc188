/**
 * Teams (behaviour §12): an organization's teams with their roles and member counts, and one
 * team's members, for every member (teams:read). With teams:manage: creating, editing and deleting
 * teams, adding members and taking them out. Any member may take themselves out of a team.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { RouterOutputs } from '../index.ts';
import { errorView } from './errors.ts';
import { usePermissions } from './permissions.ts';
import { inOrganization, keyedByOrganization, useTRPC } from './service.tsx';
import {
  Badge,
  Busy,
  Button,
  Checkbox,
  ConfirmButton,
  draftFields,
  ErrorNotice,
  FocusedNotice,
  Form,
  FormActions,
  Notice,
  QueryList,
  Section,
  SelectField,
  Table,
  TextAreaField,
  TextField,
  Time,
  useRowPanel,
} from './ui.tsx';

type Team = RouterOutputs['teams']['list'][number];
type TeamMember = RouterOutputs['teams']['members'][number];

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

/** Refreshes the teams, and the caller's permissions, which a team's roles and members give (behaviour §11). */
function useTeamsChanged() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all(
      [trpc.teams, trpc.permissions].map((procedures) =>
        queryClient.invalidateQueries({ queryKey: procedures.pathKey() }),
      ),
    );
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
            <Table label="Teams" columns={['Name', 'Description', 'Roles', 'Members', 'Created']} actions>
              {rows.map((team) => (
                <tr key={team.team_id}>
                  <th scope="row">{team.name}</th>
                  <td className="osc-pre-wrap">
                    {team.description || <span className="osc-muted">No description</span>}
                  </td>
                  <td>
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
                  <td>{team.member_count}</td>
                  <td>
                    <Time value={team.created_at} />
                  </td>
                  <td className="osc-table__actions">
                    <span className="osc-row">
                      <Button {...membersPanel.button(team.team_id)}>Members</Button>
                      {manage && <Button {...editPanel.button(team.team_id)}>Edit</Button>}
                      {manage && (
                        <ConfirmButton
                          confirmLabel={`Delete the team “${team.name}”?`}
                          busy={remove.isPending && remove.variables.team_id === team.team_id}
                          onConfirm={() => {
                            setNotice(undefined);
                            remove.mutate({ organization_id: organizationId, team_id: team.team_id });
                          }}
                        >
                          Delete
                        </ConfirmButton>
                      )}
                    </span>
                  </td>
                </tr>
              ))}
            </Table>
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

interface TeamDraft {
  name: string;
  description: string;
  roles: string[];
}

/**
 * The fields of a team under the service's refusal (`error`): name, description, and its roles as
 * checkboxes over the organization's roles but `owner`, which a team cannot give (behaviour §12).
 * `submitted` is the input the service's answer is about, to name the role of a `roles.N` problem.
 */
function TeamFields({
  organizationId,
  draft,
  onChange,
  error,
  submitted,
}: {
  organizationId: string;
  draft: TeamDraft;
  onChange: (draft: TeamDraft) => void;
  error: unknown;
  submitted: string[] | undefined;
}) {
  const trpc = useTRPC();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const field = draftFields(draft, onChange, error);
  const roleProblems = Object.entries(errorView(error).fields).flatMap(([field, problem]) => {
    const match = /^roles(?:\.(\d+))?$/.exec(field);
    if (!match) return [];
    const role = match[1] === undefined ? undefined : submitted?.[Number(match[1])];
    return [role ? `${role}: ${problem}` : problem];
  });
  const names = roles.data?.map((role) => role.role).filter((role) => role !== 'owner') ?? [];
  // A role the team gives but the list lacks still shows, so that it can be taken off.
  const choices = [...names, ...draft.roles.filter((role) => !names.includes(role))];
  const descriptions = new Map(roles.data?.map((role) => [role.role, role.description]));
  const toggle = (role: string, checked: boolean) =>
    onChange({ ...draft, roles: checked ? [...draft.roles, role] : draft.roles.filter((each) => each !== role) });

  return (
    <>
      <ErrorNotice error={error} />
      <TextField label="Team name" {...field('name')} />
      <TextAreaField label="Description" hint="Optional, up to 1000 characters." {...field('description')} />
      {roles.isPending ? (
        <Busy label="Loading roles…" />
      ) : roles.isError ? (
        <ErrorNotice error={roles.error} />
      ) : (
        <fieldset className="osc-permissions">
          <legend>Roles</legend>
          {choices.map((role) => (
            <Checkbox
              key={role}
              label={role}
              hint={descriptions.get(role) || undefined}
              checked={draft.roles.includes(role)}
              onChange={(event) => toggle(role, event.target.checked)}
            />
          ))}
          {roleProblems.map((problem) => (
            <p key={problem} className="osc-field__error">
              {problem}
            </p>
          ))}
        </fieldset>
      )}
    </>
  );
}

function CreateTeamForm({ organizationId }: { organizationId: string }) {
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
        label="New team"
        onSubmit={() => {
          setCreated(undefined);
          create.mutate({ organization_id: organizationId, ...draft });
        }}
      >
        {created && <Notice tone="success">{created}</Notice>}
        <TeamFields
          organizationId={organizationId}
          draft={draft}
          onChange={setDraft}
          error={create.error}
          submitted={create.variables?.roles}
        />
        <FormActions submit="Create team" busy={create.isPending} />
      </Form>
    </Section>
  );
}

const sameRoles = (a: string[], b: string[]) => a.length === b.length && a.every((role) => b.includes(role));

function EditTeamForm({ organizationId, team, onDone }: { organizationId: string; team: Team; onDone: () => void }) {
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
        <Form label={`Edit the team “${team.name}”`} onSubmit={save}>
          <TeamFields
            organizationId={organizationId}
            draft={draft}
            onChange={setDraft}
            error={update.error}
            submitted={update.variables?.roles}
          />
          <FormActions submit="Save team" busy={update.isPending} onCancel={onDone} />
        </Form>
      </div>
    </Section>
  );
}

const fullName = (person: { first_name: string; last_name: string }) => `${person.first_name} ${person.last_name}`;

function TeamMembers({
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
                <td>{member.email}</td>
                <td>
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

/** A select over the organization's members not in the team yet; their user id when the list cannot be read. */
function AddTeamMember({ organizationId, team, inTeam }: { organizationId: string; team: Team; inTeam: string[] }) {
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
