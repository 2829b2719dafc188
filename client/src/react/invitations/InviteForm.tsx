import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { fromLocalInput } from '../local-time.ts';
import { usePermissions, type Permissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { Busy, ErrorNotice, Form, FormActions, Notice, Section, SelectField, TextField } from '../ui/index.ts';

export interface InviteFormProps {
  organizationId: string;
  /** Called after an invitation was sent. */
  onInvited?: () => void;
}

/**
 * Invites an e-mail address with a role the caller could give and an optional membership expiry
 * (behaviour §8, §11); nothing for a caller without `invitations:create`.
 */
export function InviteForm(props: InviteFormProps) {
  const permissions = usePermissions(props.organizationId);
  if (!permissions.can('invitations:create')) return null;
  return <InviteFormOf key={props.organizationId} {...props} permissions={permissions} />;
}

function InviteFormOf({ organizationId, onInvited, permissions }: InviteFormProps & { permissions: Permissions }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('');
  const [expiry, setExpiry] = useState('');
  const [sent, setSent] = useState<string>();
  const create = useMutation(
    trpc.invitations.create.mutationOptions({
      onSuccess: async (invitation) => {
        setSent(`Invitation sent to ${invitation.email} as ${invitation.role}.`);
        setEmail('');
        setExpiry('');
        await queryClient.invalidateQueries({
          queryKey: trpc.invitations.list.queryKey({ organization_id: organizationId }),
        });
        onInvited?.();
      },
    }),
  );
  const fields = errorView(create.error).fields;

  // Nobody grants what they do not hold (behaviour §11): only the roles the caller could give.
  const grantable = (roles.data ?? []).filter((candidate) => candidate.permissions.every(permissions.can));
  const defaultRole = grantable.find((candidate) => candidate.role === 'member') ?? grantable[0];
  const chosenRole = grantable.find((candidate) => candidate.role === role) ?? defaultRole;

  return (
    <Section title="Invite someone" description="They join when they accept, with the role you choose.">
      <Form
        busy={create.isPending}
        label="Invite someone"
        onSubmit={() => {
          setSent(undefined);
          create.mutate({
            organization_id: organizationId,
            email,
            role: chosenRole?.role ?? '',
            expires_at: expiry ? fromLocalInput(expiry) : undefined,
          });
        }}
      >
        {sent && <Notice tone="success">{sent}</Notice>}
        <ErrorNotice error={create.error} />
        <TextField
          label="Email"
          type="email"
          autoComplete="off"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fields.email}
        />
        {roles.isPending ? (
          <Busy label="Loading roles…" />
        ) : roles.isError ? (
          <ErrorNotice error={roles.error} />
        ) : (
          <SelectField
            label="Role"
            value={chosenRole?.role ?? ''}
            options={grantable.map((candidate) => ({ value: candidate.role, label: candidate.role }))}
            onChange={(event) => setRole(event.target.value)}
            hint={chosenRole?.description || undefined}
            error={fields.role}
          />
        )}
        <TextField
          label="Membership expires"
          type="datetime-local"
          value={expiry}
          onChange={(event) => setExpiry(event.target.value)}
          hint="Optional, in your local time. Leave it empty for a membership that does not expire."
          error={fields.expires_at}
        />
        <FormActions submit="Send invitation" />
      </Form>
    </Section>
  );
}
