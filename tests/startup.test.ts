/**
 * The service as `npm start` runs it: a child process with only environment settings, its pino
 * logs on stdout, the development secret shared with `npm run token`, and a clean SIGTERM.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot as root, spawnService, type ServiceProcess } from './support/process.ts';

const node = process.execPath;

function runToExit(script: string, env: Record<string, string>) {
  return spawnSync(node, [script, ...(env.ARGS ? env.ARGS.split(' ') : [])], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('start-up settings', () => {
  it('refuses to start in production without a token key, and says what to set', () => {
    const result = runToExit('server/main.ts', { NODE_ENV: 'production', DATABASE_URL: ':memory:' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/JWT_SECRET/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a JWT_SECRET shorter than 32 bytes', () => {
    const result = runToExit('server/main.ts', { JWT_SECRET: 'short', DATABASE_URL: ':memory:' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/at least 32 bytes/);
  });

  it('refuses an unknown DATABASE_URL scheme', () => {
    const result = runToExit('server/main.ts', { JWT_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://db/x' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL/);
  });
});

describe('npm start with no settings but a data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orgs-start-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: `file:${join(dataDir, 'orgs.db')}`, PORT: '0' };
  let service: ServiceProcess | undefined;
  afterAll(() => {
    service?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves, accepts a token from npm run token, logs one JSON line per request, and stops on SIGTERM', async () => {
    service = await spawnService(env);
    const { baseUrl, lines } = service;
    const minted = runToExit('server/cli/token.ts', { ...env, ARGS: '--sub dev-user --role owner' });
    expect(minted.status).toBe(0);
    const token = minted.stdout.trim();
    expect(token.split('.')).toHaveLength(3);

    const response = await fetch(`${baseUrl}/api/organizations`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'startup-test' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, 200));
    const requestLines = lines.filter((line) => line.includes('"startup-test"'));
    expect(requestLines).toHaveLength(1);
    expect(JSON.parse(requestLines[0]!)).toMatchObject({
      reqId: 'startup-test',
      method: 'GET',
      url: '/api/organizations',
      status: 200,
    });
    expect(lines.join('\n')).not.toContain(token);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });
});
