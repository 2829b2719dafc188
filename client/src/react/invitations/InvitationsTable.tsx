import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { ConfirmButton, ErrorNotice, FocusedNotice, QueryList, Section, Table, Time } from '../ui/index.ts';
import { StatusBadge } from './StatusBadge.tsx';

export interface InvitationsTableProps {
  organizationId: string;
}

/** The organization's invitations, each pending one with Revoke for `invitations:revoke`; nothing without `invitations:read`. */
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
                <td data-label="Role">{invitation.role}</td>
                <td data-label="Status">
                  <StatusBadge status={invitation.status} />
                </td>
                <td data-label="Sent">
                  <Time value={invitation.created_at} />
                </td>
                <td data-label="Invitation expires">
                  <Time value={invitation.expires_at} />
                </td>
                <td data-label="Membership ends">
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
