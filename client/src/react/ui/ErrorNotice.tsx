import { errorView } from '../errors.ts';
import { classes } from './classes.ts';

/** The service's message for a failed call, announced; nothing when there is no error. */
export function ErrorNotice({ error, className }: { error: unknown; className?: string }) {
  if (!error) return null;
  return (
    <div role="alert" className={classes('osc-notice', 'osc-notice--error', className)}>
      {errorView(error).message}
    </div>
  );
}
