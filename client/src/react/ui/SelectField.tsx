import type { SelectHTMLAttributes } from 'react';
import { classes } from './classes.ts';
import { FieldFrame, type FieldProps } from './FieldFrame.tsx';

export interface Option {
  value: string;
  label: string;
}

export function SelectField({
  label,
  error,
  hint,
  options,
  className,
  ...select
}: FieldProps<SelectHTMLAttributes<HTMLSelectElement>> & { options: readonly Option[] }) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => (
        <select {...select} {...control} className={classes('osc-input', 'osc-select', className)}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}
