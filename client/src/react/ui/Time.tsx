/**
 * A date and time as the reader's locale writes it (to the second with `seconds`), with the exact
 * instant, to the millisecond, on hover.
 */
export function Time({ value, seconds = false }: { value: string | null | undefined; seconds?: boolean }) {
  if (!value) return <span className="osc-muted">never</span>;
  // The member list's legacy `YYYY-MM-DD hh:mm:ss` is UTC too.
  const instant = new Date(/Z$|[+-]\d\d:\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  if (Number.isNaN(instant.getTime())) return <span>{value}</span>;
  return (
    <time className="osc-time" dateTime={instant.toISOString()} title={instant.toISOString()}>
      {instant.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' })}
    </time>
  );
}
