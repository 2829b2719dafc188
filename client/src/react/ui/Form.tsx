import { useLayoutEffect, useRef, type FormEvent, type ReactNode } from 'react';
import { classes } from './classes.ts';
import { FormBusy } from './formBusy.ts';

/**
 * A form whose fields the service validates (`noValidate`: its messages, not the browser's, are
 * shown next to the fields), submitted by Enter or its submit button, and not again while its work
 * runs: Enter pressed twice, a double click, or a click and then Enter make one change, not two.
 */
export function Form({
  onSubmit,
  busy,
  children,
  className,
  label,
}: {
  onSubmit: () => void;
  /** The form's work is under way (its mutation's `isPending`): a submit meanwhile does nothing. */
  busy: boolean;
  children: ReactNode;
  className?: string;
  /** The form's accessible name. */
  label: string;
}) {
  // A submit's change shows in `busy` only from the next render, which TanStack Query asks for on a
  // timer: a second submit before it (Enter twice, a double click) would find the form idle. So a
  // submit holds the form until the next render, whose `busy` is the change's own state: a mutation
  // is pending from the moment it is called, and every render after that reads it so.
  const submitted = useRef(false);
  useLayoutEffect(() => {
    submitted.current = false;
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy || submitted.current) return;
    submitted.current = true;
    onSubmit();
  };
  return (
    <form noValidate onSubmit={submit} className={classes('osc-form', className)} aria-label={label}>
      <FormBusy value={busy}>{children}</FormBusy>
    </form>
  );
}
