/**
 * The instants of a `datetime-local` input, which shows and takes the reader's local time, and the
 * ISO 8601 UTC instants the service answers and takes.
 */

/** An instant as a `datetime-local` input shows it: the reader's local time, to the minute. */
export function toLocalInput(instant: string | null): string {
  if (!instant) return '';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * A `datetime-local` value as the ISO 8601 UTC instant the service takes. Text that is no date (a
 * browser without the picker, or one that could not complete it) goes as it was typed, for the
 * service to say what is wrong with it.
 */
export function fromLocalInput(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}
