/**
 * An organization's roles (behaviour §11): `RoleEditor` lists every role it has, built-in, instance
 * (the deployment's roles file) and its own, with their permissions; with `roles:manage` it creates,
 * changes and deletes the organization's own roles, which are the only ones anybody may change.
 * Also what the member forms share with it: a role select's options, and keeping the focus.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type ComponentProps, type ReactNode } from 'react';
import type { RouterOutputs } from '../index.ts';
import { errorView } from './errors.ts';
import { usePermissions } from './permissions.ts';
import { useTRPC } from './service.tsx';
import {
  Badge,
  Busy,
  Button,
  Checkbox,
  ConfirmButton,
  draftFields,
  EditableRow,
  EditorForm,
  ErrorNotice,
  Form,
  FormActions,
  keepFocus,
  Notice,
  QueryList,
  Section,
  Table,
  TextAreaField,
  TextField,
  useFocusAfter,
  useRowEditor,
  type Option,
} from './ui.tsx';

type Role = RouterOutputs['roles']['list'][number];
type Catalogue = RouterOutputs['permissions']['catalogue'];

const KINDS: Record<Role['kind'], { label: string; tone: ComponentProps<typeof Badge>['tone'] }> = {
  built_in: { label: 'built-in', tone: 'neutral' },
  instance: { label: 'instance', tone: 'accent' },
  organization: { label: 'organization', tone: 'success' },
};

/**
 * A role select's options: every role the organization has, its kind beside its name, and
 * `current` first should the list lack it (an instance role gone from the roles file).
 */
export function roleOptions(roles: readonly Role[] | undefined, current?: string): Option[] {
  const options = (roles ?? []).map((role) => ({
    value: role.role,
    label: `${role.role} (${KINDS[role.kind].label})`,
  }));
  if (current !== undefined && !options.some((option) => option.value === current)) {
    options.unshift({ value: current, label: current });
  }
  return options;
}

export interface RoleEditorProps {
  organizationId: string;
}

/** Every role of the organization; with `roles:manage`, its own roles created, changed and deleted. */
export function RoleEditor({ organizationId }: RoleEditorProps) {
  const trpc = useTRPC();
  const { can } = usePermissions(organizationId);
  const manage = can('roles:manage');
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const catalogue = useQuery({ ...trpc.permissions.catalogue.queryOptions(), enabled: manage });
  return (
    <>
      <Section
        title="Roles"
        description="Built-in and instance roles are the same in every organization and cannot be changed; the organization's own roles can."
      >
        <QueryList query={roles} items={roles.data} loading="Loading roles…" empty="This organization has no roles.">
          {(list) => <RolesTable organizationId={organizationId} roles={list} manage={manage} catalogue={catalogue} />}
        </QueryList>
      </Section>
      {manage && (
        <Section title="Create a role" description="A role of this organization's own, with permissions you hold.">
          <CatalogueOr catalogue={catalogue}>
            {(entries) => <CreateRoleForm organizationId={organizationId} catalogue={entries} />}
          </CatalogueOr>
        </Section>
      )}
    </>
  );
}

type CatalogueQuery = { data: Catalogue | undefined; isPending: boolean; error: unknown };

/** What needs the permission catalogue, once it is in. */
function CatalogueOr({
  catalogue,
  children,
}: {
  catalogue: CatalogueQuery;
  children: (entries: Catalogue) => ReactNode;
}) {
  if (catalogue.data) return children(catalogue.data);
  if (catalogue.error) return <ErrorNotice error={catalogue.error} />;
  return <Busy label="Loading permissions…" />;
}

function RolesTable({
  organizationId,
  roles,
  manage,
  catalogue,
}: {
  organizationId: string;
  roles: readonly Role[];
  manage: boolean;
  catalogue: CatalogueQuery;
}) {
  const [deleted, setDeleted] = useState<string>();
  const table = useRef<HTMLTableElement>(null);
  // The deleted role's row took the focus with it.
  useEffect(() => {
    if (deleted !== undefined) keepFocus(table.current);
  }, [deleted]);
  return (
    <>
      {deleted !== undefined && <Notice tone="success">Role {deleted} deleted.</Notice>}
      <Table label="Roles" columns={COLUMNS} actions={manage} ref={table} tabIndex={-1}>
        {roles.map((role) => (
          <RoleRow
            key={role.role}
            organizationId={organizationId}
            role={role}
            manage={manage}
            catalogue={catalogue}
            onDeleted={() => setDeleted(role.role)}
          />
        ))}
      </Table>
    </>
  );
}

const COLUMNS = ['Role', 'Kind', 'Description', 'Permissions'];

function RoleRow({
  organizationId,
  role,
  manage,
  catalogue,
  onDeleted,
}: {
  organizationId: string;
  role: Role;
  manage: boolean;
  catalogue: CatalogueQuery;
  onDeleted: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.roles.remove.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.roles.pathKey() });
        onDeleted();
      },
    }),
  );
  // A deletion may be refused: 409 while a member, invitation or team holds the role.
  const editor = useRowEditor(remove);
  const editable = manage && role.kind === 'organization';
  return (
    <EditableRow
      editor={editor}
      columns={COLUMNS.length + (manage ? 1 : 0)}
      form={
        <CatalogueOr catalogue={catalogue}>
          {(entries) => (
            <EditRoleForm organizationId={organizationId} role={role} catalogue={entries} onClose={editor.close} />
          )}
        </CatalogueOr>
      }
    >
      <td>{role.role}</td>
      <td>
        <Badge tone={KINDS[role.kind].tone}>{KINDS[role.kind].label}</Badge>
      </td>
      <td>{role.description || <span className="osc-muted">No description</span>}</td>
      <td>{role.permissions.join(', ')}</td>
      {manage && (
        <td className="osc-table__actions">
          {editable ? (
            <span className="osc-row">
              <Button {...editor.editButton}>Edit</Button>
              <span ref={editor.removalHolder}>
                <ConfirmButton
                  confirmLabel={`Delete role ${role.role}?`}
                  busy={remove.isPending}
                  onConfirm={() => remove.mutate({ organization_id: organizationId, role: role.role })}
                >
                  Delete
                </ConfirmButton>
              </span>
            </span>
          ) : (
            <span className="osc-muted">Read-only</span>
          )}
        </td>
      )}
    </EditableRow>
  );
}

/** The problems the service named in a role's permissions: the list's own, then each name's. */
function permissionProblems(fields: Record<string, string>, sent: readonly string[] | undefined): string[] {
  const problems = fields.permissions ? [fields.permissions] : [];
  for (const [field, problem] of Object.entries(fields)) {
    const index = /^permissions\.(\d+)$/.exec(field)?.[1];
    if (index !== undefined) problems.push(`${sent?.[Number(index)] ?? field}: ${problem}`);
  }
  return problems;
}

/**
 * The permissions a role holds, a checkbox each with its description. The owners' own are shown
 * but cannot be chosen (no role may hold them); a permission the role holds that the catalogue no
 * longer has is shown too, so that it can be taken away.
 */
function PermissionsFieldset({
  catalogue,
  selected,
  onChange,
  problems,
}: {
  catalogue: Catalogue;
  selected: ReadonlySet<string>;
  onChange: (selected: Set<string>) => void;
  problems: readonly string[];
}) {
  const problemsId = useId();
  const known = new Set(catalogue.map((entry) => entry.permission));
  const entries = [
    ...catalogue,
    ...[...selected]
      .filter((permission) => !known.has(permission))
      .map((permission) => ({ permission, description: 'No longer declared by the service.', owners_only: false })),
  ];
  const toggle = (permission: string, checked: boolean) => {
    const next = new Set(selected);
    if (checked) next.add(permission);
    else next.delete(permission);
    onChange(next);
  };
  return (
    <div>
      <fieldset className="osc-permissions" aria-describedby={problems.length ? problemsId : undefined}>
        <legend>Permissions</legend>
        {entries.map((entry) => (
          <Checkbox
            key={entry.permission}
            label={<span className="osc-mono">{entry.permission}</span>}
            hint={
              entry.owners_only ? (
                <>
                  {entry.description} <Badge tone="warning">owners only</Badge>
                </>
              ) : (
                entry.description
              )
            }
            checked={selected.has(entry.permission)}
            disabled={entry.owners_only}
            onChange={(event) => toggle(entry.permission, event.target.checked)}
          />
        ))}
      </fieldset>
      {/* Under the fieldset rather than in its grid of checkboxes. */}
      {problems.length > 0 && (
        <div id={problemsId}>
          {problems.map((problem) => (
            <p key={problem} className="osc-field__error">
              {problem}
            </p>
          ))}
        </div>
      )}
    </div>
  );
}

/** What the create and edit forms send of a role, but its name. */
interface RoleDraft {
  description: string;
  permissions: ReadonlySet<string>;
}

/** A draft as the service takes it: the chosen permissions in the catalogue's order, then any it no longer has. */
const roleInput = (catalogue: Catalogue, { description, permissions }: RoleDraft) => {
  const known = catalogue.map((entry) => entry.permission);
  return {
    description,
    permissions: [
      ...known.filter((permission) => permissions.has(permission)),
      ...[...permissions].filter((permission) => !known.includes(permission)),
    ],
  };
};

/**
 * A role's description and permissions with the service's problems with them (`error`, about the
 * `submitted` permissions).
 */
function RoleFields({
  catalogue,
  draft,
  onChange,
  error,
  submitted,
  descriptionHint,
  autoFocus,
}: {
  catalogue: Catalogue;
  draft: RoleDraft;
  onChange: (draft: RoleDraft) => void;
  error: unknown;
  submitted: readonly string[] | undefined;
  descriptionHint?: string;
  /** The description takes the focus as the form appears. */
  autoFocus?: boolean;
}) {
  const field = draftFields(draft, onChange, error);
  return (
    <>
      <TextAreaField label="Description" hint={descriptionHint} autoFocus={autoFocus} {...field('description')} />
      <PermissionsFieldset
        catalogue={catalogue}
        selected={draft.permissions}
        onChange={(permissions) => onChange({ ...draft, permissions })}
        problems={permissionProblems(errorView(error).fields, submitted)}
      />
    </>
  );
}

function CreateRoleForm({ organizationId, catalogue }: { organizationId: string; catalogue: Catalogue }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const empty: RoleDraft = { description: '', permissions: new Set() };
  const [name, setName] = useState('');
  const [draft, setDraft] = useState(empty);
  const [created, setCreated] = useState<string>();
  const create = useMutation(
    trpc.roles.create.mutationOptions({
      onSuccess: async (role) => {
        await queryClient.invalidateQueries({ queryKey: trpc.roles.pathKey() });
        setName('');
        setDraft(empty);
        setCreated(role.role);
      },
    }),
  );
  const submit = useFocusAfter(create.status, ['success', 'error']);
  return (
    <div className="osc-stack">
      {created !== undefined && create.isSuccess && <Notice tone="success">Role {created} created.</Notice>}
      <ErrorNotice error={create.error} />
      <Form
        label="Create a role"
        onSubmit={() => create.mutate({ organization_id: organizationId, role: name, ...roleInput(catalogue, draft) })}
      >
        <TextField
          label="Role name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={errorView(create.error).fields.role}
          hint="A lower-case letter, then up to 63 lower-case letters, digits, _ and -."
          autoComplete="off"
          spellCheck={false}
        />
        <RoleFields
          catalogue={catalogue}
          draft={draft}
          onChange={setDraft}
          error={create.error}
          submitted={create.variables?.permissions}
          descriptionHint="Optional: what the role is for."
        />
        <FormActions submit="Create role" busy={create.isPending} submitRef={submit} />
      </Form>
    </div>
  );
}

function EditRoleForm({
  organizationId,
  role,
  catalogue,
  onClose,
}: {
  organizationId: string;
  role: Role;
  catalogue: Catalogue;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<RoleDraft>(() => ({
    description: role.description,
    permissions: new Set(role.permissions),
  }));
  const update = useMutation(
    trpc.roles.update.mutationOptions({
      onSuccess: async () => {
        // The caller's own permissions change with a role they hold.
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.roles.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.permissions.mine.pathKey() }),
        ]);
        onClose();
      },
    }),
  );
  return (
    <EditorForm
      label={`Edit role ${role.role}`}
      saving={update}
      onClose={onClose}
      onSubmit={() =>
        update.mutate({ organization_id: organizationId, role: role.role, ...roleInput(catalogue, draft) })
      }
    >
      <RoleFields
        catalogue={catalogue}
        draft={draft}
        onChange={setDraft}
        error={update.error}
        submitted={update.variables?.permissions}
        autoFocus
      />
    </EditorForm>
  );
}
