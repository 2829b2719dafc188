import { useState } from 'react';
import { Button } from './Button.tsx';

/** A button that copies `text` to the clipboard, then says whether it could. */
export function CopyButton({ text, children }: { text: string; children: string }) {
  const [copied, setCopied] = useState<boolean>();
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <span className="osc-row">
      <Button onClick={copy}>{children}</Button>
      {copied !== undefined && (
        <span role="status" className="osc-muted">
          {copied ? 'Copied to the clipboard.' : 'The clipboard is not available here: select the text and copy it.'}
        </span>
      )}
    </span>
  );
}
