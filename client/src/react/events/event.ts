import type { RouterOutputs } from '../../index.ts';

export type AuditEvent = RouterOutputs['events']['page']['items'][number];

/** A value of an event's data in a few words: a change as `from → to`, a list joined. */
function compact(value: unknown): string {
  if (Array.isArray(value)) return value.length ? value.map(compact).join(', ') : 'none';
  if (value !== null && typeof value === 'object') {
    if ('from' in value && 'to' in value) return `${compact(value.from)} → ${compact(value.to)}`;
    return Object.entries(value)
      .map(([key, item]) => `${key}: ${compact(item)}`)
      .join('; ');
  }
  if (value === '') return '""';
  return String(value);
}

/** An event's data in one line; the fields of `changes` stand beside the others (behaviour §9). */
export function eventDetails(data: AuditEvent['data']): string {
  return Object.entries(data)
    .flatMap(([key, value]) => (key === 'changes' ? Object.entries(value as object) : [[key, value] as const]))
    .map(([key, value]) => `${key}: ${compact(value)}`)
    .join('; ');
}
