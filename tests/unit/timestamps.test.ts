import { describe, expect, it } from 'vitest';
import { isoTimestamp, listTimestamp } from '../../server/data/timestamps.ts';

describe('timestamps', () => {
  const instant = Date.UTC(2026, 10, 22, 12, 34, 56, 789);

  it('reads every form a driver returns as the same UTC instant', () => {
    for (const stored of [new Date(instant), instant, '2026-11-22 12:34:56.789', '2026-11-22T12:34:56.789Z']) {
      expect(isoTimestamp(stored)).toBe('2026-11-22T12:34:56.789Z');
      expect(listTimestamp(stored)).toBe('2026-11-22 12:34:56');
    }
  });

  it('treats a zone-less text as UTC, not local time', () => {
    expect(isoTimestamp('2026-01-01 00:00:00')).toBe('2026-01-01T00:00:00.000Z');
    expect(isoTimestamp('2026-01-01T03:00:00+03:00')).toBe('2026-01-01T00:00:00.000Z');
  });
});
