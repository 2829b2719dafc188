/** server/platform/database/timestamps.ts: both contract forms, from every form a timestamp is stored in. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toDbTimestamp } from '../../server/platform/database/schema.ts';
import { isoTimestamp, listTimestamp } from '../../server/platform/database/timestamps.ts';

const instants = fc.date({
  min: new Date('1970-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});

describe('timestamps', () => {
  const instant = Date.UTC(2026, 10, 22, 12, 34, 56, 789);

  it('reads a stored timestamp back as the same instant, on MySQL and on the embedded database', () => {
    fc.assert(
      fc.property(instants, (date) => {
        for (const dialect of ['mariadb', 'sqlite'] as const) {
          const stored = toDbTimestamp(dialect, date);
          expect(isoTimestamp(stored)).toBe(date.toISOString());
          expect(listTimestamp(stored)).toBe(date.toISOString().slice(0, 19).replace('T', ' '));
        }
      }),
    );
  });

  it('writes instants of one second, and the next, each with its own milliseconds', () => {
    // MariaDB's form keeps the text of the last second formatted (schema.ts): each instant must still be its own.
    for (const offset of [0, 1, 9, 10, 99, 100, 998, 999, 1000, 1001, 1999, 2000, 0]) {
      const date = new Date(instant - 789 + offset);
      expect(toDbTimestamp('mariadb', date)).toBe(date.toISOString().slice(0, 23).replace('T', ' '));
    }
  });

  it('reads every form a driver returns as the same UTC instant', () => {
    for (const stored of [new Date(instant), instant, '2026-11-22 12:34:56.789', '2026-11-22T12:34:56.789Z']) {
      expect(isoTimestamp(stored)).toBe('2026-11-22T12:34:56.789Z');
      expect(listTimestamp(stored)).toBe('2026-11-22 12:34:56');
    }
  });

  it('reads MySQL text without milliseconds', () => {
    expect(isoTimestamp('2026-11-22 12:34:56')).toBe('2026-11-22T12:34:56.000Z');
    expect(listTimestamp('2026-11-22 12:34:56')).toBe('2026-11-22 12:34:56');
  });

  it('treats a zone-less text as UTC, not local time', () => {
    expect(isoTimestamp('2026-01-01 00:00:00')).toBe('2026-01-01T00:00:00.000Z');
    expect(isoTimestamp('2026-01-01T03:00:00+03:00')).toBe('2026-01-01T00:00:00.000Z');
  });
});
