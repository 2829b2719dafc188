import { use, type Ref } from 'react';
import { Button } from './Button.tsx';
import { FormBusy } from './formBusy.ts';

/** A form's buttons: its submit button, busy while the form's work runs, then Cancel if it can be cancelled. */
export function FormActions({
  submit,
  onCancel,
  submitRef,
  autoFocus,
}: {
  /** The submit button's text. */
  submit: string;
  onCancel?: () => void;
  submitRef?: Ref<HTMLButtonElement>;
  /** The submit button takes the focus as it appears. */
  autoFocus?: boolean;
}) {
  return (
    <div className="osc-form__actions">
      <Button ref={submitRef} type="submit" variant="primary" busy={use(FormBusy)} autoFocus={autoFocus}>
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
