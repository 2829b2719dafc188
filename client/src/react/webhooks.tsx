/**
 * Webhooks (behaviour §13), for those holding webhooks:manage (nothing is shown to others): an
 * organization's endpoints, creating one, enabling and disabling, rotating the signing secret
 * (shown once, at creation and at each rotation), deleting, and an endpoint's delivery log with a
 * retry for a failed delivery.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
// The zod-free list (shared/events.ts would bring zod into the bundle).
import { EVENT_TYPES, type EventType } from '../../../shared/event-types.ts';
import type { RouterOutputs } from '../index.ts';
import { errorView } from './errors.ts';
import { usePermissions } from './permissions.ts';
import { useTRPC } from './service.tsx';
import {
  Badge,
  Button,
  Checkbox,
  ConfirmButton,
  ErrorNotice,
  FocusedNotice,
  Form,
  FormActions,
  Notice,
  QueryList,
  Section,
  Table,
  TextAreaField,
  TextField,
  Time,
  useRowPanel,
} from './ui.tsx';

type Webhook = RouterOutputs['webhooks']['list'][number];
type Delivery = RouterOutputs['webhooks']['deliveriesPage']['items'][number];

/** A signing secret the service has just answered: it is never readable again (behaviour §13). */
interface ShownSecret {
  url: string;
  secret: string;
  rotated: boolean;
}

/** Deliveries read a page at a time. */
const DELIVERIES_PAGE = 50;

export interface WebhooksPanelProps {
  organizationId: string;
}

export function WebhooksPanel(props: WebhooksPanelProps) {
  const { can } = usePermissions(props.organizationId);
  if (!can('webhooks:manage')) return null;
  // Another organization starts afresh: no secret, open log or notice of the last one.
  return <WebhooksOf key={props.organizationId} {...props} />;
}

function WebhooksOf({ organizationId }: WebhooksPanelProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const webhooks = useQuery(trpc.webhooks.list.queryOptions({ organization_id: organizationId }));
  const [secret, setSecret] = useState<ShownSecret>();
  const [notice, setNotice] = useState<string>();
  // An endpoint's delivery log opens under the table, from a button on its row.
  const logPanel = useRowPanel();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });

  const update = useMutation(trpc.webhooks.update.mutationOptions({ onSuccess: refresh }));
  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: ({ secret }, { webhook_id }) => {
        const webhook = webhooks.data?.find((each) => each.webhook_id === webhook_id);
        setSecret({ url: webhook?.url ?? webhook_id, secret, rotated: true });
      },
    }),
  );
  const remove = useMutation(
    trpc.webhooks.remove.mutationOptions({
      onSuccess: async (_, { webhook_id }) => {
        const webhook = webhooks.data?.find((each) => each.webhook_id === webhook_id);
        setNotice(`Endpoint ${webhook?.url ?? webhook_id} deleted, with its delivery log.`);
        logPanel.forget(webhook_id);
        await refresh();
      },
    }),
  );
  const busy = (mutation: { isPending: boolean; variables?: { webhook_id: string } }, webhook: Webhook) =>
    mutation.isPending && mutation.variables?.webhook_id === webhook.webhook_id;

  const endpoints = useRef<HTMLDivElement>(null);

  const logOf = webhooks.data?.find((webhook) => webhook.webhook_id === logPanel.openKey);

  return (
    <>
      <Section
        title="Webhook endpoints"
        description="The organization's events are sent to these URLs as they happen, signed with each endpoint's secret."
      >
        {secret && (
          <SecretNotice
            shown={secret}
            onDismiss={() => {
              setSecret(undefined);
              endpoints.current?.focus();
            }}
          />
        )}
        {notice && <FocusedNotice>{notice}</FocusedNotice>}
        <ErrorNotice error={update.error} />
        <ErrorNotice error={rotate.error} />
        <ErrorNotice error={remove.error} />
        <div ref={endpoints} tabIndex={-1}>
          <QueryList
            query={webhooks}
            items={webhooks.data}
            loading="Loading webhook endpoints…"
            empty="This organization has no webhook endpoints yet."
          >
            {(rows) => (
              <Table label="Webhook endpoints" columns={['URL', 'Events', 'Description', 'State', 'Created']} actions>
                {rows.map((webhook) => (
                  <tr key={webhook.webhook_id}>
                    <th scope="row" className="osc-mono">
                      {webhook.url}
                    </th>
                    <td>
                      {webhook.event_types.includes('*') ? (
                        'All events'
                      ) : (
                        <span className="osc-row">
                          {webhook.event_types.map((type) => (
                            <Badge key={type}>{type}</Badge>
                          ))}
                        </span>
                      )}
                    </td>
                    <td className="osc-pre-wrap">
                      {webhook.description || <span className="osc-muted">No description</span>}
                    </td>
                    <td>
                      <Badge tone={webhook.enabled ? 'success' : 'warning'}>
                        {webhook.enabled ? 'Enabled' : 'Disabled'}
                      </Badge>
                      {webhook.disabled_reason && <div className="osc-muted">{webhook.disabled_reason}</div>}
                    </td>
                    <td>
                      <Time value={webhook.created_at} />
                    </td>
                    <td className="osc-table__actions">
                      <span className="osc-row">
                        <Button {...logPanel.button(webhook.webhook_id)}>Deliveries</Button>
                        <Button
                          busy={busy(update, webhook)}
                          onClick={() =>
                            update.mutate({
                              organization_id: organizationId,
                              webhook_id: webhook.webhook_id,
                              enabled: !webhook.enabled,
                            })
                          }
                        >
                          {webhook.enabled ? 'Disable' : 'Enable'}
                        </Button>
                        <Button
                          busy={busy(rotate, webhook)}
                          onClick={() => {
                            setSecret(undefined);
                            rotate.mutate({ organization_id: organizationId, webhook_id: webhook.webhook_id });
                          }}
                        >
                          Rotate secret
                        </Button>
                        <ConfirmButton
                          confirmLabel={`Delete the endpoint ${webhook.url} and its delivery log?`}
                          busy={busy(remove, webhook)}
                          onConfirm={() => {
                            setNotice(undefined);
                            remove.mutate({ organization_id: organizationId, webhook_id: webhook.webhook_id });
                          }}
                        >
                          Delete
                        </ConfirmButton>
                      </span>
                    </td>
                  </tr>
                ))}
              </Table>
            )}
          </QueryList>
        </div>
      </Section>
      {logOf && (
        <DeliveryLog
          key={logOf.webhook_id}
          organizationId={organizationId}
          webhook={logOf}
          onClose={() => logPanel.close(logOf.webhook_id)}
        />
      )}
      <CreateWebhookForm
        organizationId={organizationId}
        onCreated={(created) => {
          setSecret({ url: created.url, secret: created.secret, rotated: false });
          return refresh();
        }}
      />
    </>
  );
}

/** The secret, once, taking the focus so that it is read and copied before it is gone. */
function SecretNotice({ shown, onDismiss }: { shown: ShownSecret; onDismiss: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState<boolean>();
  useEffect(() => ref.current?.focus(), [shown]);
  const headingId = useId();
  const copy = () =>
    navigator.clipboard.writeText(shown.secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );

  return (
    <div ref={ref} tabIndex={-1} className="osc-stack" role="group" aria-labelledby={headingId}>
      <Notice tone="warning">
        <strong id={headingId}>
          {shown.rotated ? 'New signing secret' : 'Signing secret'} of {shown.url}
        </strong>
        : copy it now, it is not shown again.
        {shown.rotated && ' The previous secret keeps signing deliveries for 24 hours.'}
      </Notice>
      <p className="osc-secret">{shown.secret}</p>
      <div className="osc-row">
        <Button onClick={copy}>Copy secret</Button>
        <Button variant="ghost" onClick={onDismiss}>
          I have copied it
        </Button>
        {copied !== undefined && (
          <span role="status" className="osc-muted">
            {copied
              ? 'Copied to the clipboard.'
              : 'The clipboard is not available here: select the secret and copy it.'}
          </span>
        )}
      </div>
    </div>
  );
}

function CreateWebhookForm({
  organizationId,
  onCreated,
}: {
  organizationId: string;
  onCreated: (created: RouterOutputs['webhooks']['create']) => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(true);
  const [types, setTypes] = useState<EventType[]>([]);
  const [description, setDescription] = useState('');
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (created) => {
        setUrl('');
        setAll(true);
        setTypes([]);
        setDescription('');
        return onCreated(created);
      },
    }),
  );
  const fields = errorView(create.error).fields;
  // A problem with the N-th type sent is said of that type.
  const typeProblems = Object.entries(fields).flatMap(([field, problem]) => {
    const match = /^event_types(?:\.(\d+))?$/.exec(field);
    if (!match) return [];
    const type = match[1] === undefined ? undefined : create.variables?.event_types[Number(match[1])];
    return [type ? `${type}: ${problem}` : problem];
  });

  return (
    <Section title="New webhook endpoint" description="Its signing secret is shown once, when it is created.">
      <Form
        label="New webhook endpoint"
        onSubmit={() =>
          create.mutate({
            organization_id: organizationId,
            url: url.trim(),
            // `["*"]`: every type, those added later too (behaviour §13).
            event_types: all ? ['*'] : types,
            description,
          })
        }
      >
        <ErrorNotice error={create.error} />
        <TextField
          label="Endpoint URL"
          type="url"
          inputMode="url"
          autoComplete="url"
          placeholder="https://example.com/webhooks"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          error={fields.url}
        />
        <fieldset className="osc-permissions">
          <legend>Event types</legend>
          <Checkbox
            label="All events"
            hint="Every event type, including types added later."
            checked={all}
            onChange={(event) => setAll(event.target.checked)}
          />
          {EVENT_TYPES.map((type) => (
            <Checkbox
              key={type}
              label={type}
              disabled={all}
              checked={all || types.includes(type)}
              onChange={(event) =>
                setTypes(event.target.checked ? [...types, type] : types.filter((each) => each !== type))
              }
            />
          ))}
          {typeProblems.map((problem) => (
            <p key={problem} className="osc-field__error">
              {problem}
            </p>
          ))}
        </fieldset>
        <TextAreaField
          label="Description"
          hint="Optional, up to 500 characters."
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          error={fields.description}
        />
        <FormActions submit="Create webhook" busy={create.isPending} />
      </Form>
    </Section>
  );
}

const STATUS_TONES = { pending: 'warning', succeeded: 'success', failed: 'danger' } as const;

function DeliveryLog({
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
              columns={['Status', 'Event type', 'Attempts', 'Last response', 'Created', 'Last change', 'Next attempt']}
              actions
            >
              {rows.map((delivery) => (
                <tr key={delivery.delivery_id}>
                  <td>
                    <Badge tone={STATUS_TONES[delivery.status]}>{delivery.status}</Badge>
                  </td>
                  <td className="osc-mono">{delivery.event_type}</td>
                  <td>{delivery.attempts}</td>
                  <td>
                    {delivery.last_status_code === null && delivery.last_error === null ? (
                      <span className="osc-muted">None</span>
                    ) : (
                      <>
                        {delivery.last_status_code !== null && <div>HTTP {delivery.last_status_code}</div>}
                        {delivery.last_error !== null && (
                          <div className="osc-muted osc-pre-wrap">{delivery.last_error}</div>
                        )}
                      </>
                    )}
                  </td>
                  <td>
                    <Time value={delivery.created_at} />
                  </td>
                  <td>
                    <Time value={delivery.updated_at} />
                  </td>
                  <td>
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
