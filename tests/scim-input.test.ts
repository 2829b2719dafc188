/**
 * What SCIM reads and how it refuses (behaviour §18): the key before the body (behaviour §5), its
 * strings by the service's rules for e-mail addresses and names, bodies decoded strictly, every
 * error under /scim/v2 in SCIM's error schema, uniqueness answered before the seat limit, and a
 * DELETE without a body.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newKeySecret } from '../server/modules/api-keys/api-keys.service.ts';
import { createApplicationKey } from './support/application-keys.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import {
  clientOfLimitedOrganization,
  expectScimError,
  GROUP_SCHEMA,
  oktaUser,
  organizationKey,
  patch,
  scimClient,
  USER_SCHEMA,
  type ScimAnswer,
  type ScimClient,
} from './support/scim.ts';
import { rawRequest } from './support/raw-http.ts';
import { useServer } from './support/server.ts';

describeOnEachDatabase('SCIM input and refusals (behaviour §18)', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let organizationId: string;
  let key: string;
  let scim: ScimClient;

  beforeAll(async () => {
    owner = await registerUser(server(), 'scim-input-owner');
    organizationId = await createOrganization(server(), owner);
    key = await organizationKey(server(), owner, organizationId);
    scim = scimClient(server(), key);
  });

  /** A request whose body is these bytes, as sent. */
  async function sendBytes(method: string, path: string, contentType: string, body: Buffer): Promise<ScimAnswer> {
    const response = await fetch(`${server().baseUrl}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
      body: new Uint8Array(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? JSON.parse(text) : undefined,
      contentType: response.headers.get('content-type'),
    };
  }

  describe('the key comes before the body (behaviour §5): without one that verifies, 401 whatever the body holds', () => {
    const bigBody = JSON.stringify({ schemas: [USER_SCHEMA], padding: 'x'.repeat(70 * 1024) });
    const bodies: Array<[string, string, string, number, string, string?]> = [
      ['malformed JSON', 'application/scim+json', '{', 400, 'The body is not valid JSON', 'invalidSyntax'],
      ['a body over 64 KiB', 'application/scim+json', bigBody, 413, 'The body is larger than 64 KiB'],
      ['not JSON', 'text/xml', '<user/>', 415, 'The body must be application/scim+json (or application/json)'],
    ];
    /** The request, as sent on a socket of its own: `sent` of the body's bytes, all when not given. */
    const send = (requestLine: string, authorization: string | undefined, type: string, body: string, sent?: number) =>
      rawRequest(
        server().baseUrl,
        [
          requestLine,
          'Host: 127.0.0.1',
          ...(authorization === undefined ? [] : [`Authorization: Bearer ${authorization}`]),
          `Content-Type: ${type}`,
          `Content-Length: ${Buffer.byteLength(body)}`,
        ].join('\r\n'),
        { body: body.slice(0, sent) },
      );

    it('refuses no key, a malformed, unknown or revoked one with 401, and a person or an application key with 403', async () => {
      const created = await scim.send('POST', '/Users', oktaUser(`${uniqueId('body')}@example.com`));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const revokedKey = await server().call('POST', `/organizations/${organizationId}/api-keys`, {
        token: owner.token,
        body: { name: 'Revoked', role: 'admin' },
      });
      expect(revokedKey.status, JSON.stringify(revokedKey.body)).toBe(201);
      // Used once before it is revoked: the service knows its organization.
      expect((await scimClient(server(), revokedKey.body.secret).send('GET', '/Users')).status).toBe(200);
      const revoked = await server().call(
        'DELETE',
        `/organizations/${organizationId}/api-keys/${revokedKey.body.key_id}`,
        { token: owner.token },
      );
      expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
      const credentials: Array<[string, string | undefined, number]> = [
        ['no key', undefined, 401],
        ['a malformed key', 'oak_unknown', 401],
        ['an unknown key', newKeySecret('organization_key'), 401],
        ['a revoked key', revokedKey.body.secret as string, 401],
        ["a person's token", owner.token, 403],
        ['an application key', await createApplicationKey(server()), 403],
      ];
      for (const requestLine of [
        'POST /scim/v2/Users HTTP/1.1',
        `PUT /scim/v2/Users/${created.body.id} HTTP/1.1`,
        `PATCH /scim/v2/Users/${created.body.id} HTTP/1.1`,
        'POST /scim/v2/Groups HTTP/1.1',
      ]) {
        for (const [who, authorization, status] of credentials) {
          for (const [what, type, body] of bodies) {
            const answer = await send(requestLine, authorization, type, body);
            const label = `${requestLine}, ${who}, ${what}`;
            expect(answer.status, `${label}: ${JSON.stringify(answer.body)}`).toBe(status);
            expect(answer.headers['content-type'], label).toMatch(/^application\/scim\+json/);
            expect(answer.body, label).toMatchObject({ status: String(status) });
            expect(answer.body.scimType, label).toBeUndefined();
          }
        }
      }
      expect((await scim.send('GET', `/Users/${created.body.id}`)).body).toEqual(created.body);
    });

    it('answers before the body has come: a request whose body never ends is refused at once', async () => {
      const body = JSON.stringify(oktaUser(`${uniqueId('stalled')}@example.com`));
      for (const authorization of [undefined, newKeySecret('organization_key')]) {
        const answer = await send('POST /scim/v2/Users HTTP/1.1', authorization, 'application/scim+json', body, 10);
        expect(answer.status, JSON.stringify(answer.body)).toBe(401);
      }
    });

    it('judges the body of a key that verifies: 400 invalidSyntax, 413, 415, each told in the service’s words', async () => {
      for (const [what, type, body, status, detail, scimType] of bodies) {
        const answer = await send('POST /scim/v2/Users HTTP/1.1', key, type, body);
        expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(status);
        expect(answer.body, what).toMatchObject({ status: String(status), detail });
        expect(answer.body.scimType, what).toBe(scimType);
      }
    });
  });

  describe('strings follow the service’s rules', () => {
    it.each([
      ['x@y'],
      ['not-an-address'],
      ['nul\u0000@example.com'],
      ['tab\t@example.com'],
      ['\ud800lone@example.com'],
    ])('refuses the userName %j with 400 invalidValue, on POST, PUT and PATCH', async (userName) => {
      expectScimError(
        await scim.send('POST', '/Users', { ...oktaUser('a@example.com'), userName }),
        400,
        'invalidValue',
      );
      const created = await scim.send('POST', '/Users', oktaUser(`${uniqueId('valid')}@example.com`));
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expectScimError(
        await scim.send('PUT', `/Users/${id}`, { schemas: [USER_SCHEMA], userName }),
        400,
        'invalidValue',
      );
      expectScimError(
        await scim.send('PATCH', `/Users/${id}`, patch({ op: 'replace', path: 'userName', value: userName })),
        400,
        'invalidValue',
      );
      expect((await scim.send('GET', `/Users/${id}`)).body.userName).toBe(created.body.userName);
    });

    it.each([
      ['a control character in givenName', { name: { givenName: 'Ann\u0007' } }],
      ['a bidirectional override in familyName', { name: { familyName: '\u202eeeL' } }],
      ['only invisible characters in displayName', { displayName: '\u200b\u200b' }],
      ['a displayName of 255 characters', { displayName: 'x'.repeat(255) }],
      ['an e-mail value that is no address', { emails: [{ value: 'x@y', type: 'work', primary: true }] }],
      ['a NUL in externalId', { externalId: 'a\u0000b' }],
    ])('refuses %s with 400 invalidValue', async (_, fields) => {
      const answer = await scim.send('POST', '/Users', { ...oktaUser(`${uniqueId('named')}@example.com`), ...fields });
      expectScimError(answer, 400, 'invalidValue');
    });

    it('keeps names trimmed, and an empty one as none, left out of the answer (RFC 7643 §2.5)', async () => {
      const email = `${uniqueId('trim')}@example.com`;
      const created = await scim.send('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName: ` ${email} `,
        name: { givenName: '  Ann ', familyName: '' },
        displayName: '',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ userName: email, name: { givenName: 'Ann', formatted: 'Ann' } });
      expect(created.body.name).not.toHaveProperty('familyName');
      expect(created.body.displayName).toBeUndefined();
      expect((await scim.send('GET', `/Users/${created.body.id}`)).body).toEqual(created.body);
      // No part of the name given: no name at all, on a POST as on a PATCH that clears both parts.
      const nameless = await scim.send('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName: `${uniqueId('nameless')}@example.com`,
        name: { givenName: '', formatted: 'Dr. Nobody' },
      });
      expect(nameless.status, JSON.stringify(nameless.body)).toBe(201);
      expect(nameless.body).not.toHaveProperty('name');
      const cleared = await scim.send(
        'PATCH',
        `/Users/${created.body.id}`,
        patch({ op: 'replace', path: 'name.givenName', value: '' }),
      );
      expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
      expect(cleared.body).not.toHaveProperty('name');
      // A part added to a user without a name makes one.
      const named = await scim.send(
        'PATCH',
        `/Users/${created.body.id}`,
        patch({ op: 'add', path: 'name.familyName', value: 'Lee' }),
      );
      expect(named.status, JSON.stringify(named.body)).toBe(200);
      expect(named.body.name).toEqual({ familyName: 'Lee', formatted: 'Lee' });
    });

    it.each(['application/scim+json', 'application/json'])(
      'refuses a %s body that is not well-formed UTF-8 with 400 invalidSyntax',
      async (contentType) => {
        const body = Buffer.concat([
          Buffer.from(`{"schemas":["${USER_SCHEMA}"],"userName":"a`),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(`${uniqueId('bytes')}@example.com"}`),
        ]);
        expectScimError(await sendBytes('POST', '/Users', contentType, body), 400, 'invalidSyntax');
        const group = Buffer.concat([
          Buffer.from(`{"schemas":["${GROUP_SCHEMA}"],"displayName":"G`),
          Buffer.from([0xc3]),
          Buffer.from('"}'),
        ]);
        expectScimError(await sendBytes('POST', '/Groups', contentType, group), 400, 'invalidSyntax');
      },
    );
  });

  describe('every error under /scim/v2 is a SCIM error', () => {
    it.each([
      ['GET', '/Nope'],
      ['POST', '/Bulk'],
      ['GET', '/Me'],
      ['GET', '/ResourceTypes/Nope'],
      ['GET', '/Schemas/Nope'],
      ['GET', '/Users/x/y'],
      ['GET', ''],
    ])('%s /scim/v2%s is 404', async (method, path) => {
      expectScimError(await scim.send(method, path, method === 'POST' ? { schemas: [USER_SCHEMA] } : undefined), 404);
    });

    it('a malformed percent-escape is 400', async () => {
      expectScimError(await scim.send('GET', '/Users/%zz'), 400);
    });

    it.each([
      ['PUT', '/Users', 'GET, HEAD, POST'],
      ['DELETE', '/ServiceProviderConfig', 'GET, HEAD'],
      ['POST', '/Groups/x', 'DELETE, GET, HEAD, PATCH, PUT'],
    ])('%s /scim/v2%s is 405 with Allow', async (method, path, allow) => {
      const response = await fetch(`${server().baseUrl}/scim/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${key}` },
      });
      const answer = {
        status: response.status,
        body: await response.json(),
        contentType: response.headers.get('content-type'),
      };
      expectScimError(answer, 405);
      expect(response.headers.get('allow')).toBe(allow);
    });
  });

  describe('query parameters are each given once (RFC 7644 §3.4.2)', () => {
    const filter = `filter=${encodeURIComponent('userName eq "a@example.com"')}`;

    it.each(['/Users', '/Groups'])('a repeated filter on %s is 400 invalidFilter', async (path) => {
      for (const query of [`${filter}&${filter}`, 'filter=a&filter=b', `${filter}&filter=`]) {
        const answer = await scim.send('GET', `${path}?${query}`);
        expectScimError(answer, 400, 'invalidFilter');
        expect(answer.body.detail).toBe('Invalid filter: filter must be given once');
      }
    });

    it.each([
      ['/Users', 'startIndex=1&startIndex=2'],
      ['/Users', 'count=1&count=2'],
      ['/Groups', 'count=5&count=5'],
      ['/Groups', 'excludedAttributes=members&excludedAttributes=members'],
    ])('%s?%s is 400 invalidValue', async (path, query) => {
      const answer = await scim.send('GET', `${path}?${query}`);
      expectScimError(answer, 400, 'invalidValue');
      expect(answer.body.detail).toMatch(/^(startIndex|count|excludedAttributes) must be given once$/);
    });

    it('reads excludedAttributes alike on a group and the list, with the schema’s URN too', async () => {
      const created = await scim.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: uniqueId('Query') });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const path = `/Groups/${created.body.id}`;
      expectScimError(
        await scim.send('GET', `${path}?excludedAttributes=members&excludedAttributes=members`),
        400,
        'invalidValue',
      );
      for (const excluded of ['members', 'displayName,MEMBERS', `${GROUP_SCHEMA}:members`]) {
        const query = `excludedAttributes=${encodeURIComponent(excluded)}`;
        expect((await scim.send('GET', `${path}?${query}`)).body.members, excluded).toBeUndefined();
        const listed = await scim.send(
          'GET',
          `/Groups?${query}&filter=${encodeURIComponent(`id eq "${created.body.id}"`)}`,
        );
        expect(listed.body.Resources[0].members, excluded).toBeUndefined();
      }
      expect((await scim.send('GET', `${path}?excludedAttributes=displayName`)).body.members).toEqual([]);
    });

    it('ignores attributes, which it does not serve, however often it is given', async () => {
      expect((await scim.send('GET', '/Users?attributes=userName&attributes=id')).status).toBe(200);
    });
  });

  describe('uniqueness before the seat limit', () => {
    it('answers a duplicate 409 uniqueness, not MEMBER_LIMIT, when the organization is full', async () => {
      const client = await clientOfLimitedOrganization(server(), 2);
      const seated = await registerUser(server(), 'seated');
      expect((await client.send('POST', '/Users', oktaUser(seated.email))).status).toBe(201);
      const waiting = await registerUser(server(), 'waiting');
      const inactive = await client.send('POST', '/Users', { ...oktaUser(waiting.email), active: false });
      expect(inactive.status, JSON.stringify(inactive.body)).toBe(201);
      const full = await client.send(
        'PATCH',
        `/Users/${inactive.body.id}`,
        patch({ op: 'replace', path: 'active', value: true }),
      );
      expectScimError(full, 409);
      expect(full.body.detail).toMatch(/^MEMBER_LIMIT/);

      expectScimError(await client.send('POST', '/Users', oktaUser(waiting.email)), 409, 'uniqueness');
      expectScimError(await client.send('POST', '/Users', oktaUser(seated.email)), 409, 'uniqueness');
      const other = await client.send('POST', '/Users', {
        ...oktaUser(`${uniqueId('other')}@example.com`),
        active: false,
      });
      expect(other.status).toBe(201);
      const renamed = await client.send(
        'PATCH',
        `/Users/${other.body.id}`,
        patch({ op: 'replace', value: { userName: waiting.email, active: true } }),
      );
      expectScimError(renamed, 409, 'uniqueness');
    });
  });

  describe('a DELETE with a content type and no body', () => {
    it.each(['application/scim+json', 'application/json'])('is 204 as %s, for a User and a Group', async (type) => {
      const user = await scim.send('POST', '/Users', oktaUser(`${uniqueId('gone')}@example.com`));
      const group = await scim.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: uniqueId('Gone') });
      for (const path of [`/Users/${user.body.id}`, `/Groups/${group.body.id}`]) {
        const answer = await sendBytes('DELETE', path, type, Buffer.alloc(0));
        expect(answer.status, JSON.stringify(answer.body)).toBe(204);
        expectScimError(await scim.send('GET', path), 404);
      }
      const empty = await sendBytes('POST', '/Users', type, Buffer.alloc(0));
      expectScimError(empty, 400, 'invalidSyntax');
      expect(empty.body.detail).toBe('The body is empty, and this request takes a JSON object');
    });
  });
});
