/** Security headers, CORS, the per-caller rate limit, and member data kept from non-members on every transport. */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { databaseTargets, describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const embedded = databaseTargets().find((target) => target.name === 'embedded')!;

describe('security headers and CORS', () => {
  const server = useServer(embedded, { CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' });

  it('sends helmet security headers', async () => {
    const response = await server().request('GET', '/healthz');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.headers.get('strict-transport-security')).toMatch(/max-age=/);
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
  });

  it('allows the configured origins only', async () => {
    const preflight = (origin: string) =>
      server().request('OPTIONS', '/organization-user', {
        headers: {
          origin,
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'authorization,organization_id,content-type',
        },
      });
    const allowed = await preflight('https://admin.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/organization_id/);
    const refused = await preflight('https://evil.example.com');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS without CORS_ORIGINS', () => {
  const server = useServer(embedded);

  it('allows no origin, and still sends the security headers', async () => {
    const response = await server().request('OPTIONS', '/users', {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('rate limit per caller', () => {
  const server = useServer(embedded, { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });

  it('answers 429 with Retry-After past the limit, per caller, never for health checks', async () => {
    const busy = await tokenFor('busy-caller');
    const statuses = [];
    for (let index = 0; index < 4; index++) {
      statuses.push((await server().call('GET', '/organizations', { token: busy })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await server().call('GET', '/api/organizations', { token: busy });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.any(String) });
    const trpc = await server().call('GET', '/trpc/users.me', { token: busy });
    expect(trpc.status).toBe(429);

    expect((await server().call('GET', '/organizations', { token: await tokenFor('calm-caller') })).status).toBe(200);
    for (let index = 0; index < 5; index++) expect((await server().call('GET', '/healthz')).status).toBe(200);
  });
});

describe('slow clients', () => {
  const server = useServer(embedded, { REQUEST_TIMEOUT_MS: '1000' });

  it('cuts off a client that never finishes its request, and keeps serving others', async () => {
    const { port } = new URL(server().baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // Headers started, never finished (slowloris).
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    const closed = await Promise.race([
      new Promise<boolean>((resolve) => socket.once('close', () => resolve(true))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000)),
    ]);
    socket.destroy();
    expect(closed).toBe(true);
    // Closed by the socket timeout (silently) or by the request timeout (with a 408).
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    expect((await server().call('GET', '/healthz')).status).toBe(200);
  });
});

describeOnEachDatabase('member data and non-members', (target) => {
  const server = useServer(target);

  it('shows no member data to a non-member, over REST or tRPC', async () => {
    const owner = await registerUser(server());
    const member = await registerUser(server());
    const outsider = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, member, 'member');
    const input = (value: object) => encodeURIComponent(JSON.stringify(value));
    const attempts: Array<[string, string]> = [
      ['GET', '/organization-user'],
      ['GET', `/organization-user/${member.id}`],
      ['GET', '/organization-user?limit=1'],
      ['GET', `/trpc/members.list`],
      ['GET', `/trpc/members.get?input=${input({ user_id: member.id })}`],
      ['GET', `/trpc/members.page?input=${input({ limit: 10 })}`],
    ];
    for (const [method, path] of attempts) {
      const response = await server().call(method, path, { token: outsider.token, organizationId });
      expect(response.status, path).toBe(403);
      expect(JSON.stringify(response.body)).not.toContain(member.email);
    }
    const theirs = await server().call('GET', '/organizations', { token: outsider.token });
    expect(theirs.body).toEqual([]);
  });
});
