/** The HTTP surface around the endpoints: bodies, sizes, routes, ids, health, documents, tRPC. */
import { connect } from 'node:net';
import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../client/src/index.ts';
import { toApiError } from '../client/src/errors.ts';
import { databaseTargets, describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser } from './support/fixtures.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';
import { startTestServer, useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const NO_INTERNALS = /stack|sql|select |insert |at \w+ \(|node_modules/i;
const JSON_UTF8 = 'application/json; charset=utf-8';

/** A head for rawRequest, and the body to send after it. */
type RawRequest = [head: string, body?: string];

function expectContractError(response: RawResponse, status: number, code: string, label: string): void {
  expect(response.status, label).toBe(status);
  expect(response.headers['content-type'], label).toBe(JSON_UTF8);
  expect(response.body, label).toEqual({ code, message: expect.any(String) });
  expect(JSON.stringify(response.body), label).not.toMatch(NO_INTERNALS);
}

/** tRPC's error shape, read back the way the typed client reads it: an ApiError with the status. */
function expectTrpcError(response: RawResponse, status: number, code: string, label: string): void {
  expect(response.status, label).toBe(status);
  expect(response.headers['content-type'], label).toBe(JSON_UTF8);
  const error = toApiError(TRPCClientError.from(response.body));
  expect(error, label).toBeInstanceOf(ApiError);
  expect(error, label).toMatchObject({ status, code });
}

describeOnEachDatabase('HTTP behaviour', (target) => {
  const server = useServer(target);

  /** A request head for rawRequest: request line, Host, and any more header lines. */
  const head = (requestLine: string, ...headers: string[]) => [requestLine, 'Host: 127.0.0.1', ...headers].join('\r\n');

  /**
   * Every error answered outside a procedure, raised anywhere from Node's parser to the route:
   * the same status on REST and on /trpc, the contract's body on one and tRPC's shape on the other.
   */
  it('answers every error outside a procedure in the contract body on REST and in tRPC shape on /trpc', async () => {
    const user = await registerUser(server());
    const auth = `Authorization: Bearer ${user.token}`;
    const json = 'Content-Type: application/json';
    const tooLong = 'a'.repeat(20_000);
    const bigBody = JSON.stringify({ first_name: 'Big', padding: 'x'.repeat(70 * 1024) });
    const manyLines = Array.from({ length: 1200 }, (_, index) => `X-${index}: v`);
    // Plain JSON under a coding label: read as it came, it would be taken.
    const coded = JSON.stringify({ first_name: 'Coded' });
    const cases: Array<{ name: string; status: number; code: string; rest: RawRequest; trpc: RawRequest }> = [
      {
        name: 'unknown path',
        status: 404,
        code: 'NOT_FOUND',
        rest: [head('GET /nope HTTP/1.1')],
        trpc: [head('GET /trpc/a/b HTTP/1.1')],
      },
      {
        name: 'unknown procedure',
        status: 404,
        code: 'NOT_FOUND',
        rest: [head('GET /api/nope HTTP/1.1')],
        trpc: [head('GET /trpc/users.nope HTTP/1.1', auth)],
      },
      {
        name: 'method not served',
        status: 405,
        code: 'METHOD_NOT_SUPPORTED',
        rest: [head('TRACE /users HTTP/1.1')],
        trpc: [head('TRACE /trpc/users.me HTTP/1.1')],
      },
      {
        name: 'an Expect other than 100-continue',
        status: 417,
        code: 'BAD_REQUEST',
        rest: [head('GET /users HTTP/1.1', auth, 'Expect: teapot')],
        trpc: [head('GET /trpc/users.me HTTP/1.1', auth, 'Expect: teapot')],
      },
      {
        name: 'a body with a Content-Encoding',
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        rest: [
          head('PUT /users HTTP/1.1', auth, json, 'Content-Encoding: x-coded', `Content-Length: ${coded.length}`),
          coded,
        ],
        trpc: [
          head(
            'POST /trpc/users.update HTTP/1.1',
            auth,
            json,
            'Content-Encoding: gzip',
            `Content-Length: ${coded.length}`,
          ),
          coded,
        ],
      },
      {
        name: "CONNECT, a proxy's tunnel",
        status: 405,
        code: 'METHOD_NOT_SUPPORTED',
        rest: [head('CONNECT example.com:443 HTTP/1.1')],
        trpc: [head('CONNECT /trpc/users.me HTTP/1.1')],
      },
      {
        name: 'path parameter over 5000 characters',
        status: 414,
        code: 'BAD_REQUEST',
        rest: [head(`GET /organization-user/${'a'.repeat(5001)} HTTP/1.1`)],
        trpc: [head(`GET /trpc/${'a'.repeat(5001)} HTTP/1.1`)],
      },
      {
        name: 'URL over 16 KiB',
        status: 414,
        code: 'BAD_REQUEST',
        rest: [head(`GET /users?padding=${tooLong} HTTP/1.1`)],
        trpc: [head(`GET /trpc/users.me?padding=${tooLong} HTTP/1.1`)],
      },
      {
        name: 'headers over 16 KiB',
        status: 431,
        code: 'BAD_REQUEST',
        rest: [head('GET /users HTTP/1.1', `X-Padding: ${tooLong}`)],
        trpc: [head('GET /trpc/users.me HTTP/1.1', `X-Padding: ${tooLong}`)],
      },
      {
        name: 'malformed URL escape',
        status: 400,
        code: 'BAD_REQUEST',
        rest: [head('GET /users/%E0%A4%A HTTP/1.1')],
        trpc: [head('GET /trpc/%E0%A4%A HTTP/1.1')],
      },
      {
        name: 'control character in a header',
        status: 400,
        code: 'BAD_REQUEST',
        rest: [head('GET /users HTTP/1.1', 'X-Note: a\x01b')],
        trpc: [head('GET /trpc/users.me HTTP/1.1', 'X-Note: a\x7fb')],
      },
      {
        name: 'malformed JSON',
        status: 400,
        code: 'BAD_REQUEST',
        rest: [head('PUT /users HTTP/1.1', auth, json, 'Content-Length: 14'), '{"first_name":'],
        trpc: [head('POST /trpc/users.update HTTP/1.1', auth, json, 'Content-Length: 14'), '{"first_name":'],
      },
      {
        name: 'body over 64 KiB',
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
        rest: [head('PUT /users HTTP/1.1', auth, json, `Content-Length: ${bigBody.length}`), bigBody],
        trpc: [head('POST /trpc/users.update HTTP/1.1', auth, json, `Content-Length: ${bigBody.length}`), bigBody],
      },
      {
        name: 'no Host header',
        status: 400,
        code: 'BAD_REQUEST',
        rest: ['GET /users HTTP/1.1'],
        trpc: ['GET /trpc/users.me HTTP/1.1'],
      },
      {
        // Node keeps the first; SCIM's Location would name whichever a client put first.
        name: 'two Host headers',
        status: 400,
        code: 'BAD_REQUEST',
        rest: [head('GET /users HTTP/1.1', auth, 'Host: other.example')],
        trpc: [head('GET /trpc/users.me HTTP/1.1', auth, 'host: other.example')],
      },
      {
        name: 'over 1000 header lines, in under 16 KiB',
        status: 431,
        code: 'BAD_REQUEST',
        rest: [head('GET /users HTTP/1.1', ...manyLines)],
        trpc: [head('GET /trpc/users.me HTTP/1.1', ...manyLines)],
      },
      {
        name: 'body not JSON',
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        rest: [head('PUT /users HTTP/1.1', auth, 'Content-Type: text/plain', 'Content-Length: 1'), 'x'],
        trpc: [head('POST /trpc/users.update HTTP/1.1', auth, 'Content-Type: text/plain', 'Content-Length: 1'), 'x'],
      },
    ];
    for (const { name, status, code, rest, trpc } of cases) {
      const overRest = await rawRequest(server().baseUrl, rest[0], { body: rest[1] });
      const overTrpc = await rawRequest(server().baseUrl, trpc[0], { body: trpc[1] });
      expectContractError(overRest, status, code, name);
      expectTrpcError(overTrpc, status, code, name);
      // Every answer carries the security headers, those written before there is a request too.
      for (const answer of [overRest, overTrpc]) expect(answer.headers['x-content-type-options'], name).toBe('nosniff');
    }
    // 431 says which of its two limits it may be.
    const tooManyLines = await rawRequest(server().baseUrl, head('GET /users HTTP/1.1', ...manyLines));
    expect(tooManyLines.body.message).toMatch(/1000 header lines/);
    const fewerLines = manyLines.slice(0, 990);
    expect((await rawRequest(server().baseUrl, head('GET /users HTTP/1.1', auth, ...fewerLines))).status).toBe(200);
    expect((await server().call('GET', '/users', { token: user.token })).body.first_name).not.toMatch(/^(Big|Coded)$/);
    const justUnder = await server().call('PUT', '/users', {
      token: user.token,
      body: { first_name: 'Fits', padding: 'x'.repeat(60 * 1024) },
    });
    expect(justUnder.status).toBe(200);
  });

  it('answers an empty body labelled JSON, where a body is needed, with a 400 that says so, changing nothing', async () => {
    const user = await registerUser(server());
    for (const path of ['/users', '/api/users']) {
      const empty = await server().call('PUT', path, {
        token: user.token,
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      expect(empty.status, path).toBe(400);
      expect(empty.body, path).toEqual({
        code: 'BAD_REQUEST',
        message: 'The request body is empty: this operation needs a JSON object',
      });
    }
    expect((await server().call('GET', '/users', { token: user.token })).body.first_name).toBe(`First ${user.id}`);
  });

  it('answers a request before closing on the malformed bytes pipelined after it on the same connection', async () => {
    const user = await registerUser(server());
    const body = JSON.stringify({ first_name: 'Pipelined' });
    const { hostname, port } = new URL(server().baseUrl);
    const received = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `PUT /users HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${user.token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
            'NOT\x01HTTP at all\r\n\r\n',
        );
      });
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });
    // The request's own answer first; the bytes after it end the connection.
    expect(received.match(/^HTTP\/1\.1 \d{3}/gm)?.[0]).toBe('HTTP/1.1 200');
    expect((await server().call('GET', '/users', { token: user.token })).body.first_name).toBe('Pipelined');
  });

  it('names what is wrong: a repeated, unreadable or out-of-range limit, an over-long webhook URL', async () => {
    const owner = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    for (const query of [
      'limit=1&limit=2',
      'limit=1e400',
      'limit=99999999999999999999',
      'limit=abc',
      'limit=0',
      'limit=1001',
      'limit=2.5',
      'limit=0x2',
      'limit=%201e0%20',
      'limit=',
    ]) {
      const answer = await server().call('GET', `/organization-user?${query}`, { token: owner.token, organizationId });
      expect(answer.status, query).toBe(400);
      expect(answer.body.issues, query).toEqual([
        { field: 'limit', problem: 'Must be one whole number from 1 to 1000' },
      ]);
    }
    // tRPC takes JSON: a number, not text or anything else a query string's conversion might read as one.
    for (const [limit, status] of [
      [3, 200],
      ['3', 400],
      [true, 400],
      [[3], 400],
    ] as const) {
      const input = encodeURIComponent(JSON.stringify({ limit }));
      const answer = await server().call('GET', `/trpc/members.page?input=${input}`, {
        token: owner.token,
        organizationId,
      });
      expect(answer.status, JSON.stringify(limit)).toBe(status);
    }
    // A loopback URL: if the length were not refused first, the URL guard would refuse http (no lookup).
    const hook = await server().call('POST', `/organizations/${organizationId}/webhooks`, {
      token: owner.token,
      body: { url: `http://127.0.0.1:9/${'a'.repeat(3000)}`, event_types: ['*'] },
    });
    expect(hook.status).toBe(400);
    expect(hook.body.issues).toEqual([{ field: 'url', problem: expect.stringMatching(/2048 characters/) }]);
  });

  it("words each refused field in the service's words, zod's own checks included (behaviour §5)", async () => {
    const owner = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    const inOrganization = `/organizations/${organizationId}`;
    const unknownId = '0190a0c4-0000-7000-8000-000000000000';
    const newcomer = await tokenFor(`newcomer-${organizationId}`, { role: 'owner' });
    const refusals: Array<[string, string, string, object | undefined, Array<[string, string]>]> = [
      [
        'POST',
        `${inOrganization}/roles`,
        owner.token,
        { role: 'x1', permissions: [] },
        [['permissions', 'Must name at least 1 permission']],
      ],
      [
        'POST',
        `${inOrganization}/roles`,
        owner.token,
        { role: 'x1', permissions: 'members:read' },
        [['permissions', 'Must be an array of permission names']],
      ],
      [
        'POST',
        `${inOrganization}/roles`,
        owner.token,
        { role: 5, permissions: ['members:read'] },
        [['role', 'Must be a string']],
      ],
      [
        'POST',
        `${inOrganization}/teams`,
        owner.token,
        { name: 'Team', roles: 'admin' },
        [['roles', 'Must be an array of role names']],
      ],
      [
        'POST',
        `${inOrganization}/teams`,
        owner.token,
        { name: 'Team', roles: Array.from({ length: 21 }, (_, n) => `r${n}`) },
        [['roles', 'Must name at most 20 roles']],
      ],
      ['GET', `${inOrganization}/teams/not-a-team`, owner.token, undefined, [['team_id', 'Must be a UUID']]],
      [
        'GET',
        `/organization-user?search=${'a'.repeat(120)}`,
        owner.token,
        undefined,
        [['search', 'Must be at most 100 characters']],
      ],
      [
        'GET',
        '/organization-user?search=%20%20',
        owner.token,
        undefined,
        [['search', 'Must hold a character other than white space and invisible ones']],
      ],
      [
        'GET',
        '/organization-user?sort=age',
        owner.token,
        undefined,
        [['sort', 'Must be one of "created_at", "-created_at", "name", "-name", "email", "-email"']],
      ],
      [
        'POST',
        '/organization-user',
        owner.token,
        { email: 'not-an-address', role: 'member' },
        [['email', 'Must be an e-mail address']],
      ],
      [
        'POST',
        '/users',
        newcomer,
        { last_name: 'Newcomer', email: 'newcomer@example.com' },
        [['first_name', 'Must be given']],
      ],
      [
        'PUT',
        `${inOrganization}/webhooks/${unknownId}`,
        owner.token,
        { enabled: 'yes' },
        [['enabled', 'Must be true or false']],
      ],
      [
        'POST',
        `${inOrganization}/webhooks`,
        owner.token,
        { url: 'https://example.com/hook', event_types: [] },
        [['event_types', 'Must name at least 1 event type, or be ["*"]']],
      ],
      [
        'POST',
        `${inOrganization}/webhooks`,
        owner.token,
        { url: 'https://example.com/hook', event_types: 'member.added' },
        [
          [
            'event_types',
            expect.stringMatching(/^Must be \["\*"\] for every event type, or an array of 1 to \d+ event types/),
          ],
        ],
      ],
    ];
    for (const [method, path, token, body, issues] of refusals) {
      const label = `${method} ${path.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 80)}`;
      const answer = await server().call(method, path, { token, organizationId, body });
      expect(answer.status, label).toBe(400);
      expect(answer.body.issues, label).toEqual(issues.map(([field, problem]) => ({ field, problem })));
    }
  });

  it('refuses a query string whose percent-escapes do not decode, as a path, on REST and tRPC', async () => {
    const owner = await registerUser(server());
    const named = await server().call('POST', '/organizations', {
      token: owner.token,
      body: { organization_name: '%C3zz Org', organization_description: '' },
    });
    expect(named.status).toBe(201);
    for (const query of ['search=%C3', 'search=%ZZ', 'search=%C3%28', 'search=%ED%A0%80', 'limit=1&%E0=1']) {
      const answer = await server().call('GET', `/organizations?${query}`, { token: owner.token });
      expect([answer.status, answer.body], query).toEqual([
        400,
        { code: 'BAD_REQUEST', message: 'The URL holds a malformed percent-escape' },
      ]);
      expect(answer.headers.get('x-content-type-options'), query).toBe('nosniff');
    }
    const trpc = await server().call('GET', '/trpc/organizations.list?input=%C3', { token: owner.token });
    expect(trpc.status).toBe(400);
    expect(trpc.body.error.data.code).toBe('BAD_REQUEST');
    // Well-formed escapes are read as ever: the name's own `%`, escaped, finds it.
    const found = await server().call('GET', '/organizations?search=%25C3zz', { token: owner.token });
    expect(found.status).toBe(200);
    expect(found.body.map((organization: { name: string }) => organization.name)).toEqual(['%C3zz Org']);
  });

  it('answers a method a known path does not serve with 405 and Allow, before reading any body', async () => {
    const cases: Array<[string, string, string]> = [
      ['TRACE', '/users', 'DELETE, GET, HEAD, POST, PUT'],
      ['PATCH', '/users', 'DELETE, GET, HEAD, POST, PUT'],
      ['QUERY', '/users', 'DELETE, GET, HEAD, POST, PUT'],
      ['PATCH', '/api/users', 'DELETE, GET, HEAD, POST, PUT'],
      ['OPTIONS', '/users', 'DELETE, GET, HEAD, POST, PUT'],
      ['PUT', '/organizations', 'GET, HEAD, POST'],
      ['PATCH', '/organization-user', 'DELETE, GET, HEAD, POST, PUT'],
      ['POST', '/organization-user/someone', 'GET, HEAD'],
      ['DELETE', '/openapi.json', 'GET, HEAD'],
      ['PUT', '/trpc/users.me', 'GET, POST'],
      ['HEAD', '/trpc/users.me', 'GET, POST'],
    ];
    for (const [method, path, allow] of cases) {
      // A malformed body changes nothing: the method is refused first.
      const response = await rawRequest(
        server().baseUrl,
        head(`${method} ${path} HTTP/1.1`, 'Content-Type: application/json', 'Content-Length: 5'),
        { body: '{bad:' },
      );
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.allow, `${method} ${path}`).toBe(allow);
      if (method === 'HEAD') continue;
      if (path.startsWith('/trpc')) expectTrpcError(response, 405, 'METHOD_NOT_SUPPORTED', path);
      else expectContractError(response, 405, 'METHOD_NOT_SUPPORTED', path);
    }
    // tRPC's own answer to a procedure of the other kind names the one method it takes.
    const mutationByGet = await rawRequest(server().baseUrl, head('GET /trpc/users.update HTTP/1.1'));
    expect(mutationByGet.headers.allow).toBe('POST');
    expectTrpcError(mutationByGet, 405, 'METHOD_NOT_SUPPORTED', 'GET of a mutation');
    // Unknown paths stay 404 whatever the method.
    expectContractError(
      await rawRequest(server().baseUrl, head('PATCH /nope HTTP/1.1')),
      404,
      'NOT_FOUND',
      'PATCH /nope',
    );
  });

  it('answers a POST or PUT without a JSON Content-Type with 415 saying what it expects', async () => {
    const user = await registerUser(server());
    const organizationId = await createOrganization(server(), user);
    const textBody = await server().call('PUT', '/users', {
      token: user.token,
      rawBody: 'first_name=A',
      headers: { 'content-type': 'text/plain' },
    });
    expect(textBody.status).toBe(415);
    expect(textBody.body).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Expected a JSON body with Content-Type: application/json; got Content-Type: "text/plain"',
    });
    const noBody = await server().call('POST', '/api/organizations', { token: user.token });
    expect(noBody.status).toBe(415);
    expect(noBody.body).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Expected a JSON body with Content-Type: application/json; got no Content-Type',
    });
    const xml = await server().call('POST', '/organization-user', {
      token: user.token,
      organizationId,
      rawBody: '<user/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.status).toBe(415);
    expect(xml.body.message).toMatch(/Expected a JSON body with Content-Type: application\/json/);
    // A DELETE that carries a body carries JSON too.
    const deleteText = await server().call('DELETE', '/organization-user', {
      token: user.token,
      organizationId,
      rawBody: 'user_id=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(deleteText.status).toBe(415);
  });

  it('ignores __proto__ and constructor.prototype keys in well-formed JSON: dropped, never merged', async () => {
    const user = await registerUser(server());
    const bodies = [
      '{"first_name":"Ann","x":{"__proto__":{}}}',
      '{"first_name":"Ann","__proto__":{"last_name":"Merged"}}',
      '{"first_name":"Ann","constructor":{"prototype":{"last_name":"Merged"}}}',
      '{"first_name":"Ann","x":{"constructor":{"prototype":{"polluted":true}}}}',
    ];
    for (const rawBody of bodies) {
      for (const [method, path] of [
        ['PUT', '/users'],
        ['POST', '/trpc/users.update'],
      ] as const) {
        const response = await server().call(method, path, { token: user.token, rawBody });
        expect(response.status, `${path} ${rawBody}`).toBe(200);
        const me = (await server().call('GET', '/users', { token: user.token })).body;
        expect(me.first_name).toBe('Ann');
        expect(me.last_name).toBe(`Last ${user.id}`);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // Inside metadata, whose keys are data: dropped there too, on tRPC as on REST.
    const organizationId = await createOrganization(server(), user);
    const patch = (key: string) =>
      `{"public_metadata":{"${key}":{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}},"kept":1,"list":[{"__proto__":{"x":1},"k":null}]}}}`;
    const rest = await server().call('PATCH', `/organizations/${organizationId}/metadata`, {
      token: user.token,
      rawBody: patch('rest'),
    });
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    const trpc = await server().call('POST', '/trpc/organizations.updateMetadata', {
      token: user.token,
      rawBody: `{"organization_id":"${organizationId}",${patch('trpc').slice(1)}`,
    });
    expect(trpc.status, JSON.stringify(trpc.body)).toBe(200);
    const read = await server().request('GET', `/organizations/${organizationId}`, { token: user.token });
    // The raw text: a parsed object would hide a `__proto__` key.
    const { public_metadata: metadata } = JSON.parse(await read.text(), (key, value: unknown) =>
      key === '__proto__' ? { found: true } : value,
    ) as { public_metadata: Record<string, unknown> };
    // Inside an array a null is a value, kept: only the dropped keys go.
    const stored = { kept: 1, list: [{ k: null }] };
    expect(metadata).toEqual({ rest: stored, trpc: stored });
  });

  it('takes ids of 128 characters in every path and header that holds one', async () => {
    const owner = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    // 128 UTF-16 units each: ASCII, two-byte UTF-8, and characters outside the BMP.
    for (const [index, id] of ['a'.repeat(127) + 'z', 'ü'.repeat(128), '😀'.repeat(64)].entries()) {
      const token = await tokenFor(id, { role: 'owner' });
      const email = `long-id-${index}-${owner.id}@example.com`;
      const created = await server().call('POST', '/users', {
        token,
        body: { first_name: 'Long', last_name: 'Id', email },
      });
      expect(created.status).toBe(201);
      expect((await server().call('GET', '/users', { token })).body.id).toBe(id);
      const added = await server().call('POST', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { email, role: 'member' },
      });
      expect(added.body.user_id).toBe(id);
      const member = await server().call('GET', `/organization-user/${encodeURIComponent(id)}`, {
        token: owner.token,
        organizationId,
      });
      expect(member.status, `GET /organization-user/{${id.length} characters}`).toBe(200);
      expect(member.body.user_id).toBe(id);
      const viaTrpc = await server().call(
        'GET',
        `/trpc/members.get?input=${encodeURIComponent(JSON.stringify({ user_id: id }))}`,
        { token: owner.token, organizationId },
      );
      expect(viaTrpc.body.result.data.user_id).toBe(id);
      const changed = await server().call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: id, role: 'admin' },
      });
      expect(changed.status).toBe(200);
      // The member's own token (its `sub` is the id) reads the organization's members.
      expect((await server().call('GET', '/organization-user', { token, organizationId })).status).toBe(200);
      const removed = await server().call('DELETE', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: id },
      });
      expect(removed.status).toBe(200);
    }
    // One more is a validation error naming the field, not a 414.
    const tooLong = await server().call('GET', `/organization-user/${'a'.repeat(129)}`, {
      token: owner.token,
      organizationId,
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.issues).toEqual([{ field: 'user_id', problem: expect.any(String) }]);
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
    // The page's document: the service's, with the organization header as a scheme of its own.
    const shown = await server().call('GET', '/docs/json');
    expect(shown.status).toBe(200);
    expect(shown.body.info).toEqual(document.body.info);
    expect(Object.keys(shown.body.paths)).toEqual(Object.keys(document.body.paths));
    expect(shown.body.components.securitySchemes.OrganizationId).toMatchObject({
      in: 'header',
      name: 'organization_id',
    });
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

  it("refuses malformed JSON over tRPC in the service's words, as REST does, not JSON.parse's", async () => {
    const user = await registerUser(server());
    const malformed = '{"first_name":';
    const overRest = await server().call('PUT', '/users', { token: user.token, rawBody: malformed });
    expect([overRest.status, overRest.body.message]).toEqual([400, 'Malformed JSON in request body']);
    for (const path of ['/trpc/users.update', '/trpc/users.update?batch=1']) {
      const overTrpc = await server().call('POST', path, { token: user.token, rawBody: malformed });
      expect(overTrpc.status, path).toBe(400);
      const [refusal] = [overTrpc.body].flat() as Array<{ error: { message: string; data: { code: string } } }>;
      expect([refusal!.error.message, refusal!.error.data.code], path).toEqual([
        'Malformed JSON in request body',
        'BAD_REQUEST',
      ]);
    }
    const inQuery = await server().call('GET', `/trpc/organizations.page?input=${encodeURIComponent('{"limit":')}`, {
      token: user.token,
    });
    expect([inQuery.status, inQuery.body.error.message]).toEqual([400, 'Malformed JSON in the input query parameter']);
    // A subscription's refusal comes inside its event stream.
    const stream = await fetch(`${server().baseUrl}/trpc/events.watch?input=${encodeURIComponent('{"a')}`, {
      headers: { authorization: `Bearer ${user.token}` },
    });
    const reader = stream.body!.getReader();
    let events = '';
    while (!events.includes('serialized-error')) {
      const { value, done } = await reader.read();
      if (done) break;
      events += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(events).toContain('"message":"Malformed JSON in the input query parameter"');
    expect((await server().call('GET', '/users', { token: user.token })).body.first_name).toBe(`First ${user.id}`);
  });

  it('answers a failing query with 500 and a generic body, never SQL or a stack', async () => {
    // A server of its own whose membership table is dropped under it: a real database failure.
    const database = await target.create();
    const broken = await startTestServer(database.url);
    try {
      const user = await registerUser(broken);
      const organizationId = await createOrganization(broken, user);
      // team_members references it: dropped first, or the database refuses.
      await broken.service.orm.em.getConnection().execute('DROP TABLE team_members');
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

// Slow clients do not depend on the database: one server with a short request timeout, longer than
// the processing limit (DB_TIMEOUT_MS + 200 ms), which starts only once the body is in.
describe('a request not received within REQUEST_TIMEOUT_MS', () => {
  // The socket closes unanswered at twice the timeout: room for a loaded machine to answer first.
  const server = useServer(databaseTargets()[0]!, { REQUEST_TIMEOUT_MS: '2000', DB_TIMEOUT_MS: '300' });
  const head = (requestLine: string, ...headers: string[]) => [requestLine, 'Host: 127.0.0.1', ...headers].join('\r\n');

  it('is answered 408: the contract body on REST, tRPC shape on /trpc, the contract body before the path is known', async () => {
    const token = await tokenFor('slow-sender', { role: 'owner' });
    const halfBody = ['Content-Type: application/json', 'Content-Length: 100', `Authorization: Bearer ${token}`];
    const sentAt = performance.now();
    const [rest, trpc, creation, stalledHeaders] = await Promise.all([
      rawRequest(server().baseUrl, head('PUT /users HTTP/1.1', ...halfBody), { body: '{"first_' }),
      rawRequest(server().baseUrl, head('POST /trpc/users.update HTTP/1.1', ...halfBody), { body: '{"first_' }),
      rawRequest(server().baseUrl, head('POST /organizations HTTP/1.1', ...halfBody), { body: '{"or' }),
      rawRequest(server().baseUrl, head('PUT /users HTTP/1.1', 'Content-Type: application/json'), {
        stallHeaders: true,
      }),
    ]);
    expectContractError(rest, 408, 'TIMEOUT', 'REST body');
    expectTrpcError(trpc, 408, 'TIMEOUT', 'tRPC body');
    expectContractError(creation, 408, 'TIMEOUT', 'POST /organizations body');
    expectContractError(stalledHeaders, 408, 'TIMEOUT', 'headers');
    for (const answer of [rest, trpc, creation]) {
      expect(answer.headers.connection).toBe('close');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    // Not the processing limit's 503 at 500 ms: the body had REQUEST_TIMEOUT_MS to arrive.
    expect(performance.now() - sentAt).toBeGreaterThan(1500);
  });
});

describe('the rate limit', () => {
  const server = useServer(databaseTargets()[0]!, { RATE_LIMIT_MAX: '1' });

  it('is answered 429 in the contract body on REST and in tRPC shape on /trpc', async () => {
    const token = await tokenFor('rate-limited');
    const head = (requestLine: string) =>
      [requestLine, 'Host: 127.0.0.1', `Authorization: Bearer ${token}`].join('\r\n');
    await rawRequest(server().baseUrl, head('GET /users HTTP/1.1'));
    const rest = await rawRequest(server().baseUrl, head('GET /users HTTP/1.1'));
    expectContractError(rest, 429, 'TOO_MANY_REQUESTS', 'REST');
    expect(rest.headers['retry-after']).toMatch(/^\d+$/);
    expectTrpcError(
      await rawRequest(server().baseUrl, head('GET /trpc/users.me HTTP/1.1')),
      429,
      'TOO_MANY_REQUESTS',
      'tRPC',
    );
  });
});
