/**
 * The last resort of server/cli/failures.ts: whatever a failure prints (a bug's error with its
 * stack, a driver's message quoting its URL), no password of a URL is printed (behaviour §1).
 */
import { describe, expect, it } from 'vitest';
import { withoutPasswords } from '../../server/cli/failures.ts';

describe('withoutPasswords', () => {
  it('takes the password out of every scheme://user:password@ in what it prints', () => {
    const printed = `TypeError: Invalid URL\n    at x\n  input: 'mysql://orgs:S3cret#Pass@[::1/orgs', redis://:p@ss@h:6379`;
    expect(withoutPasswords(printed)).toBe(
      `TypeError: Invalid URL\n    at x\n  input: 'mysql://orgs:***@[::1/orgs', redis://:***@h:6379`,
    );
  });

  it('leaves a URL without a password as it is', () => {
    expect(withoutPasswords('mysql://orgs@db:3306/orgs and https://example.com/a')).toBe(
      'mysql://orgs@db:3306/orgs and https://example.com/a',
    );
  });
});
