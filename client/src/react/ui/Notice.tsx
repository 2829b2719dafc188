import type { ReactNode } from 'react';
import { classes } from './classes.ts';

export function Notice({
  tone = 'info',
  children,
  className,
}: {
  tone?: 'info' | 'success' | 'warning';
  children: ReactNode;
  className?: string;
}) {
  return (
    <div role="status" className={classes('osc-notice', `osc-notice--${tone}`, className)}>
      {children}
    </div>
  );
}
