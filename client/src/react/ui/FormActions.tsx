import type { Ref } from 'react';
import { Button } from './Button.tsx';

/** A form's buttons: its submit button, busy while the form's work runs, then Cancel if it can be cancelled. */
export function FormActions({
  submit,
  busy,
  onCancel,
  submitRef,
  autoFocus,
}: {
  /** The submit button's text. */
  submit: string;
  busy: boolean;
  onCancel?: () => void;
  submitRef?: Ref<HTMLButtonElement>;
  /** The submit button takes the focus as it appears. */
  autoFocus?: boolean;
}) {
  return (
    <div className="osc-form__actions">
      <Button ref={submitRef} type="submit" variant="primary" busy={busy} autoFocus={autoFocus}>
        {submit}
      </Button>
      {onCancel && (
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      )}
    </div>
  );
}
