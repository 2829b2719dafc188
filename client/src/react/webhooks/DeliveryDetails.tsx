import { useId, type ReactNode } from 'react';
import { Disclosure } from '../ui/index.ts';
import { ReceiverAnswer } from './ReceiverAnswer.tsx';
import type { Delivery } from './webhook.ts';

/**
 * A delivery opened: the receiver's answer to its last attempt, its status and the first KiB of its
 * body, and the body its attempts send (behaviour §13; the signature and the secret are headers,
 * never shown).
 */
export function DeliveryDetails({ delivery }: { delivery: Delivery }) {
  return (
    <Disclosure summary="Payload and answer">
      {() => (
        <div className="osc-stack">
          <Part label="Receiver's answer">
            {delivery.last_status_code === null ? (
              // No answer: what went wrong instead (or no attempt yet).
              <ReceiverAnswer delivery={delivery} />
            ) : (
              <>
                <div>HTTP {delivery.last_status_code}</div>
                {delivery.response_body ? (
                  <pre className="osc-code">{delivery.response_body}</pre>
                ) : (
                  <div className="osc-muted">No body</div>
                )}
              </>
            )}
          </Part>
          <Part label="Payload sent">
            {delivery.payload ? (
              <pre className="osc-code">{JSON.stringify(delivery.payload, null, 2)}</pre>
            ) : (
              <div>The event is no longer in the organization&apos;s log.</div>
            )}
          </Part>
        </div>
      )}
    </Disclosure>
  );
}

/** A part of the opened delivery, a group named by its label (so each can be told apart). */
function Part({ label, children }: { label: string; children: ReactNode }) {
  const labelId = useId();
  return (
    <div role="group" aria-labelledby={labelId}>
      <div id={labelId} className="osc-muted">
        {label}
      </div>
      {children}
    </div>
  );
}
