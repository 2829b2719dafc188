/**
 * Webhooks (behaviour §13), for those holding webhooks:manage (nothing is shown to others): an
 * organization's endpoints, creating one, enabling and disabling, rotating the signing secret
 * (shown once, at creation and at each rotation), deleting, sending an endpoint a test event, and
 * an endpoint's delivery log, each delivery with what it sent, and a retry for a failed one.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, FocusedNotice, QueryList, Section, useRowPanel } from '../ui/index.ts';
import { CreateWebhookForm } from './CreateWebhookForm.tsx';
import { DeliveryLog } from './DeliveryLog.tsx';
import { SecretNotice } from './SecretNotice.tsx';
import type { ShownSecret, Webhook } from './webhook.ts';
import { WebhooksTable } from './WebhooksTable.tsx';

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
  const test = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async (_, { webhook_id }) => {
        const webhook = webhooks.data?.find((each) => each.webhook_id === webhook_id);
        setNotice(`Test event queued for ${webhook?.url ?? webhook_id}: its delivery is in the log below.`);
        logPanel.open(webhook_id);
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveriesPage.pathKey() });
      },
    }),
  );
  const busy = { test, update, rotate, remove };
  const isBusy = (action: keyof typeof busy, webhook: Webhook) =>
    busy[action].isPending && busy[action].variables?.webhook_id === webhook.webhook_id;
  const call = { organization_id: organizationId };

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
        <ErrorNotice error={test.error} />
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
              <WebhooksTable
                webhooks={rows}
                logButton={logPanel.button}
                busy={isBusy}
                onSendTest={(webhook) => {
                  setNotice(undefined);
                  test.mutate({ ...call, webhook_id: webhook.webhook_id });
                }}
                onToggle={(webhook) =>
                  update.mutate({ ...call, webhook_id: webhook.webhook_id, enabled: !webhook.enabled })
                }
                onRotate={(webhook) => {
                  setSecret(undefined);
                  rotate.mutate({ ...call, webhook_id: webhook.webhook_id });
                }}
                onDelete={(webhook) => {
                  setNotice(undefined);
                  remove.mutate({ ...call, webhook_id: webhook.webhook_id });
                }}
              />
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
