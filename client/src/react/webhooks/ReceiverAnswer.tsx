import type { Delivery } from './webhook.ts';

/** What the receiver answered the delivery's last attempt: its status, and what went wrong (up to 1 KiB of its answer). */
export function ReceiverAnswer({ delivery }: { delivery: Delivery }) {
  if (delivery.last_status_code === null && delivery.last_error === null)
    return <span className="osc-muted">None</span>;
  return (
    <>
      {delivery.last_status_code !== null && <div>HTTP {delivery.last_status_code}</div>}
      {delivery.last_error !== null && <div className="osc-muted osc-pre-wrap">{delivery.last_error}</div>}
    </>
  );
}
