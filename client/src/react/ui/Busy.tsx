/** Said while something loads or long work runs; screen readers hear it once. */
export function Busy({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="osc-busy" role="status" aria-live="polite">
      <span className="osc-spinner" aria-hidden="true" />
      {label}
    </p>
  );
}
