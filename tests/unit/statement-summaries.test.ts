/**
 * server/platform/database/statement-spans.ts: what a statement's span is named, whatever time
 * bound a transaction put on it (unit-of-work.ts), and the same summary for the same statement.
 */
import { describe, expect, it } from 'vitest';
import { summarizer } from '../../server/platform/database/statement-spans.ts';

const READ = 'select `role` from `organization_users` where `organization_id` = ? and `user_id` = ?';
const LOCK = 'select `id` from `organizations` where `id` = ? for update';

describe('statement summaries', () => {
  it('names a statement by its kind and table', () => {
    const summary = summarizer('mariadb')(READ);
    expect(summary).toEqual({
      name: 'select organization_users',
      attributes: {
        'db.system.name': 'mariadb',
        'db.query.summary': 'select organization_users',
        'db.operation.name': 'select',
        'db.collection.name': 'organization_users',
      },
    });
  });

  it('names a statement as written, past its own settings and the time bound merged into them', () => {
    const summarize = summarizer('mariadb');
    const ownSettings = `set statement innodb_lock_wait_timeout = 0 for ${LOCK}`;
    expect(summarize(ownSettings).name).toBe('select organizations');
    const bounded = `set statement max_statement_time = 1.250, innodb_lock_wait_timeout = 0 for ${LOCK}`;
    expect(summarize(bounded)).toBe(summarize(ownSettings));
  });

  it('names each statement of a round trip, and gives the same summary whatever time was left', () => {
    const summarize = summarizer('mariadb');
    const roundTrip = (seconds: string) =>
      [
        'begin',
        `set statement max_statement_time = ${seconds} for ${READ}`,
        `set statement max_statement_time = ${seconds} for insert into \`events\` (\`id\`) values (?)`,
      ].join(';\n');
    const summary = summarize(roundTrip('2.000'));
    expect(summary.name).toBe('begin; select organization_users; insert events');
    expect(summary.attributes).toMatchObject({ 'db.operation.name': 'batch', 'db.operation.batch.size': 3 });
    expect(summarize(roundTrip('0.013'))).toBe(summary);
    expect(summarize(roundTrip('1.5')).name).toBe(summary.name);
  });

  it('keeps summaries apart by text, and a summary no caller can change', () => {
    const summarize = summarizer('sqlite');
    expect(summarize(READ)).not.toBe(summarize(LOCK));
    expect(summarize(LOCK).attributes['db.system.name']).toBe('sqlite');
    expect(Object.isFrozen(summarize(READ).attributes)).toBe(true);
  });
});
