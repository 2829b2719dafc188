import { expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { registerUser, uniqueId } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeOnEachDatabase('users', (target) => {
  const server = useServer(target);

  it('creates the caller from the token sub with 201, trims names and lower-cases the e-mail', async () => {
    const id = uniqueId('alice');
    const token = await tokenFor(id, { role: 'owner' });
    const created = await server().call('POST', '/api/users', {
      token,
      body: {
        first_name: '  Alice ',
        last_name: 'Liddell',
        email: `${id.toUpperCase()}@Example.COM`,
        extra: 'ignored',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true, message: expect.any(String) });
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');

    const read = await server().call('GET', '/api/users', { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id,
      first_name: 'Alice',
      last_name: 'Liddell',
      email: `${id}@example.com`,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
  });

  it('serves the same endpoints without the /api prefix', async () => {
    const user = await registerUser(server());
    const read = await server().call('GET', '/users', { token: user.token });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(user.id);
  });

  it('answers 409 to a second record for the same caller and to an e-mail already held', async () => {
    const user = await registerUser(server());
    const again = await server().call('POST', '/users', {
      token: user.token,
      body: { first_name: 'A', last_name: 'B', email: `${uniqueId('x')}@example.com` },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');

    const other = await tokenFor(uniqueId('other'), { role: 'admin' });
    const sameEmail = await server().call('POST', '/users', {
      token: other,
      body: { first_name: 'A', last_name: 'B', email: user.email.toUpperCase() },
    });
    expect(sameEmail.status).toBe(409);
    const notCreated = await server().call('GET', '/users', { token: other });
    expect(notCreated.status).toBe(404);
  });

  it('rejects invalid bodies with 400 and the failing fields, and stores nothing', async () => {
    const token = await tokenFor(uniqueId('bad'), { role: 'owner' });
    const cases = [
      { first_name: '', last_name: 'B', email: 'a@example.com' },
      { first_name: 'A', last_name: 'x'.repeat(101), email: 'a@example.com' },
      { first_name: 'A', last_name: 'B', email: 'not-an-email' },
      { first_name: 'A', last_name: 'B', email: `${'a'.repeat(250)}@example.com` },
      { first_name: 'A', last_name: 'B' },
      { first_name: 42, last_name: 'B', email: 'a@example.com' },
    ];
    for (const body of cases) {
      const response = await server().call('POST', '/users', { token, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('BAD_REQUEST');
      expect(response.body.issues.length).toBeGreaterThan(0);
      expect(response.body.issues[0]).toEqual({ field: expect.any(String), problem: expect.any(String) });
    }
    const read = await server().call('GET', '/users', { token });
    expect(read.status).toBe(404);
  });

  it('needs a token role of owner or admin to create (403 otherwise)', async () => {
    for (const role of [undefined, 'member', 'superuser']) {
      const token = await tokenFor(uniqueId('plain'), role ? { role } : {});
      const response = await server().call('POST', '/users', {
        token,
        body: { first_name: 'A', last_name: 'B', email: `${uniqueId('p')}@example.com` },
      });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
    }
  });

  it('updates first and/or last name, ignores an e-mail, and bumps updated_at', async () => {
    const user = await registerUser(server());
    const before = await server().call('GET', '/users', { token: user.token });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await server().call('PUT', '/api/users', {
      token: user.token,
      body: { first_name: ' Bob ', email: 'changed@example.com' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ success: true, message: expect.any(String) });
    const after = await server().call('GET', '/users', { token: user.token });
    expect(after.body.first_name).toBe('Bob');
    expect(after.body.last_name).toBe(before.body.last_name);
    expect(after.body.email).toBe(user.email);
    expect(after.body.created_at).toBe(before.body.created_at);
    expect(Date.parse(after.body.updated_at)).toBeGreaterThan(Date.parse(before.body.updated_at));
  });

  it('answers 400 to an update with no name, and 404 to a caller without a record', async () => {
    const user = await registerUser(server());
    const empty = await server().call('PUT', '/users', { token: user.token, body: {} });
    expect(empty.status).toBe(400);
    const stranger = await tokenFor(uniqueId('ghost'));
    expect((await server().call('PUT', '/users', { token: stranger, body: { first_name: 'A' } })).status).toBe(404);
    expect((await server().call('GET', '/users', { token: stranger })).status).toBe(404);
  });

  it('answers 401 without a valid token on every user endpoint', async () => {
    for (const method of ['GET', 'POST', 'PUT']) {
      const response = await server().call(method, '/api/users', { body: method === 'GET' ? undefined : {} });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });
    }
  });
});

describeOnEachDatabase('users with REQUIRE_CREATOR_ROLE=false', (target) => {
  const server = useServer(target, { REQUIRE_CREATOR_ROLE: 'false' });

  it('lets a caller without a role claim create a record', async () => {
    const token = await tokenFor(uniqueId('free'));
    const response = await server().call('POST', '/users', {
      token,
      body: { first_name: 'A', last_name: 'B', email: `${uniqueId('free')}@example.com` },
    });
    expect(response.status).toBe(201);
  });
});
