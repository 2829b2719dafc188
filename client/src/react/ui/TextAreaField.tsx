import type { TextareaHTMLAttributes } from 'react';
import { classes } from './classes.ts';
import { FieldFrame, type FieldProps } from './FieldFrame.tsx';

export function TextAreaField({
  label,
  error,
  hint,
  className,
  ...input
}: FieldProps<TextareaHTMLAttributes<HTMLTextAreaElement>>) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => <textarea {...input} {...control} className={classes('osc-input', 'osc-textarea', className)} />}
    </FieldFrame>
  );
}
