import { useId, type InputHTMLAttributes, type ReactNode } from 'react';
import { classes } from './classes.ts';

export function Checkbox({
  label,
  hint,
  className,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'id'> & { label: ReactNode; hint?: ReactNode }) {
  const id = useId();
  return (
    <div className={classes('osc-checkbox', className)}>
      <input {...input} type="checkbox" id={id} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="osc-field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}
