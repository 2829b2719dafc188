/**
 * An organization's join requests (behaviour §17), for those holding members:add (nothing is shown
 * to others): oldest first with their status, each pending one with Approve (an optional role) and
 * Reject.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useMembershipsChanged } from '../members/useMembershipsChanged.ts';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, FocusedNotice, QueryList, Section, Table, Time } from '../ui/index.ts';
import { JoinRequestActions } from './JoinRequestActions.tsx';
import { JoinRequestStatus } from './JoinRequestStatus.tsx';

export interface JoinRequestsPanelProps {
  organizationId: string;
}

export function JoinRequestsPanel(props: JoinRequestsPanelProps) {
  const { can } = usePermissions(props.organizationId);
  if (!can('members:add')) return null;
  return <JoinRequestsOf key={props.organizationId} {...props} />;
}

function JoinRequestsOf({ organizationId }: JoinRequestsPanelProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const requests = useQuery(trpc.joining.requests.queryOptions({ organization_id: organizationId }));
  const [notice, setNotice] = useState<string>();
  const membershipsChanged = useMembershipsChanged(organizationId);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.joining.pathKey() }),
      // Approving makes a membership.
      membershipsChanged(),
    ]);
  const approve = useMutation(trpc.joining.approve.mutationOptions({ onSuccess: refresh }));
  const reject = useMutation(trpc.joining.reject.mutationOptions({ onSuccess: refresh }));
  const answering = () => {
    setNotice(undefined);
    approve.reset();
    reject.reset();
  };

  return (
    <Section
      title="Join requests"
      description="People who asked to join by their verified e-mail address, oldest first."
    >
      <FocusedNotice>{notice}</FocusedNotice>
      <ErrorNotice error={approve.error ?? reject.error} />
      <QueryList
        query={requests}
        items={requests.data}
        loading="Loading join requests…"
        empty="No one has asked to join."
      >
        {(rows) => (
          <Table label="Join requests" columns={['Name', 'Email', 'Status', 'Asked']} actions>
            {rows.map((request) => {
              const name = `${request.first_name} ${request.last_name}`;
              const ids = { organization_id: organizationId, request_id: request.request_id };
              return (
                <tr key={request.request_id}>
                  <th scope="row">{name}</th>
                  <td data-label="Email" className="osc-wrap">
                    {request.email}
                  </td>
                  <td data-label="Status">
                    <JoinRequestStatus status={request.status} />
                  </td>
                  <td data-label="Asked">
                    <Time value={request.created_at} />
                  </td>
                  <td className="osc-table__actions">
                    {request.status === 'pending' && (
                      <JoinRequestActions
                        organizationId={organizationId}
                        request={request}
                        approving={approve.isPending && approve.variables?.request_id === request.request_id}
                        rejecting={reject.isPending && reject.variables?.request_id === request.request_id}
                        onApprove={(role) => {
                          answering();
                          approve.mutate(
                            { ...ids, ...(role && { role }) },
                            { onSuccess: (member) => setNotice(`${name} joined as ${member.role}.`) },
                          );
                        }}
                        onReject={() => {
                          answering();
                          reject.mutate(ids, { onSuccess: () => setNotice(`The request of ${name} was rejected.`) });
                        }}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </Table>
        )}
      </QueryList>
    </Section>
  );
}
