/** The HTTP surface around the endpoints: bodies, sizes, routes, ids, health, documents, tRPC. */
import { expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser } from './support/fixtures.ts';
import { startTestServer, useServer } from './support/server.ts';

const NO_INTERNALS = /stack|sql|select |insert |at \w+ \(|node_modules/i;

describeOnEachDatabase('HTTP behaviour', (target) => {
  const server = useServer(target);

  it('answers malformed JSON with 400 and the error body, on REST and tRPC', async () => {
    const user = await registerUser(server());
    const rest = await server().call('PUT', '/users', { token: user.token, rawBody: '{"first_name": "A",' });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ code: 'BAD_REQUEST', message: expect.any(String) });
    const trpc = await server().call('POST', '/trpc/users.update', { token: user.token, rawBody: '{"first_name":' });
    expect(trpc.status).toBe(400);
    expect(trpc.body.error.data.code).toBe('BAD_REQUEST');
  });

  it('answers a body over 64 KiB with 413 and changes nothing', async () => {
    const user = await registerUser(server());
    const big = { first_name: 'Big', padding: 'x'.repeat(70 * 1024) };
    const rest = await server().call('PUT', '/users', { token: user.token, body: big });
    expect(rest.status).toBe(413);
    expect(rest.body.code).toBe('PAYLOAD_TOO_LARGE');
    const trpc = await server().call('POST', '/trpc/users.update', { token: user.token, body: big });
    expect(trpc.status).toBe(413);
    expect((await server().call('GET', '/users', { token: user.token })).body.first_name).not.toBe('Big');
    const justUnder = await server().call('PUT', '/users', {
      token: user.token,
      body: { first_name: 'Fits', padding: 'x'.repeat(60 * 1024) },
    });
    expect(justUnder.status).toBe(200);
  });

  it('answers a non-JSON body with 415', async () => {
    const user = await registerUser(server());
    const response = await server().call('PUT', '/users', {
      token: user.token,
      rawBody: 'first_name=A',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const noBody = await server().call('PUT', '/users', { token: user.token });
    expect(noBody.status).toBe(415);
    expect(noBody.body).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Missing content-type header' });
  });

  it('answers a method a path does not serve with 404', async () => {
    const user = await registerUser(server());
    for (const [method, path] of [
      ['PATCH', '/users'],
      ['DELETE', '/users'],
      ['PUT', '/organizations'],
    ] as const) {
      const response = await server().call(method, path, { token: user.token, body: {} });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
  });

  it('answers unknown routes with 404 and serves membership paths only without /api', async () => {
    const user = await registerUser(server());
    const organizationId = await createOrganization(server(), user);
    for (const path of ['/nope', '/api/organization-user', '/api/nope']) {
      const response = await server().call('GET', path, { token: user.token, organizationId });
      expect(response.status, path).toBe(404);
      expect(response.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
    }
    expect((await server().call('GET', '/organization-user', { token: user.token, organizationId })).status).toBe(200);
  });

  it('echoes a request id, or makes one', async () => {
    const given = await server().request('GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const made = await server().request('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves /healthz, /readyz, /openapi.json and /docs', async () => {
    expect((await server().call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await server().call('GET', '/readyz')).body).toEqual({ status: 'ready' });
    const document = await server().call('GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\./);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/users', '/organizations', '/organization-user', '/organization-user/{user_id}']),
    );
    const docs = await server().request('GET', '/docs/');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger-ui/i);
  });

  it('speaks tRPC at /trpc, batching included, with the same error codes', async () => {
    const user = await registerUser(server());
    const organizationId = await createOrganization(server(), user);
    const batch = await server().call(
      'GET',
      `/trpc/users.me,organizations.list?batch=1&input=${encodeURIComponent('{}')}`,
      {
        token: user.token,
      },
    );
    expect(batch.status).toBe(200);
    expect(batch.body[0].result.data.id).toBe(user.id);
    expect(batch.body[1].result.data.map((organization: { id: string }) => organization.id)).toEqual([organizationId]);

    const denied = await server().call('POST', '/trpc/members.changeRole', {
      token: user.token,
      organizationId,
      body: { user_id: user.id, role: 'member' },
    });
    expect(denied.status).toBe(409);
    expect(denied.body.error.data.code).toBe('CONFLICT');
    expect(JSON.stringify(denied.body)).not.toMatch(NO_INTERNALS);
  });

  it('answers a failing query with 500 and a generic body, never SQL or a stack', async () => {
    // A server of its own whose membership table is dropped under it: a real database failure.
    const database = await target.create();
    const broken = await startTestServer(database.url);
    try {
      const user = await registerUser(broken);
      const organizationId = await createOrganization(broken, user);
      await broken.service.orm.em.getConnection().execute('DROP TABLE organization_users');
      for (const [method, path] of [
        ['GET', '/organization-user'],
        ['GET', '/api/organizations'],
        ['GET', '/trpc/members.list'],
      ] as const) {
        const response = await broken.call(method, path, { token: user.token, organizationId });
        expect(response.status, path).toBe(500);
        const text = JSON.stringify(response.body);
        expect(text).not.toMatch(NO_INTERNALS);
        expect(text).toMatch(/INTERNAL_SERVER_ERROR/);
      }
      expect((await broken.call('GET', '/organization-user', { token: user.token, organizationId })).body).toEqual({
        code: 'INTERNAL_SERVER_ERROR',
        message: 'Internal server error',
      });
      expect((await broken.call('GET', '/healthz')).status).toBe(200);
    } finally {
      await broken.service.close();
      await database.drop();
    }
  });
});
