/**
 * The database goes away under a running service and comes back: readiness and requests answer
 * 503 quickly with the error body, and the service recovers without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser } from './support/fixtures.ts';
import { OwnMariadb } from './support/mariadb-instance.ts';
import { failWithout, ownMariadbMissing } from './support/needs.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('database outage on MariaDB', () => {
  failWithout(ownMariadbMissing());
  const database = new OwnMariadb();
  let server: TestServer;

  beforeAll(async () => {
    await database.start();
    server = await startTestServer(database.url);
  }, 60_000);
  afterAll(async () => {
    await server?.service.close();
    await database.destroy();
  });

  it('answers 503 within 2 s while the database is down, and recovers when it is back', async () => {
    const user = await registerUser(server);
    expect((await server.call('GET', '/readyz')).status).toBe(200);

    await database.stop();
    const withinTwoSeconds = { headers: {}, signal: AbortSignal.timeout(2000) };
    const ready = await fetch(`${server.baseUrl}/readyz`, withinTwoSeconds);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    for (const [method, path, body] of [
      ['GET', '/users', undefined],
      ['PUT', '/users', { first_name: 'Lost' }],
      ['GET', '/trpc/users.me', undefined],
    ] as const) {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: body && JSON.stringify(body),
        signal: AbortSignal.timeout(2000),
      });
      expect(response.status, path).toBe(503);
      const answer = await response.json();
      expect(JSON.stringify(answer)).toContain('SERVICE_UNAVAILABLE');
    }

    await database.start();
    let readyAgain = 0;
    for (let attempt = 0; attempt < 50 && readyAgain !== 200; attempt++) {
      readyAgain = (await server.call('GET', '/readyz')).status;
      if (readyAgain !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(readyAgain).toBe(200);
    const me = await server.call('GET', '/users', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.body.first_name).toBe(`First ${user.id}`);
  });
});
