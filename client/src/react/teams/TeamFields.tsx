import { useQuery } from '@tanstack/react-query';
import { errorView, listProblems } from '../errors.ts';
import { useTRPC } from '../service.tsx';
import { Busy, Checkbox, draftFields, ErrorNotice, TextAreaField, TextField } from '../ui/index.ts';
import type { TeamDraft } from './team.ts';

/**
 * The fields of a team, each with the service's problem with it (`error`, the refusal the form shows
 * above them): name, description, and its roles as checkboxes over the organization's roles but
 * `owner`, which a team cannot give (behaviour §12). `submitted` is the input the service's answer
 * is about, to name the role of a `roles.N` problem.
 */
export function TeamFields({
  organizationId,
  draft,
  onChange,
  error,
  submitted,
  autoFocus,
}: {
  organizationId: string;
  draft: TeamDraft;
  onChange: (draft: TeamDraft) => void;
  error: unknown;
  submitted: string[] | undefined;
  /** The name takes the focus as the fields appear. */
  autoFocus?: boolean;
}) {
  const trpc = useTRPC();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const field = draftFields(draft, onChange, error);
  const roleProblems = listProblems(errorView(error).fields, 'roles', submitted);
  const names = roles.data?.map((role) => role.role).filter((role) => role !== 'owner') ?? [];
  // A role the team gives but the list lacks still shows, so that it can be taken off.
  const choices = [...names, ...draft.roles.filter((role) => !names.includes(role))];
  const descriptions = new Map(roles.data?.map((role) => [role.role, role.description]));
  const toggle = (role: string, checked: boolean) =>
    onChange({ ...draft, roles: checked ? [...draft.roles, role] : draft.roles.filter((each) => each !== role) });

  return (
    <>
      <TextField label="Team name" autoFocus={autoFocus} {...field('name')} />
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
