import { useState, type ReactNode } from 'react';

/**
 * A summary that opens onto more (`<details>`); what it holds is made only once opened, so that a
 * long list of rows does not carry every row's full data in the page.
 */
export function Disclosure({ summary, children }: { summary: ReactNode; children: () => ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="osc-details" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{summary}</summary>
      {open && children()}
    </details>
  );
}
