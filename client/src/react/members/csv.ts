import type { Member } from './member.ts';

const COLUMNS = ['user_id', 'first_name', 'last_name', 'email', 'role', 'created_at', 'expires_at'] as const;

/**
 * A field as RFC 4180 writes it (quoted when it holds a quote, comma or line break), and with a
 * leading `'` where a spreadsheet would read a formula (`=`, `+`, `-`, `@`): a name is data.
 */
function field(value: string | null): string {
  const text = value === null ? '' : /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The members as CSV, a header line then one line each, CRLF-separated. */
export function membersCsv(members: readonly Member[]): string {
  const lines = [
    COLUMNS.join(','),
    ...members.map((member) => COLUMNS.map((column) => field(member[column])).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
