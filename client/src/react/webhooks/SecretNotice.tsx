import { SecretNotice as Secret } from '../ui/index.ts';
import type { ShownSecret } from './webhook.ts';

/** An endpoint's signing secret, once, at its creation or rotation. */
export function SecretNotice({ shown, onDismiss }: { shown: ShownSecret; onDismiss: () => void }) {
  return (
    <Secret
      title={`${shown.rotated ? 'New signing secret' : 'Signing secret'} of ${shown.url}`}
      note={shown.rotated ? 'The previous secret keeps signing deliveries for 24 hours.' : undefined}
      secret={shown.secret}
      onDismiss={onDismiss}
    />
  );
}
