import type { ReactNode } from 'react';
import { classes } from './classes.ts';

export function Badge({
  children,
  tone = 'neutral',
}: {
  children: ReactNode;
  tone?: 'neutral' | 'accent' | 'success' | 'danger' | 'warning';
}) {
  return <span className={classes('osc-badge', `osc-badge--${tone}`)}>{children}</span>;
}
