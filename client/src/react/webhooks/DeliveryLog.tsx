import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTRPC } from '../service.tsx';
import { Badge, Button, ErrorNotice, FocusedNotice, QueryList, Section, Table, Time } from '../ui/index.ts';
import { DeliveryDetails } from './DeliveryDetails.tsx';
import { ReceiverAnswer } from './ReceiverAnswer.tsx';
import type { Delivery, Webhook } from './webhook.ts';

/** Deliveries read a page at a time. */
const DELIVERIES_PAGE = 50;

const STATUS_TONES = { pending: 'warning', succeeded: 'success', failed: 'danger' } as const;

/** An endpoint's deliveries, newest first, a page at a time, each with what it sent, and a retry for a failed one. */
export function DeliveryLog({
  organizationId,
  webhook,
  onClose,
}: {
  organizationId: string;
  webhook: Webhook;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { organization_id: organizationId, webhook_id: webhook.webhook_id, limit: DELIVERIES_PAGE };
  const deliveries = useInfiniteQuery(
    trpc.webhooks.deliveriesPage.infiniteQueryOptions(input, { getNextPageParam: (page) => page.nextCursor }),
  );
  const [notice, setNotice] = useState<string>();
  const retry = useMutation(
    trpc.webhooks.retryDelivery.mutationOptions({
      onSuccess: async (delivery) => {
        setNotice(`Delivery of ${delivery.event_type} retried: it is pending, due now.`);
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveriesPage.pathKey() });
      },
    }),
  );
  const table = useRef<HTMLDivElement>(null);
  const items: Delivery[] = deliveries.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <Section
      title="Deliveries"
      description={
        <>
          To <span className="osc-mono">{webhook.url}</span>, newest first.
        </>
      }
      actions={
        <>
          <Button
            busy={deliveries.isFetching && !deliveries.isFetchingNextPage}
            onClick={() => {
              setNotice(undefined);
              void deliveries.refetch();
            }}
          >
            Refresh
          </Button>
          <Button variant="ghost" onClick={onClose}>
            Close
          </Button>
        </>
      }
    >
      {notice && <FocusedNotice>{notice}</FocusedNotice>}
      <ErrorNotice error={retry.error} />
      <div ref={table} tabIndex={-1}>
        <QueryList
          query={deliveries}
          items={items}
          loading="Loading deliveries…"
          empty="Nothing has been sent to this endpoint yet."
        >
          {(rows) => (
            <Table
              label={`Deliveries to ${webhook.url}`}
              columns={[
                'Status',
                'Event type',
                'Attempts',
                "Receiver's answer",
                'Created',
                'Last change',
                'Next attempt',
              ]}
              actions
            >
              {rows.map((delivery) => (
                <tr key={delivery.delivery_id}>
                  <td data-label="Status">
                    <Badge tone={STATUS_TONES[delivery.status]}>{delivery.status}</Badge>
                  </td>
                  <td data-label="Event type">
                    <span className="osc-mono">{delivery.event_type}</span>
                    <DeliveryDetails delivery={delivery} />
                  </td>
                  <td data-label="Attempts">{delivery.attempts}</td>
                  <td data-label="Receiver's answer">
                    <ReceiverAnswer delivery={delivery} />
                  </td>
                  <td data-label="Created">
                    <Time value={delivery.created_at} />
                  </td>
                  <td data-label="Last change">
                    <Time value={delivery.updated_at} />
                  </td>
                  <td data-label="Next attempt">
                    {delivery.next_attempt_at ? (
                      <Time value={delivery.next_attempt_at} />
                    ) : (
                      <span className="osc-muted">None</span>
                    )}
                  </td>
                  <td className="osc-table__actions">
                    {delivery.status === 'failed' && (
                      <Button
                        busy={retry.isPending && retry.variables.delivery_id === delivery.delivery_id}
                        onClick={() => {
                          setNotice(undefined);
                          retry.mutate({
                            organization_id: organizationId,
                            webhook_id: webhook.webhook_id,
                            delivery_id: delivery.delivery_id,
                          });
                        }}
                      >
                        Retry
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </QueryList>
      </div>
      {deliveries.hasNextPage && (
        <div className="osc-pager">
          <Button
            busy={deliveries.isFetchingNextPage}
            onClick={() =>
              // The button goes with the last page: the focus then goes to the log.
              void deliveries.fetchNextPage().then((result) => result.hasNextPage || table.current?.focus())
            }
          >
            Load more deliveries
          </Button>
        </div>
      )}
    </Section>
  );
}
