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
  type Option,
} from './ui.tsx';

type OrganizationDetails = RouterOutputs['organizations']['get'];

/** What the create and edit forms send of an organization. */
interface OrganizationDraft {
  organization_name: string;
  organization_description: string;
}

const draftOf = ({ organization_name, organization_description }: OrganizationDraft): OrganizationDraft => ({
  organization_name,
  organization_description,
});

/** An organization's name and description, under the service's refusal (`error`). */
function OrganizationFields({
  draft,
  onChange,
  error,
  descriptionHint,
}: {
  draft: OrganizationDraft;
  onChange: (draft: OrganizationDraft) => void;
  error: unknown;
  descriptionHint?: string;
}) {
  const field = draftFields(draft, onChange, error);
  return (
    <>
      <ErrorNotice error={error} />
      <TextField label="Organization name" {...field('organization_name')} />
      <TextAreaField label="Description" hint={descriptionHint} {...field('organization_description')} />
    </>
  );
}

export interface OrganizationSwitcherProps {
  /** The chosen organization's id, if any. */
  value: string | undefined;
  onChange: (organizationId: string) => void;
  /** The select's label; "Organization" by default. */
  label?: string;
}

/** The organizations the caller belongs to (`organizations.list`): id, name, description, creator, creation time. */
export function useOrganizations() {
  const trpc = useTRPC();
  return useQuery(trpc.organizations.list.queryOptions(undefined));
}

/** A select over the organizations the caller belongs to. */
export function OrganizationSwitcher({ value, onChange, label = 'Organization' }: OrganizationSwitcherProps) {
  const organizations = useOrganizations();
  return (
    <QueryList
      query={organizations}
      items={organizations.data}
      loading="Loading organizations…"
      empty="You do not belong to any organization yet."
    >
      {(list) => {
        const options = organizationOptions(list);
        const chosen = options.some((option) => option.value === value);
        return (
          <SelectField
            label={label}
            value={chosen ? value : ''}
            options={chosen ? options : [{ value: '', label: 'Choose an organization' }, ...options]}
            onChange={(event) => event.target.value && onChange(event.target.value)}
          />
        );
      }}
    </QueryList>
  );
}

/** The switcher's options, one an organization: names need not be unique (behaviour §4.2), a shared one is told apart by the id. */
function organizationOptions(organizations: ReadonlyArray<{ id: string; name: string }>): Option[] {
  const names = organizations.map((organization) => organization.name);
  return organizations.map(({ id, name }) => ({
    value: id,
    label: names.indexOf(name) === names.lastIndexOf(name) ? name : `${name} (${id})`,
  }));
}

export interface CreateOrganizationFormProps {
  /** Called with the new organization's id; the caller is its owner. */
  onCreated?: (organizationId: string) => void;
}

export function CreateOrganizationForm({ onCreated }: CreateOrganizationFormProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const empty: OrganizationDraft = { organization_name: '', organization_description: '' };
  const [draft, setDraft] = useState(empty);
  const [created, setCreated] = useState<string>();
  const create = useMutation(
    trpc.organizations.create.mutationOptions({
      onSuccess: async (membership, input) => {
        setCreated(`Organization “${input.organization_name.trim()}” created. You are its owner.`);
        setDraft(empty);
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
        onCreated?.(membership.organization_id);
      },
    }),
  );

  return (
    <Section title="New organization">
      <Form
        label="New organization"
        onSubmit={() => {
          setCreated(undefined);
          create.mutate(draft);
        }}
      >
        {created && <Notice tone="success">{created}</Notice>}
        <OrganizationFields
          draft={draft}
          onChange={setDraft}
          error={create.error}
          descriptionHint="Optional, up to 1000 characters."
        />
        <FormActions submit="Create organization" busy={create.isPending} />
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
    <Table label="Organization details">
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
    </Table>
  );
}

function EditOrganization({ details }: { details: OrganizationDetails }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(details));
  const [saved, setSaved] = useState(false);
  const update = useMutation(
    trpc.organizations.update.mutationOptions({
      onSuccess: async (updated) => {
        // The service's own text (a trimmed name) replaces what was typed.
        setDraft(draftOf(updated));
        setSaved(true);
        queryClient.setQueryData(
          trpc.organizations.get.queryKey({ organization_id: updated.organization_id }),
          updated,
        );
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
      },
    }),
  );

  return (
    <Section title="Edit organization">
      <Form
        label="Edit organization"
        onSubmit={() => {
          setSaved(false);
          update.mutate({ organization_id: details.organization_id, ...draft });
        }}
      >
        {saved && <Notice tone="success">Organization saved.</Notice>}
        <OrganizationFields draft={draft} onChange={setDraft} error={update.error} />
        <FormActions submit="Save changes" busy={update.isPending} />
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
      <QueryList
        query={members}
        items={candidates}
        loading="Loading members…"
        empty="There is no other member to hand ownership to. Invite someone first."
      >
        {(rows) => (
          <div className="osc-stack">
            <ErrorNotice error={transfer.error} />
            <SelectField
              label="New owner"
              value={userId}
              options={[
                { value: '', label: 'Choose a member' },
                ...rows.map((candidate) => ({
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
      </QueryList>
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
