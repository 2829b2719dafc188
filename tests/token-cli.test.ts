/**
 * `npm run token`, the first tool a newcomer meets: usage on --help, every option checked, one
 * line and exit code 2 for a wrong one, and a token the service accepts.
 */
import { spawnSync } from 'node:child_process';
import { decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { projectRoot } from './support/process.ts';
import { TEST_SECRET } from './support/tokens.ts';

const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', JWT_SECRET: TEST_SECRET };

function token(...args: string[]) {
  const result = spawnSync(process.execPath, ['server/cli/token.ts', ...args], {
    cwd: projectRoot,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run token', () => {
  it('prints its usage on --help', () => {
    const result = token('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run -s token -- --sub USER_ID/);
    for (const option of ['--sub', '--role', '--exp', 'owner, admin, member']) expect(result.stdout).toContain(option);
  });

  it.each([
    [['--sub', 'alice', '--exp', 'bogus'], /--exp must be a number and a unit, as 30s, 15m, 1h or 7d \(got "bogus"\)/],
    [['--sub', 'alice', '--role', 'superuser'], /--role must be one of owner, admin, member \(got "superuser"\)/],
    [['--sub', 'x'.repeat(129)], /--sub must be 1 to 128 characters/],
    [['--sub', ''], /--sub must be 1 to 128 characters/],
    [['--role', 'owner'], /--sub is required/],
    [['--sub', 'alice', '--colour', 'red'], /Unknown option '--colour'/],
    [['--sub'], /'--sub <value>' argument missing/],
  ])('refuses %j in one line, without a stack', (args, message) => {
    const result = token(...args);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^npm run token: .*\(npm run token -- --help shows the usage\)\n$/);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(2);
  });

  it('signs, through the README command, a token with the subject, role and lifetime asked for', async () => {
    const result = spawnSync('npm', ['run', '-s', 'token', '--', '--sub', 'alice', '--role', 'admin', '--exp', '2h'], {
      cwd: projectRoot,
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(0);
    const minted = result.stdout.trim();
    const { payload } = await jwtVerify(minted, new TextEncoder().encode(TEST_SECRET));
    expect(payload).toMatchObject({ sub: 'alice', role: 'admin' });
    expect(payload.exp! - payload.iat!).toBe(2 * 3600);
    expect(decodeJwt(token('--sub', 'bob').stdout.trim())).not.toHaveProperty('role');
  });
});
