import { useEffect, useRef } from 'react';
import { Notice } from './Notice.tsx';

/**
 * A success message that takes the focus as it appears: said where the control the focus was on
 * has just gone (a row removed, a form closed). Nothing without a message.
 */
export function FocusedNotice({ children }: { children?: string | undefined }) {
  const notice = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (children) notice.current?.focus();
  }, [children]);
  if (!children) return null;
  return (
    <div ref={notice} tabIndex={-1}>
      <Notice tone="success">{children}</Notice>
    </div>
  );
}
