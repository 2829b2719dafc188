import { useEffect, useId, useRef, useState } from 'react';
import { Button, Notice } from '../ui/index.ts';
import type { ShownSecret } from './webhook.ts';

/** The secret, once, taking the focus so that it is read and copied before it is gone. */
export function SecretNotice({ shown, onDismiss }: { shown: ShownSecret; onDismiss: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState<boolean>();
  useEffect(() => ref.current?.focus(), [shown]);
  const headingId = useId();
  const copy = () => {
    navigator.clipboard.writeText(shown.secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };

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
