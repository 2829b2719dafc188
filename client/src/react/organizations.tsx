/**
 * Organizations (behaviour §4.2, §8): choosing one of the caller's, creating one, and one
 * organization's settings — its details for any member; renaming, handing ownership over and
 * deleting for those whose permissions allow it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RouterOutputs } from '../index.ts';
import { errorView } from './errors.ts';
import { usePermissions } from './permissions.ts';
import { inOrganization, keyedByOrganization, useTRPC } from './service.tsx';
import {
  Badge,
  Busy,
  Button,
  ConfirmButton,
  EmptyState,
  ErrorNotice,
  FocusedNotice,
  Form,
  Notice,
  Section,
  SelectField,
  TextAreaField,
  TextField,
  Time,
  type Option,
} from './ui.tsx';

type OrganizationDetails = RouterOutputs['organizations']['get'];

export interface OrganizationSwitcherProps {
  /** The chosen organization's id, if any. */
  value: string | undefined;
  onChange: (organizationId: string) => void;
  /** The select's label; "Organization" by default. */
  label?: string;
}

/** A select over the organizations the caller belongs to. */
export function OrganizationSwitcher({ value, onChange, label = 'Organization' }: OrganizationSwitcherProps) {
  const trpc = useTRPC();
  const organizations = useQuery(trpc.organizations.list.queryOptions(undefined));
  if (organizations.isPending) return <Busy label="Loading organizations…" />;
  if (organizations.isError) return <ErrorNotice error={organizations.error} />;
  if (organizations.data.length === 0) return <EmptyState>You do not belong to any organization yet.</EmptyState>;

  // Names need not be unique (behaviour §4.2): a shared name is told apart by the id.
  const names = organizations.data.map((organization) => organization.name);
  const options: Option[] = organizations.data.map(({ id, name }) => ({
    value: id,
    label: names.indexOf(name) === names.lastIndexOf(name) ? name : `${name} (${id})`,
  }));
  const chosen = options.some((option) => option.value === value);
  return (
    <SelectField
      label={label}
      value={chosen ? value : ''}
      options={chosen ? options : [{ value: '', label: 'Choose an organization' }, ...options]}
      onChange={(event) => event.target.value && onChange(event.target.value)}
    />
  );
}

export interface CreateOrganizationFormProps {
  /** Called with the new organization's id; the caller is its owner. */
  onCreated?: (organizationId: string) => void;
}

export function CreateOrganizationForm({ onCreated }: CreateOrganizationFormProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [created, setCreated] = useState<string>();
  const create = useMutation(
    trpc.organizations.create.mutationOptions({
      onSuccess: async (membership, input) => {
        setCreated(`Organization “${input.organization_name.trim()}” created. You are its owner.`);
        setName('');
        setDescription('');
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
        onCreated?.(membership.organization_id);
      },
    }),
  );
  const fields = errorView(create.error).fields;

  return (
    <Section title="New organization">
      <Form
        label="New organization"
        onSubmit={() => {
          setCreated(undefined);
          create.mutate({ organization_name: name, organization_description: description });
        }}
      >
        {created && <Notice tone="success">{created}</Notice>}
        <ErrorNotice error={create.error} />
        <TextField
          label="Organization name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={fields.organization_name}
        />
        <TextAreaField
          label="Description"
          hint="Optional, up to 1000 characters."
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          error={fields.organization_description}
        />
        <div className="osc-form__actions">
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create organization
          </Button>
        </div>
      </Form>
    </Section>
  );
}

export interface OrganizationSettingsProps {
  organizationId: string;
  /** Called once the organization is deleted, to leave its page. */
  onDeleted?: () => void;
}

export function OrganizationSettings(props: OrganizationSettingsProps) {
  // Another organization starts afresh: no notice or half-typed name of the last one.
  return <SettingsOf key={props.organizationId} {...props} />;
}

function SettingsOf({ organizationId, onDeleted }: OrganizationSettingsProps) {
  const trpc = useTRPC();
  const permissions = usePermissions(organizationId);
  const [deleted, setDeleted] = useState(false);
  // A deleted organization is not read again: it would only answer 403.
  const organization = useQuery(
    trpc.organizations.get.queryOptions({ organization_id: organizationId }, { enabled: !deleted }),
  );
  // Said where the focus goes when the control it was on has gone (ownership handed over, deleted).
  const [notice, setNotice] = useState<string>();
  const shownNotice = <FocusedNotice>{notice}</FocusedNotice>;

  if (deleted) return <Section title="Organization">{shownNotice}</Section>;
  if (organization.isPending) {
    return (
      <Section title="Organization">
        <Busy label="Loading the organization…" />
      </Section>
    );
  }
  if (organization.isError) {
    return (
      <Section title="Organization">
        <ErrorNotice error={organization.error} />
      </Section>
    );
  }
  const details = organization.data;
  return (
    <>
      <Section title="Organization">
        {shownNotice}
        <OrganizationDetailsTable details={details} />
      </Section>
      {permissions.can('organization:update') && <EditOrganization details={details} />}
      {permissions.can('ownership:transfer') && (
        <TransferOwnership
          organizationId={organizationId}
          callerId={permissions.userId}
          onTransferred={(newOwner) => setNotice(`${newOwner} is now the owner. You are an admin.`)}
        />
      )}
      {permissions.can('organization:delete') && (
        <DeleteOrganization
          details={details}
          onDeleted={() => {
            setDeleted(true);
            setNotice(`Organization “${details.organization_name}” deleted.`);
            onDeleted?.();
          }}
        />
      )}
    </>
  );
}

function OrganizationDetailsTable({ details }: { details: OrganizationDetails }) {
  return (
    <div className="osc-table-scroll">
      <table className="osc-table" aria-label="Organization details">
        <tbody>
          <tr>
            <th scope="row">Name</th>
            <td>{details.organization_name}</td>
          </tr>
          <tr>
            <th scope="row">Description</th>
            <td className="osc-pre-wrap">
              {details.organization_description || <span className="osc-muted">No description</span>}
            </td>
          </tr>
          <tr>
            <th scope="row">Your role</th>
            <td>
              <Badge tone="accent">{details.role}</Badge>
            </td>
          </tr>
          <tr>
            <th scope="row">Members</th>
            <td>{details.member_count}</td>
          </tr>
          <tr>
            <th scope="row">Created</th>
            <td>
              <Time value={details.created_at} />
            </td>
          </tr>
          <tr>
            <th scope="row">Last changed</th>
            <td>
              <Time value={details.updated_at} />
            </td>
          </tr>
          <tr>
            <th scope="row">Id</th>
            <td className="osc-mono">{details.organization_id}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

function EditOrganization({ details }: { details: OrganizationDetails }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(details.organization_name);
  const [description, setDescription] = useState(details.organization_description);
  const [saved, setSaved] = useState(false);
  const update = useMutation(
    trpc.organizations.update.mutationOptions({
      onSuccess: async (updated) => {
        // The service's own text (a trimmed name) replaces what was typed.
        setName(updated.organization_name);
        setDescription(updated.organization_description);
        setSaved(true);
        queryClient.setQueryData(
          trpc.organizations.get.queryKey({ organization_id: updated.organization_id }),
          updated,
        );
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
      },
    }),
  );
  const fields = errorView(update.error).fields;

  return (
    <Section title="Edit organization">
      <Form
        label="Edit organization"
        onSubmit={() => {
          setSaved(false);
          update.mutate({
            organization_id: details.organization_id,
            organization_name: name,
            organization_description: description,
          });
        }}
      >
        {saved && <Notice tone="success">Organization saved.</Notice>}
        <ErrorNotice error={update.error} />
        <TextField
          label="Organization name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={fields.organization_name}
        />
        <TextAreaField
          label="Description"
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          error={fields.organization_description}
        />
        <div className="osc-form__actions">
          <Button type="submit" variant="primary" busy={update.isPending}>
            Save changes
          </Button>
        </div>
      </Form>
    </Section>
  );
}

function TransferOwnership({
  organizationId,
  callerId,
  onTransferred,
}: {
  organizationId: string;
  callerId: string | undefined;
  onTransferred: (newOwner: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const members = useQuery(
    keyedByOrganization(trpc.members.list.queryOptions(undefined, inOrganization(organizationId)), organizationId),
  );
  const [userId, setUserId] = useState('');
  const candidates = (members.data ?? [])
    .filter((member) => member.user_id !== callerId)
    .map((member) => ({ userId: member.user_id, name: `${member.first_name} ${member.last_name}`, member }));
  const chosen = candidates.find((candidate) => candidate.userId === userId);
  const transfer = useMutation(
    trpc.organizations.transferOwnership.mutationOptions({
      onSuccess: async () => {
        onTransferred(chosen?.name ?? userId);
        // The caller's role, permissions and the member list all change.
        await Promise.all(
          [trpc.organizations, trpc.members, trpc.permissions].map((procedures) =>
            queryClient.invalidateQueries({ queryKey: procedures.pathKey() }),
          ),
        );
      },
    }),
  );

  return (
    <Section title="Transfer ownership" description="The member you choose becomes the owner, and you become an admin.">
      {members.isPending ? (
        <Busy label="Loading members…" />
      ) : members.isError ? (
        <ErrorNotice error={members.error} />
      ) : candidates.length === 0 ? (
        <EmptyState>There is no other member to hand ownership to. Invite someone first.</EmptyState>
      ) : (
        <div className="osc-stack">
          <ErrorNotice error={transfer.error} />
          <SelectField
            label="New owner"
            value={userId}
            options={[
              { value: '', label: 'Choose a member' },
              ...candidates.map((candidate) => ({
                value: candidate.userId,
                label: `${candidate.name} (${candidate.member.email}), ${candidate.member.role}`,
              })),
            ]}
            onChange={(event) => setUserId(event.target.value)}
            error={errorView(transfer.error).fields.user_id}
          />
          <div className="osc-row">
            <ConfirmButton
              confirmLabel={chosen ? `Make ${chosen.name} the owner?` : 'Transfer ownership?'}
              busy={transfer.isPending}
              disabled={!chosen}
              onConfirm={() => transfer.mutate({ organization_id: organizationId, user_id: userId })}
            >
              Transfer ownership
            </ConfirmButton>
          </div>
        </div>
      )}
    </Section>
  );
}

function DeleteOrganization({ details, onDeleted }: { details: OrganizationDetails; onDeleted: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.organizations.remove.mutationOptions({
      onSuccess: async () => {
        // Dropped before the lists are refreshed, so that it is not read again (it would answer 403).
        queryClient.removeQueries({
          queryKey: trpc.organizations.get.queryKey({ organization_id: details.organization_id }),
        });
        onDeleted();
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
      },
    }),
  );

  return (
    <Section
      title="Delete organization"
      description="Deletes the organization with its memberships, invitations, teams and webhook endpoints. This cannot be undone."
    >
      <ErrorNotice error={remove.error} />
      <ConfirmButton
        confirmLabel={`Delete “${details.organization_name}” for good?`}
        busy={remove.isPending}
        onConfirm={() => remove.mutate({ organization_id: details.organization_id })}
      >
        Delete organization
      </ConfirmButton>
    </Section>
  );
}
