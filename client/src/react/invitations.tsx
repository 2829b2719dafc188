/**
 * Invitations (behaviour §8): the organization's side — inviting an e-mail address with a role and
 * an optional membership expiry (§11), listing and revoking its invitations — and the invitee's
 * side, their own pending invitations to accept or decline.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ComponentProps } from 'react';
import type { RouterOutputs } from '../index.ts';
import { errorView } from './errors.ts';
import { usePermissions, type Permissions } from './permissions.ts';
import { useTRPC } from './service.tsx';
import {
  Badge,
  Busy,
  Button,
  ConfirmButton,
  EmptyState,
  ErrorNotice,
  FocusedNotice,
  Form,
  FormActions,
  Notice,
  QueryList,
  Section,
  SelectField,
  Table,
  TextField,
  Time,
} from './ui.tsx';

type Invitation = RouterOutputs['invitations']['list'][number];

const STATUS_TONES: Record<Invitation['status'], ComponentProps<typeof Badge>['tone']> = {
  pending: 'warning',
  accepted: 'success',
  declined: 'neutral',
  revoked: 'danger',
};

const StatusBadge = ({ status }: { status: Invitation['status'] }) => (
  <Badge tone={STATUS_TONES[status]}>{status}</Badge>
);

/**
 * A `datetime-local` value (the reader's own time) as ISO 8601 UTC. Text that is no date (a browser
 * without the picker) goes as it was typed, for the service to say what is wrong with it.
 */
function localToIsoUtc(local: string): string {
  const instant = new Date(local);
  return Number.isNaN(instant.getTime()) ? local : instant.toISOString();
}

export interface InviteFormProps {
  organizationId: string;
  /** Called after an invitation was sent. */
  onInvited?: () => void;
}

/** Nothing for a caller without `invitations:create`. */
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
        label="Invite someone"
        onSubmit={() => {
          setSent(undefined);
          create.mutate({
            organization_id: organizationId,
            email,
            role: chosenRole?.role ?? '',
            expires_at: expiry ? localToIsoUtc(expiry) : undefined,
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
        <FormActions submit="Send invitation" busy={create.isPending} />
      </Form>
    </Section>
  );
}

export interface InvitationsTableProps {
  organizationId: string;
}

/** Nothing for a caller without `invitations:read`. */
export function InvitationsTable({ organizationId }: InvitationsTableProps) {
  const permissions = usePermissions(organizationId);
  if (!permissions.can('invitations:read')) return null;
  return (
    <InvitationsOf
      key={organizationId}
      organizationId={organizationId}
      canRevoke={permissions.can('invitations:revoke')}
    />
  );
}

function InvitationsOf({ organizationId, canRevoke }: { organizationId: string; canRevoke: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invitations = useQuery(trpc.invitations.list.queryOptions({ organization_id: organizationId }));
  const [revoked, setRevoked] = useState<string>();
  const revoke = useMutation(
    trpc.invitations.revoke.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({
          queryKey: trpc.invitations.list.queryKey({ organization_id: organizationId }),
        });
      },
    }),
  );

  return (
    <Section title="Invitations" description="Pending invitations that have not expired.">
      <FocusedNotice>{revoked}</FocusedNotice>
      <ErrorNotice error={revoke.error} />
      <QueryList
        query={invitations}
        items={invitations.data}
        loading="Loading invitations…"
        empty="No pending invitations."
      >
        {(rows) => (
          <Table
            label="Invitations"
            columns={['Email', 'Role', 'Status', 'Sent', 'Invitation expires', 'Membership ends']}
            actions={canRevoke}
          >
            {rows.map((invitation) => (
              <tr key={invitation.invitation_id}>
                <th scope="row">{invitation.email}</th>
                <td>{invitation.role}</td>
                <td>
                  <StatusBadge status={invitation.status} />
                </td>
                <td>
                  <Time value={invitation.created_at} />
                </td>
                <td>
                  <Time value={invitation.expires_at} />
                </td>
                <td>
                  <Time value={invitation.membership_expires_at} />
                </td>
                {canRevoke && (
                  <td className="osc-table__actions">
                    {invitation.status === 'pending' && (
                      <ConfirmButton
                        confirmLabel={`Revoke the invitation to ${invitation.email}?`}
                        busy={revoke.isPending && revoke.variables?.invitation_id === invitation.invitation_id}
                        onConfirm={() => {
                          setRevoked(undefined);
                          revoke.mutate(
                            { organization_id: organizationId, invitation_id: invitation.invitation_id },
                            { onSuccess: () => setRevoked(`Invitation to ${invitation.email} revoked.`) },
                          );
                        }}
                      >
                        Revoke
                      </ConfirmButton>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </Table>
        )}
      </QueryList>
    </Section>
  );
}

/** `invitations.mine` answers 404 while the caller has no profile: an answer, not a failure to ask again. */
const retryUnlessMissing = (failureCount: number, error: unknown) =>
  errorView(error).status !== 404 && failureCount < 3;

/** The caller's own pending invitations, to accept or decline. */
export function MyInvitations() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invitations = useQuery(trpc.invitations.mine.queryOptions(undefined, { retry: retryUnlessMissing }));
  const [answered, setAnswered] = useState<string>();
  const refresh = (organizations: boolean) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.invitations.mine.queryKey() }),
      // Accepting makes a membership: the caller's organizations change.
      organizations && queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() }),
    ]);
  const accept = useMutation(trpc.invitations.accept.mutationOptions({ onSuccess: () => refresh(true) }));
  const decline = useMutation(trpc.invitations.decline.mutationOptions({ onSuccess: () => refresh(false) }));
  const answering = (invitation: Invitation) => {
    setAnswered(undefined);
    accept.reset();
    decline.reset();
    return { invitation_id: invitation.invitation_id };
  };
  const busyWith = (mutation: typeof accept | typeof decline, invitation: Invitation) =>
    mutation.isPending && mutation.variables?.invitation_id === invitation.invitation_id;

  return (
    <Section title="Your invitations">
      <FocusedNotice>{answered}</FocusedNotice>
      <ErrorNotice error={accept.error ?? decline.error} />
      {invitations.isPending ? (
        <Busy label="Loading your invitations…" />
      ) : invitations.isError ? (
        errorView(invitations.error).status === 404 ? (
          <Notice>Create your profile to see the invitations sent to your e-mail address.</Notice>
        ) : (
          <ErrorNotice error={invitations.error} />
        )
      ) : invitations.data.length === 0 ? (
        <EmptyState>You have no pending invitations.</EmptyState>
      ) : (
        <Table label="Your invitations" columns={['Organization', 'Role', 'Answer by', 'Membership ends']} actions>
          {invitations.data.map((invitation) => (
            <tr key={invitation.invitation_id}>
              <th scope="row">{invitation.organization_name}</th>
              <td>{invitation.role}</td>
              <td>
                <Time value={invitation.expires_at} />
              </td>
              <td>
                <Time value={invitation.membership_expires_at} />
              </td>
              <td className="osc-table__actions">
                <span className="osc-row">
                  <Button
                    variant="primary"
                    busy={busyWith(accept, invitation)}
                    onClick={() =>
                      accept.mutate(answering(invitation), {
                        onSuccess: () =>
                          setAnswered(`You joined ${invitation.organization_name} as ${invitation.role}.`),
                      })
                    }
                  >
                    Accept
                  </Button>
                  <Button
                    busy={busyWith(decline, invitation)}
                    onClick={() =>
                      decline.mutate(answering(invitation), {
                        onSuccess: () => setAnswered(`You declined the invitation to ${invitation.organization_name}.`),
                      })
                    }
                  >
                    Decline
                  </Button>
                </span>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Section>
  );
}
