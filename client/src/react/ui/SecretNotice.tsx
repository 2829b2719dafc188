import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button } from './Button.tsx';
import { CopyButton } from './CopyButton.tsx';
import { Notice } from './Notice.tsx';

/**
 * A secret the service answers once (a webhook's signing secret, an API key), taking the focus so
 * that it is read and copied before it is gone, with a copy button.
 */
export function SecretNotice({
  title,
  note,
  secret,
  onDismiss,
}: {
  title: ReactNode;
  /** Said after "copy it now, it is not shown again". */
  note?: string | undefined;
  secret: string;
  onDismiss: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), [secret]);
  const headingId = useId();

  return (
    <div ref={ref} tabIndex={-1} className="osc-stack" role="group" aria-labelledby={headingId}>
      <Notice tone="warning">
        <strong id={headingId}>{title}</strong>: copy it now, it is not shown again.
        {note && ` ${note}`}
      </Notice>
      <p className="osc-secret">{secret}</p>
      <div className="osc-row">
        <CopyButton text={secret}>Copy secret</CopyButton>
        <Button variant="ghost" onClick={onDismiss}>
          I have copied it
        </Button>
      </div>
    </div>
  );
}
