/**
 * Keys' secrets (behaviour §16): an organization key's and an application key's secret never
 * appear in a list, a read, an event, a log line of the service (its pino output at LOG_LEVEL
 * trace, on the bundle as `npm start` runs it) or a metric's labels; secrets are random and
 * high-entropy; stored hashes are compared in constant time.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sameHash } from '../server/platform/authorization/keys.ts';
import { secretHashOf } from '../server/platform/auth/tokens.ts';
import { printedSecret, runAppKey } from './support/app-key.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { createKey, ORGANIZATION_KEY_SECRET } from './support/keys.ts';
import { freePorts } from './support/ports.ts';
import { spawnService } from './support/process.ts';
import { callerAt } from './support/server.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

/** A service started as a process, a run of the CLI and a dozen calls, on a loaded machine. */
const START_AND_CALLS_MS = 180_000;
/** How many secrets the entropy checks look at. */
const SAMPLES = 64;

describeOnEachDatabase('secrets of keys', (target) => {
  it('appear in no list, read, event, log line or metric label', { timeout: START_AND_CALLS_MS }, async () => {
    const database = await target.create();
    const [metricsPort] = await freePorts(1);
    const env = {
      DATABASE_URL: database.url,
      JWT_SECRET: TEST_SECRET,
      LOG_LEVEL: 'trace',
      METRICS_PORT: String(metricsPort),
      RATE_LIMIT_MAX: '0',
    };
    const service = await spawnService(env);
    try {
      const server = callerAt(service.baseUrl);
      const call = async (method: string, path: string, token: string, body?: unknown) => {
        const response = await server.request(method, path, { token, body });
        const text = await response.text();
        return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
      };
      const owner = await tokenFor('secrets-owner', { role: 'owner' });
      expect(
        (await call('POST', '/users', owner, { first_name: 'Sam', last_name: 'Secret', email: 'sam@example.com' }))
          .status,
      ).toBe(201);
      const appKey = await runAppKey(['create', '--name', 'Secrets test'], { DATABASE_URL: database.url });
      expect(appKey.status, appKey.stderr).toBe(0);
      const appSecret = printedSecret(appKey);

      const made = await call('POST', '/organizations', appSecret, {
        organization_name: 'Secretive',
        organization_description: '',
        owner_user_id: 'secrets-owner',
      });
      expect(made.status, made.text).toBe(201);
      const organizationId: string = made.body.organization_id;
      const key = await createKey(server, owner, organizationId, 'admin');
      const child = await createKey(server, key.secret, organizationId, 'member');

      const reads = [
        await call('GET', `/organizations/${organizationId}/api-keys`, key.secret),
        await call('GET', `/organizations/${organizationId}/api-keys/${key.key_id}`, appSecret),
        await call('GET', `/organizations/${organizationId}`, appSecret),
        await call('GET', `/organization-user`, key.secret),
        await call('DELETE', `/organizations/${organizationId}/api-keys/${child.key_id}`, appSecret),
        await call('GET', `/organizations/${organizationId}/events?limit=100`, key.secret),
        await call(
          'GET',
          `/trpc/apiKeys.list?input=${encodeURIComponent(JSON.stringify({ organization_id: organizationId }))}`,
          key.secret,
        ),
        await call('GET', `/organizations/${organizationId}`, `oak_${randomBytes(32).toString('base64url')}`),
        await call('GET', `/organizations/${organizationId}`, child.secret),
        await call('GET', '/users', key.secret),
        await call('GET', `/organizations/${organizationId}`, `${key.secret}x`),
      ];
      expect(reads.map((read) => read.status)).toEqual([200, 200, 200, 400, 200, 200, 200, 401, 401, 403, 401]);
      const events = reads[5]!.body as Array<{ type: string }>;
      expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['api_key.created', 'api_key.revoked']));
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/http_requests?_/);

      const secrets = [appSecret, key.secret, child.secret];
      // What a secret would leave in a text: itself, its random part, or its hash (what finds it).
      const traces = secrets.flatMap((secret) => [secret.slice(4), secretHashOf(secret)]);
      const logs = `${service.lines.join('\n')}\n${service.stderr()}`;
      expect(service.lines.length).toBeGreaterThan(reads.length);
      for (const [where, text] of [
        ['answers', reads.map((read) => read.text).join('\n')],
        ['log lines', logs],
        ['metrics', metrics],
      ] as const) {
        for (const trace of traces) expect(text.includes(trace), `${where} hold a secret`).toBe(false);
      }
    } finally {
      service.kill();
      await service.exited;
      await database.drop();
    }
  });
});

describe('key secrets', () => {
  it('are random and high-entropy: distinct, oak_ and 43 base64url characters (32 bytes)', async () => {
    const { newKeySecret } = await import('../server/modules/api-keys/api-keys.service.ts');
    const secrets = Array.from({ length: SAMPLES }, () => newKeySecret('organization_key'));
    for (const secret of secrets) expect(secret).toMatch(ORGANIZATION_KEY_SECRET);
    expect(new Set(secrets).size).toBe(SAMPLES);
    expect(newKeySecret('application_key')).toMatch(/^sak_[A-Za-z0-9_-]{43}$/);
    // 64 secrets of 32 random bytes: each of the 64 base64url characters turns up, and no two
    // secrets share even their first five random characters.
    const randomParts = secrets.map((secret) => secret.slice(4));
    expect(new Set(randomParts.join('')).size).toBeGreaterThanOrEqual(60);
    expect(new Set(randomParts.map((part) => part.slice(0, 5))).size).toBe(SAMPLES);
    const bytes = Buffer.concat(randomParts.map((part) => Buffer.from(part, 'base64url')));
    expect(bytes.length).toBe(SAMPLES * 32);
    const ones = [...bytes].reduce((sum, byte) => sum + byte.toString(2).replaceAll('0', '').length, 0);
    // About half the bits are set: 16,384 of 32,768 bits, give or take six standard deviations.
    expect(Math.abs(ones - bytes.length * 4)).toBeLessThan(6 * Math.sqrt(bytes.length * 2));
  });

  it('are compared by their hash in constant time (sameHash), never throwing on a length mismatch', () => {
    const hash = secretHashOf(`oak_${randomBytes(32).toString('base64url')}`);
    expect(sameHash(hash, hash)).toBe(true);
    expect(sameHash(hash, `${hash.slice(0, -1)}${hash.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(sameHash(hash, hash.slice(0, -1))).toBe(false);
    expect(sameHash(hash, '')).toBe(false);
    expect(sameHash(hash, secretHashOf('oak_other'))).toBe(false);
  });
});
