import type { InputHTMLAttributes } from 'react';
import { classes } from './classes.ts';
import { FieldFrame, type FieldProps } from './FieldFrame.tsx';

export function TextField({
  label,
  error,
  hint,
  className,
  ...input
}: FieldProps<InputHTMLAttributes<HTMLInputElement>>) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => <input {...input} {...control} className={classes('osc-input', className)} />}
    </FieldFrame>
  );
}
