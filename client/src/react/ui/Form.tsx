import type { FormEvent, ReactNode } from 'react';
import { classes } from './classes.ts';

/**
 * A form whose fields the service validates (`noValidate`: its messages, not the browser's, are
 * shown next to the fields), submitted by Enter or its submit button.
 */
export function Form({
  onSubmit,
  children,
  className,
  label,
}: {
  onSubmit: () => void;
  children: ReactNode;
  className?: string;
  /** The form's accessible name. */
  label: string;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form noValidate onSubmit={submit} className={classes('osc-form', className)} aria-label={label}>
      {children}
    </form>
  );
}
