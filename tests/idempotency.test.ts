/**
 * Idempotency keys (behaviour §10): a change with a key is carried out once; the same request again
 * gets the stored answer marked as a replay; a different request with the key gets 422; a request
 * while the first still runs gets 409; a failed request, or one whose client left, leaves the key
 * free; keys expire.
 */
import mysql from 'mysql2/promise';
import { expect, it } from 'vitest';
import { toDbTimestamp, type Database } from '../server/platform/database/schema.ts';
import { describeOnEachDatabase, openBesideService } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId } from './support/fixtures.ts';
import { rawRequest } from './support/raw-http.ts';
import { startTestServer, useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const newOrganization = { organization_name: 'Once', organization_description: 'made once' };

describeOnEachDatabase('idempotency keys', (target) => {
  const server = useServer(target);

  it('carries out a change once and answers its repeats from the store, marked as replays', async () => {
    const owner = await registerUser(server());
    const key = uniqueId('key');
    const first = await server().call('POST', '/api/organizations', {
      token: owner.token,
      body: newOrganization,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    for (const path of ['/api/organizations', '/organizations']) {
      const again = await server().call('POST', path, {
        token: owner.token,
        body: newOrganization,
        headers: { 'idempotency-key': key },
      });
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
    }
    const organizations = await server().call('GET', '/organizations', { token: owner.token });
    expect(organizations.body).toHaveLength(1);
  });

  it('answers 422 to the same key with another body or operation, and keys are per caller', async () => {
    const owner = await registerUser(server());
    const key = uniqueId('key');
    const headers = { 'idempotency-key': key };
    expect(
      (await server().call('POST', '/organizations', { token: owner.token, body: newOrganization, headers })).status,
    ).toBe(201);
    const otherBody = await server().call('POST', '/organizations', {
      token: owner.token,
      body: { ...newOrganization, organization_name: 'Twice' },
      headers,
    });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({
      code: 'UNPROCESSABLE_CONTENT',
      message: expect.stringMatching(/different request/),
    });
    const otherOperation = await server().call('PUT', '/users', {
      token: owner.token,
      body: { first_name: 'X' },
      headers,
    });
    expect(otherOperation.status).toBe(422);
    expect((await server().call('GET', '/users', { token: owner.token })).body.first_name).not.toBe('X');

    const someoneElse = await registerUser(server());
    const sameKey = await server().call('POST', '/organizations', {
      token: someoneElse.token,
      body: newOrganization,
      headers,
    });
    expect(sameKey.status).toBe(201);
    expect(sameKey.headers.get('idempotency-replayed')).toBeNull();
    expect((await server().call('GET', '/organizations', { token: owner.token })).body).toHaveLength(1);
  });

  it('leaves the key free after a refused request, so the same key can carry it out later', async () => {
    const owner = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    const email = `${uniqueId('later')}@example.com`;
    const headers = { 'idempotency-key': uniqueId('key') };
    const add = () =>
      server().call('POST', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { email, role: 'member' },
        headers,
      });
    expect((await add()).status).toBe(404); // no user with that e-mail yet
    const signUp = await server().call('POST', '/users', {
      token: await tokenFor(uniqueId('later'), { role: 'owner' }),
      body: { first_name: 'Later', last_name: 'Comer', email },
    });
    expect(signUp.status).toBe(201);
    const added = await add();
    expect(added.status).toBe(201);
    expect(added.headers.get('idempotency-replayed')).toBeNull();
    const replayed = await add();
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
  });

  it('answers a replay for every change endpoint, including those without a body of their own', async () => {
    const owner = await registerUser(server());
    const member = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, member, 'member');
    const calls = [
      ['PUT', '/organization-user', { user_id: member.id, role: 'admin' }],
      ['DELETE', '/organization-user', { user_id: member.id }],
      ['PUT', '/users', { last_name: 'Replayed' }],
    ] as const;
    for (const [method, path, body] of calls) {
      const headers = { 'idempotency-key': uniqueId('key') };
      const first = await server().call(method, path, { token: owner.token, organizationId, body, headers });
      expect(first.status, `${method} ${path}`).toBe(200);
      const again = await server().call(method, path, { token: owner.token, organizationId, body, headers });
      expect(again.status, `${method} ${path}`).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
    }
    // The DELETE was carried out once: a second one without a key finds no member.
    const gone = await server().call('DELETE', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { user_id: member.id },
    });
    expect(gone.status).toBe(404);
  });

  it("neither stores nor answers again an API key's secret: a repeated creation is 409, the key made once", async () => {
    const owner = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    const path = `/organizations/${organizationId}/api-keys`;
    const request = {
      token: owner.token,
      body: { name: 'Retried', role: 'member' },
      headers: { 'idempotency-key': uniqueId('key') },
    };
    const first = await server().call('POST', path, request);
    expect(first.status).toBe(201);
    const again = await server().call('POST', path, request);
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'CONFLICT' });
    expect(again.body.message).toMatch(/shown only once/);
    expect(JSON.stringify(again.body)).not.toContain(first.body.secret);
    const keys = await server().call('GET', path, { token: owner.token });
    expect(keys.body.map((key: { key_id: string }) => key.key_id)).toEqual([first.body.key_id]);
    const stored = await storedRows(server().databaseUrl, [request.headers['idempotency-key']]);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.response_body).not.toContain(first.body.secret);
    expect(JSON.parse(stored[0]!.response_body!)).toMatchObject({ key_id: first.body.key_id, secret_shown_once: true });
  });

  it('refuses a malformed key with 400 naming the header, and changes nothing', async () => {
    const owner = await registerUser(server());
    for (const key of ['x'.repeat(256), 'tab\tinside', 'é']) {
      const response = await server().call('POST', '/organizations', {
        token: owner.token,
        body: newOrganization,
        headers: { 'idempotency-key': key },
      });
      expect(response.status, key).toBe(400);
      expect(response.body.issues).toEqual([{ field: 'Idempotency-Key', problem: expect.any(String) }]);
    }
    // Two keys in two headers, which Node would join into one key nobody sent ("a, b").
    const body = JSON.stringify(newOrganization);
    for (const [path, sent] of [
      ['/organizations', body],
      ['/trpc/organizations.create', body],
    ] as const) {
      const twice = await rawRequest(
        server().baseUrl,
        [
          `POST ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          `Authorization: Bearer ${owner.token}`,
          'Content-Type: application/json',
          `Content-Length: ${Buffer.byteLength(sent)}`,
          'Idempotency-Key: first',
          'Idempotency-Key: second',
        ].join('\r\n'),
        { body: sent },
      );
      expect(twice.status, path).toBe(400);
      const issues = path.startsWith('/trpc') ? twice.body.error.data.issues : twice.body.issues;
      expect(issues, path).toEqual([{ field: 'Idempotency-Key', problem: expect.stringMatching(/one key/) }]);
    }
    expect((await server().call('GET', '/organizations', { token: owner.token })).body).toEqual([]);
  });

  it('forgets answers older than 24 hours: the key then carries out a new request', async () => {
    const owner = await registerUser(server());
    const key = uniqueId('key');
    const headers = { 'idempotency-key': key };
    expect(
      (await server().call('POST', '/organizations', { token: owner.token, body: newOrganization, headers })).status,
    ).toBe(201);
    await ageKeys(server().databaseUrl, target.name, [key]);
    const again = await server().call('POST', '/organizations', { token: owner.token, body: newOrganization, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBeNull();
    expect((await server().call('GET', '/organizations', { token: owner.token })).body).toHaveLength(2);
  });

  it('deletes expired keys when an instance starts (and hourly), keeping the others', async () => {
    const owner = await registerUser(server());
    const [expired, fresh] = [uniqueId('key'), uniqueId('key')];
    for (const key of [expired, fresh]) {
      const headers = { 'idempotency-key': key };
      const created = await server().call('POST', '/organizations', {
        token: owner.token,
        body: newOrganization,
        headers,
      });
      expect(created.status).toBe(201);
    }
    await ageKeys(server().databaseUrl, target.name, [expired]);
    const another = await startTestServer(server().databaseUrl);
    try {
      await expect.poll(() => storedKeys(server().databaseUrl, [expired, fresh]), { timeout: 5000 }).toEqual([fresh]);
    } finally {
      await another.service.close();
    }
  });

  // The embedded database runs one write at a time, so no other session can hold a row there.
  if (target.name === 'mariadb')
    it('answers 409 while the first request with the key is still running', async () => {
      const owner = await registerUser(server());
      const member = await registerUser(server());
      const organizationId = await createOrganization(server(), owner);
      await addMember(server(), owner, organizationId, member, 'member');
      const headers = { 'idempotency-key': uniqueId('key') };
      const body = { user_id: member.id, role: 'admin' };
      // Another session holds the organization's row, so the first request waits inside its change.
      const blocker = await mysql.createConnection({ uri: server().databaseUrl.replace(/^mariadb:/, 'mysql:') });
      try {
        await blocker.query('begin');
        await blocker.query('select id from organizations where id = ? for update', [organizationId]);
        const first = server().call('PUT', '/organization-user', { token: owner.token, organizationId, body, headers });
        await new Promise((resolve) => setTimeout(resolve, 300));
        const second = await server().call('PUT', '/organization-user', {
          token: owner.token,
          organizationId,
          body,
          headers,
        });
        expect(second.status).toBe(409);
        expect(second.body.message).toMatch(/still being processed/);
        await blocker.query('rollback');
        expect((await first).status).toBe(200);
      } finally {
        await blocker.end();
      }
      const third = await server().call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body,
        headers,
      });
      expect(third.status).toBe(200);
      expect(third.headers.get('idempotency-replayed')).toBe('true');
    });

  if (target.name === 'mariadb')
    it('carries out the retry of a request whose client left while it waited for a lock, never 409', async () => {
      const owner = await registerUser(server());
      const newcomer = await registerUser(server());
      const organizationId = await createOrganization(server(), owner);
      const key = uniqueId('key');
      const send = (signal?: AbortSignal) =>
        fetch(`${server().baseUrl}/organization-user`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${owner.token}`,
            organization_id: organizationId,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify({ email: newcomer.email, role: 'member' }),
          signal,
        });
      const blocker = await mysql.createConnection({ uri: server().databaseUrl.replace(/^mariadb:/, 'mysql:') });
      try {
        await blocker.query('begin');
        await blocker.query('select id from organizations where id = ? for update', [organizationId]);
        const client = new AbortController();
        const first = send(client.signal).catch((error: unknown) => error);
        await new Promise((resolve) => setTimeout(resolve, 300));
        client.abort();
        expect(await first).toBeInstanceOf(Error);
        // Sent while the organization is still locked: it waits its turn, then is carried out.
        const retry = send();
        await new Promise((resolve) => setTimeout(resolve, 300));
        await blocker.query('rollback');
        const retried = await retry;
        expect(retried.status).toBe(201);
        expect(retried.headers.get('idempotency-replayed')).toBeNull();
      } finally {
        await blocker.end();
      }
      const added = await server().call('GET', `/organizations/${organizationId}/events?type=member.added`, {
        token: owner.token,
      });
      expect(added.body.map((event: { subject_user_id: string }) => event.subject_user_id)).toEqual([newcomer.id]);
    });
});

/** Makes the stored keys 25 hours old, as the clock would. */
async function ageKeys(databaseUrl: string, target: string, keys: string[]): Promise<void> {
  const orm = await openBesideService(databaseUrl);
  try {
    const aged = await orm.em
      .getKysely<Database>()
      .updateTable('idempotency_keys')
      .set({
        created_at: toDbTimestamp(target === 'embedded' ? 'sqlite' : 'mysql', new Date(Date.now() - 25 * 3600_000)),
      })
      .where('idempotency_key', 'in', keys)
      .executeTakeFirst();
    expect(Number(aged.numUpdatedRows)).toBe(keys.length);
  } finally {
    await orm.close();
  }
}

/** The rows the database still holds of `keys`: each key with its stored answer, by key. */
async function storedRows(
  databaseUrl: string,
  keys: string[],
): Promise<Array<{ idempotency_key: string; response_body: string | null }>> {
  const orm = await openBesideService(databaseUrl);
  try {
    return await orm.em
      .getKysely<Database>()
      .selectFrom('idempotency_keys')
      .select(['idempotency_key', 'response_body'])
      .where('idempotency_key', 'in', keys)
      .orderBy('idempotency_key')
      .execute();
  } finally {
    await orm.close();
  }
}

/** Which of `keys` the database still holds. */
const storedKeys = async (databaseUrl: string, keys: string[]) =>
  (await storedRows(databaseUrl, keys)).map((row) => row.idempotency_key);
