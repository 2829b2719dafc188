import { useId, type ReactNode } from 'react';
import { classes } from './classes.ts';

/** A titled card: a page's part. `actions` sit beside the title. */
export function Section({
  title,
  description,
  actions,
  children,
  className,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  className?: string;
}) {
  const id = useId();
  return (
    <section className={classes('osc-section', className)} aria-labelledby={id}>
      <header className="osc-section__header">
        <div>
          <h2 className="osc-section__title" id={id}>
            {title}
          </h2>
          {description && <p className="osc-section__description">{description}</p>}
        </div>
        {actions && <div className="osc-section__actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
