import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { Button, ErrorNotice, FocusedNotice, QueryList, Section, Table, Time } from '../ui/index.ts';
import { JoinRequestStatus } from './JoinRequestStatus.tsx';

/** The caller's own join requests (behaviour §17), each pending one with Withdraw. */
export function MyJoinRequests() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const requests = useQuery(trpc.joining.mine.queryOptions());
  const [notice, setNotice] = useState<string>();
  const withdraw = useMutation(
    trpc.joining.withdraw.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.joining.pathKey() }),
    }),
  );

  return (
    <Section title="Your join requests">
      <FocusedNotice>{notice}</FocusedNotice>
      <ErrorNotice error={withdraw.error} />
      <QueryList
        query={requests}
        items={requests.data}
        loading="Loading your join requests…"
        empty="You have not asked to join an organization."
      >
        {(rows) => (
          <Table label="Your join requests" columns={['Organization', 'Status', 'Asked']} actions>
            {rows.map((request) => (
              <tr key={request.request_id}>
                <th scope="row">{request.organization_name}</th>
                <td data-label="Status">
                  <JoinRequestStatus status={request.status} />
                </td>
                <td data-label="Asked">
                  <Time value={request.created_at} />
                </td>
                <td className="osc-table__actions">
                  {request.status === 'pending' && (
                    <Button
                      busy={withdraw.isPending && withdraw.variables?.request_id === request.request_id}
                      onClick={() => {
                        setNotice(undefined);
                        withdraw.mutate(
                          { request_id: request.request_id },
                          {
                            onSuccess: () =>
                              setNotice(`Your request to join ${request.organization_name} was withdrawn.`),
                          },
                        );
                      }}
                    >
                      Withdraw
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryList>
    </Section>
  );
}
