import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Button, type ButtonProps } from './Button.tsx';

/**
 * A destructive action in two steps: the button, then "Confirm" and "Cancel" in its place, the
 * focus on "Cancel" so that Enter by habit changes nothing. Escape cancels. Either way the focus
 * goes back to the button.
 */
export function ConfirmButton({
  children,
  confirmLabel,
  onConfirm,
  busy = false,
  disabled = false,
  variant = 'danger',
  className,
}: {
  children: ReactNode;
  /** The question, e.g. "Remove Ada?". */
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
  /** Nothing to confirm yet (a choice still to be made). */
  disabled?: boolean;
  variant?: ButtonProps['variant'];
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  const stopAsking = () => {
    setAsking(false);
    queueMicrotask(() => opener.current?.focus());
  };
  if (!asking) {
    return (
      <Button
        ref={opener}
        variant={variant}
        busy={busy}
        disabled={disabled}
        className={className}
        onClick={() => setAsking(true)}
      >
        {children}
      </Button>
    );
  }
  return (
    <span
      className="osc-confirm"
      role="group"
      aria-label={confirmLabel}
      onKeyDown={(event) => event.key === 'Escape' && stopAsking()}
    >
      <span className="osc-confirm__question">{confirmLabel}</span>
      <Button
        variant={variant}
        onClick={() => {
          // Back on the button (busy while the work runs); a component whose row goes with the
          // work moves the focus on itself.
          stopAsking();
          onConfirm();
        }}
      >
        Confirm
      </Button>
      <Button ref={cancel} variant="ghost" onClick={stopAsking}>
        Cancel
      </Button>
    </span>
  );
}
