import { Disclosure } from '../ui/index.ts';
import { ReceiverAnswer } from './ReceiverAnswer.tsx';
import type { Delivery } from './webhook.ts';

/**
 * A delivery opened: the body its attempts send (behaviour §13; the signature and the secret are
 * headers, never shown) and the receiver's answer to the last one.
 */
export function DeliveryDetails({ delivery }: { delivery: Delivery }) {
  return (
    <Disclosure summary="Payload and answer">
      {() => (
        <div className="osc-stack">
          <div>
            <div className="osc-muted">Receiver&apos;s answer</div>
            <ReceiverAnswer delivery={delivery} />
          </div>
          <div>
            <div className="osc-muted">Payload sent</div>
            {delivery.payload ? (
              <pre className="osc-code">{JSON.stringify(delivery.payload, null, 2)}</pre>
            ) : (
              <div>The event is no longer in the organization&apos;s log.</div>
            )}
          </div>
        </div>
      )}
    </Disclosure>
  );
}
