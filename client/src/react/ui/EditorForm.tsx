import type { ReactNode } from 'react';
import { ErrorNotice } from './ErrorNotice.tsx';
import { Form } from './Form.tsx';
import { FormActions } from './FormActions.tsx';
import { useFocusAfter, type CallState } from './useFocusAfter.ts';

/**
 * A table row's inline editor: the form with Save and Cancel under the service's refusal. Escape
 * cancels; a refused save gives the focus back to Save, which had it.
 */
export function EditorForm({
  label,
  saving,
  loadError,
  onSubmit,
  onClose,
  className,
  children,
}: {
  /** The form's accessible name. */
  label: string;
  saving: CallState;
  /** A failure to read what the fields need, said first. */
  loadError?: unknown;
  onSubmit: () => void;
  onClose: () => void;
  className?: string;
  children: ReactNode;
}) {
  const save = useFocusAfter(saving.status, ['error']);
  return (
    <div className="osc-stack" onKeyDown={(event) => event.key === 'Escape' && onClose()}>
      <ErrorNotice error={loadError} />
      <ErrorNotice error={saving.error} />
      <Form busy={saving.isPending} label={label} onSubmit={onSubmit} className={className}>
        {children}
        <FormActions submit="Save" submitRef={save} onCancel={onClose} />
      </Form>
    </div>
  );
}
