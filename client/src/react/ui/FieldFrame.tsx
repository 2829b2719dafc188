import { useId, type ReactNode } from 'react';
import { classes } from './classes.ts';

/** The props of a field: its control's own, less the id, which the frame gives it. */
export type FieldProps<Attributes> = Omit<Attributes, 'id'> & {
  label: string;
  /** The service's problem with this field, shown under it. */
  error?: string | undefined;
  hint?: ReactNode;
};

interface ControlAttributes {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/**
 * A field's label, hint and error around its control (`children`), which is given the attributes
 * that tie it to them.
 */
export function FieldFrame({
  label,
  error,
  hint,
  children,
}: FieldProps<object> & { children: (control: ControlAttributes) => ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={classes('osc-field', error && 'osc-field--invalid')}>
      <label className="osc-field__label" htmlFor={id}>
        {label}
      </label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint && (
        <p className="osc-field__hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p className="osc-field__error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
