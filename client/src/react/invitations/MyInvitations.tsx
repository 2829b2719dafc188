import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RouterOutputs } from '../../index.ts';
import { errorView } from '../errors.ts';
import { useTRPC } from '../service.tsx';
import { Busy, Button, EmptyState, ErrorNotice, FocusedNotice, Notice, Section, Table, Time } from '../ui/index.ts';

type Invitation = RouterOutputs['invitations']['mine'][number];

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
              <td data-label="Role">{invitation.role}</td>
              <td data-label="Answer by">
                <Time value={invitation.expires_at} />
              </td>
              <td data-label="Membership ends">
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
