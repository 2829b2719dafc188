import { Badge, Button, ConfirmButton, Table, Time, type ButtonProps } from '../ui/index.ts';
import type { Webhook } from './webhook.ts';

/**
 * The endpoints, a row each with its delivery log's button, sending a test event, enabling or
 * disabling, rotating the secret and deleting.
 */
export function WebhooksTable({
  webhooks,
  logButton,
  busy,
  onSendTest,
  onToggle,
  onRotate,
  onDelete,
}: {
  webhooks: readonly Webhook[];
  /** The props of the row's button that opens the endpoint's delivery log. */
  logButton: (webhookId: string) => ButtonProps;
  /** Whether the endpoint's test event, change (`update`: enabling or disabling), rotation or removal is under way. */
  busy: (action: 'test' | 'update' | 'rotate' | 'remove', webhook: Webhook) => boolean;
  onSendTest: (webhook: Webhook) => void;
  onToggle: (webhook: Webhook) => void;
  onRotate: (webhook: Webhook) => void;
  onDelete: (webhook: Webhook) => void;
}) {
  return (
    <Table label="Webhook endpoints" columns={['URL', 'Events', 'Description', 'State', 'Created']} actions>
      {webhooks.map((webhook) => (
        <tr key={webhook.webhook_id}>
          <th scope="row" className="osc-mono">
            {webhook.url}
          </th>
          <td data-label="Events">
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
          <td data-label="Description" className="osc-pre-wrap">
            {webhook.description || <span className="osc-muted">No description</span>}
          </td>
          <td data-label="State">
            <Badge tone={webhook.enabled ? 'success' : 'warning'}>{webhook.enabled ? 'Enabled' : 'Disabled'}</Badge>
            {webhook.disabled_reason && <div className="osc-muted">{webhook.disabled_reason}</div>}
          </td>
          <td data-label="Created">
            <Time value={webhook.created_at} />
          </td>
          <td className="osc-table__actions">
            <span className="osc-row">
              <Button {...logButton(webhook.webhook_id)}>Deliveries</Button>
              <Button busy={busy('test', webhook)} onClick={() => onSendTest(webhook)}>
                Send test event
              </Button>
              <Button busy={busy('update', webhook)} onClick={() => onToggle(webhook)}>
                {webhook.enabled ? 'Disable' : 'Enable'}
              </Button>
              {/* Asked first, as a destructive action: the receivers must take the new secret within 24
                  hours, and a second rotation meanwhile stops the oldest secret at once (behaviour §13). */}
              <ConfirmButton
                variant="secondary"
                confirmLabel={`Rotate the signing secret of ${webhook.url}? The current one signs beside the new one for 24 hours.`}
                busy={busy('rotate', webhook)}
                onConfirm={() => onRotate(webhook)}
              >
                Rotate secret
              </ConfirmButton>
              <ConfirmButton
                confirmLabel={`Delete the endpoint ${webhook.url} and its delivery log?`}
                busy={busy('remove', webhook)}
                onConfirm={() => onDelete(webhook)}
              >
                Delete
              </ConfirmButton>
            </span>
          </td>
        </tr>
      ))}
    </Table>
  );
}
