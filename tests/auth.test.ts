/** Token rules of behaviour §2 against the real verifier, with tokens signed as an identity provider would. */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser } from './support/fixtures.ts';
import { createKey } from './support/keys.ts';
import { spawnService, type ServiceProcess } from './support/process.ts';
import { rawRequest } from './support/raw-http.ts';
import { startTestServer, useServer, type TestServer } from './support/server.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** GET /organizations answers 200 to any authenticated caller, so it shows whether a token passed. */
const statusWith = async (server: TestServer, authorization: string | undefined) =>
  (await server.request('GET', '/organizations', { headers: authorization ? { authorization } : {} })).status;

// The token checks sit in front of the database, but run on both like every integration test.
describeOnEachDatabase('token checks', (target) => {
  describe('HS256 tokens', () => {
    const server = useServer(target);

    it('accepts a valid token', async () => {
      expect(await statusWith(server(), `Bearer ${await tokenFor('someone')}`)).toBe(200);
      expect(await statusWith(server(), `bearer ${await tokenFor('someone')}`)).toBe(200);
    });

    it('rejects missing, malformed and wrongly signed tokens with 401 and the error body', async () => {
      const valid = await tokenFor('someone');
      const forged = await tokenFor('someone', {
        key: new TextEncoder().encode('another-secret-of-at-least-32-bytes!!'),
      });
      const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'someone', exp: nowSeconds() + 60 })}.`;
      const [header, , signature] = valid.split('.');
      const tampered = `${header}.${base64url({ sub: 'someone-else', exp: nowSeconds() + 60 })}.${signature}`;
      // Signed by hand: jose refuses to sign what it would refuse to verify.
      const signedByHand = (tokenHeader: object, claims: object) => {
        const signingInput = `${base64url(tokenHeader)}.${base64url(claims)}`;
        return `${signingInput}.${createHmac('sha256', TEST_SECRET).update(signingInput).digest('base64url')}`;
      };
      const live = { sub: 'someone', exp: nowSeconds() + 60 };
      const withCritical = signedByHand({ alg: 'HS256', crit: ['x-extension'], 'x-extension': true }, live);
      const stringExpiry = signedByHand({ alg: 'HS256' }, { ...live, exp: String(live.exp) });
      const arrayPayload = signedByHand({ alg: 'HS256' }, [live]);
      const cases = [
        undefined,
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        'Bearer',
        `Token ${valid}`,
        'Bearer not.a.jwt',
        `Bearer ${valid}x`,
        `Bearer ${valid}!!`,
        `Bearer ${valid.slice(0, -5)}!${valid.slice(-5)}`,
        // The same 32 bytes, the last character's spare bits set: not how base64url writes them.
        `Bearer ${valid.slice(0, -1)}${String.fromCharCode(valid.charCodeAt(valid.length - 1) + 1)}`,
        `Bearer ${forged}`,
        `Bearer ${unsigned}`,
        `Bearer ${tampered}`,
        `Bearer ${signature ? valid.slice(0, -signature.length) : ''}`,
        `Bearer ${valid}.extra`,
        `Bearer ${withCritical}`,
        `Bearer ${stringExpiry}`,
        `Bearer ${arrayPayload}`,
        `Bearer ${base64url({ alg: 'HS256' })}.not-json.${signature}`,
        `Bearer ${'a'.repeat(10_000)}`,
      ];
      for (const authorization of cases) {
        const response = await server().call('GET', '/organizations', {
          headers: authorization ? { authorization } : {},
        });
        expect(response.status, String(authorization).slice(0, 40)).toBe(401);
        expect(response.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });
        // RFC 9110 §11.6.1: a 401 names the scheme that authenticates.
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
      }
      for (const path of ['/trpc/users.me', '/scim/v2/Users', '/api/organizations']) {
        const response = await server().call('GET', path);
        expect([response.status, response.headers.get('www-authenticate')], path).toEqual([401, 'Bearer']);
      }
      // The same hand signing with a plain header passes, so the refusals above are about their flaw.
      expect(await statusWith(server(), `Bearer ${signedByHand({ alg: 'HS256', typ: 'JWT' }, live)}`)).toBe(200);
    });

    it('checks exp (with 30 s tolerance), nbf and the sub claim', async () => {
      const secret = new TextEncoder().encode(TEST_SECRET);
      const sign = (claims: Record<string, unknown>) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(secret);
      const now = nowSeconds();
      expect(await statusWith(server(), `Bearer ${await sign({ sub: 'a', exp: now - 120 })}`)).toBe(401);
      expect(await statusWith(server(), `Bearer ${await sign({ sub: 'a', exp: now - 10 })}`)).toBe(200);
      expect(await statusWith(server(), `Bearer ${await sign({ sub: 'a' })}`)).toBe(401);
      expect(await statusWith(server(), `Bearer ${await sign({ sub: 'a', exp: now + 60, nbf: now + 300 })}`)).toBe(401);
      expect(await statusWith(server(), `Bearer ${await sign({ exp: now + 60 })}`)).toBe(401);
      expect(await statusWith(server(), `Bearer ${await sign({ sub: '', exp: now + 60 })}`)).toBe(401);
      expect(await statusWith(server(), `Bearer ${await sign({ sub: 'x'.repeat(129), exp: now + 60 })}`)).toBe(401);
      expect(await statusWith(server(), `Bearer ${await sign({ sub: 42, exp: now + 60 })}`)).toBe(401);
      expect(await statusWith(server(), `Bearer ${await sign({ sub: 'x'.repeat(128), exp: now + 60 })}`)).toBe(200);
    });

    it('names the claim that is wrong in its 401', async () => {
      const now = nowSeconds();
      const secret = new TextEncoder().encode(TEST_SECRET);
      const sign = (claims: Record<string, unknown>) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(secret);
      for (const [claims, named] of [
        [{ sub: 'a', role: ['owner'] }, /^Token claim role must be a string/],
        [{ sub: 'a', role: 7 }, /^Token claim role must be a string/],
        [{ sub: 42 }, /^Token claim sub must be a string of 1 to 128 characters/],
        [{}, /^Token claim sub must be a string of 1 to 128 characters/],
      ] as const) {
        const response = await server().call('GET', '/organizations', {
          token: await sign({ ...claims, exp: now + 60 }),
        });
        expect(response.status, JSON.stringify(claims)).toBe(401);
        expect(response.body.message, JSON.stringify(claims)).toMatch(named);
      }
    });

    it('accepts a token whose e-mail claims are malformed: they only leave the e-mail unverified (behaviour §17)', async () => {
      const now = nowSeconds();
      const secret = new TextEncoder().encode(TEST_SECRET);
      for (const claims of [
        { email: 'a@example.com', email_verified: 'true' },
        { email: null, email_verified: true },
        { email: 42, email_verified: null },
        { email: 'x'.repeat(300), email_verified: true },
      ]) {
        const token = await new SignJWT({ sub: 'claims-person', ...claims, exp: now + 60 })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(secret);
        expect((await server().call('GET', '/organizations', { token })).status, JSON.stringify(claims)).toBe(200);
      }
    });

    it('refuses a request without a valid token before reading its body: 401 whatever the body holds', async () => {
      const garbage = 'Authorization: Bearer not.a.jwt';
      const bigBody = JSON.stringify({ first_name: 'Big', padding: 'x'.repeat(70 * 1024) });
      const bodies: Array<[string, string[], string]> = [
        ['malformed JSON', ['Content-Type: application/json'], '{"first_name":'],
        ['not JSON', ['Content-Type: text/plain'], 'x'],
        ['a body over 64 KiB', ['Content-Type: application/json'], bigBody],
        ['no body', ['Content-Type: application/json'], ''],
      ];
      for (const [why, headers, body] of bodies) {
        for (const authorization of [[], [garbage]]) {
          for (const requestLine of ['PUT /users HTTP/1.1', 'POST /trpc/users.update HTTP/1.1']) {
            const head = [
              requestLine,
              'Host: 127.0.0.1',
              ...authorization,
              ...headers,
              `Content-Length: ${body.length}`,
            ];
            const answer = await rawRequest(server().baseUrl, head.join('\r\n'), { body });
            const label = `${requestLine} ${why} ${authorization.length ? 'garbage token' : 'no token'}`;
            expect(answer.status, label).toBe(401);
            const code = requestLine.includes('/trpc') ? answer.body.error.data.code : answer.body.code;
            expect(code, label).toBe('UNAUTHORIZED');
          }
        }
      }
      // The verified caller gets the body's own refusals.
      const token = `Authorization: Bearer ${await tokenFor('reads-bodies')}`;
      for (const [, headers, body, status] of [
        ['malformed JSON', ['Content-Type: application/json'], '{"first_name":', 400],
        ['not JSON', ['Content-Type: text/plain'], 'x', 415],
        ['a body over 64 KiB', ['Content-Type: application/json'], bigBody, 413],
      ] as const) {
        const head = ['PUT /users HTTP/1.1', 'Host: 127.0.0.1', token, ...headers, `Content-Length: ${body.length}`];
        expect((await rawRequest(server().baseUrl, head.join('\r\n'), { body })).status).toBe(status);
      }
    });

    it('refuses an unknown or revoked key before reading the body: 401 whatever the body holds, as a token', async () => {
      const owner = await registerUser(server());
      const organizationId = await createOrganization(server(), owner);
      const live = await createKey(server(), owner.token, organizationId, 'admin');
      const revoked = await createKey(server(), owner.token, organizationId, 'admin');
      const keyPath = `/organizations/${organizationId}/api-keys/${revoked.key_id}`;
      expect((await server().call('DELETE', keyPath, { token: owner.token })).status).toBe(200);
      const unknownKeys = ['oak_', 'sak_'].map((prefix) => `${prefix}${randomBytes(32).toString('base64url')}`);
      // Malformed JSON, which a live key gets the body's own refusal for: over REST and tRPC.
      const calls = [
        { requestLine: `PATCH /organizations/${organizationId}/metadata HTTP/1.1`, body: '{"public_metadata":' },
        {
          requestLine: 'POST /trpc/organizations.updateMetadata HTTP/1.1',
          body: `{"organization_id":"${organizationId}","public_metadata":`,
        },
      ];
      for (const { requestLine, body } of calls) {
        const answerTo = async (secret: string) => {
          const head = [requestLine, 'Host: 127.0.0.1', `Authorization: Bearer ${secret}`];
          head.push('Content-Type: application/json', `Content-Length: ${body.length}`);
          const answer = await rawRequest(server().baseUrl, head.join('\r\n'), { body });
          return [answer.status, requestLine.includes('/trpc') ? answer.body.error.data.code : answer.body.code];
        };
        for (const secret of [...unknownKeys, revoked.secret]) {
          expect(await answerTo(secret), `${requestLine} ${secret.slice(0, 8)}`).toEqual([401, 'UNAUTHORIZED']);
        }
        expect(await answerTo(live.secret), requestLine).toEqual([400, 'BAD_REQUEST']);
      }
    });

    it('refuses a token once it expires, though it was accepted a moment before', async () => {
      const secret = new TextEncoder().encode(TEST_SECRET);
      // Within the 30 s tolerance for one to two more seconds.
      const exp = nowSeconds() - 28;
      const token = await new SignJWT({ sub: 'a', exp }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
      expect(await statusWith(server(), `Bearer ${token}`)).toBe(200);
      expect(await statusWith(server(), `Bearer ${token}`)).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, (exp + 30) * 1000 - Date.now() + 50));
      expect(await statusWith(server(), `Bearer ${token}`)).toBe(401);
    });

    it('rejects an asymmetric token when only a secret is configured', async () => {
      const { privateKey } = await generateKeyPair('RS256');
      const token = await new SignJWT({ sub: 'a' })
        .setProtectedHeader({ alg: 'RS256' })
        .setExpirationTime('5m')
        .sign(privateKey);
      expect(await statusWith(server(), `Bearer ${token}`)).toBe(401);
    });
  });

  describe('issuer and audience when configured', () => {
    const server = useServer(target, { JWT_ISSUER: 'https://issuer.test', JWT_AUDIENCE: 'orgs' });

    it('requires both to match', async () => {
      const token = (claims: Record<string, unknown>) => tokenFor('a', { claims });
      expect(await statusWith(server(), `Bearer ${await token({ iss: 'https://issuer.test', aud: 'orgs' })}`)).toBe(
        200,
      );
      expect(await statusWith(server(), `Bearer ${await token({ iss: 'https://other.test', aud: 'orgs' })}`)).toBe(401);
      expect(await statusWith(server(), `Bearer ${await token({ iss: 'https://issuer.test', aud: 'other' })}`)).toBe(
        401,
      );
      expect(await statusWith(server(), `Bearer ${await token({})}`)).toBe(401);
    });
  });

  for (const algorithm of ['RS256', 'ES256', 'EdDSA'] as const) {
    describe(`${algorithm} with JWT_PUBLIC_KEY`, () => {
      let privateKey: CryptoKey;
      let publicPem = '';
      // No JWT_SECRET: the asymmetric key alone decides.
      const env: Record<string, string> = { JWT_SECRET: '' };
      beforeAll(async () => {
        const pair = await generateKeyPair(algorithm, { extractable: true });
        privateKey = pair.privateKey;
        publicPem = await exportSPKI(pair.publicKey);
        env.JWT_PUBLIC_KEY = publicPem;
      });
      const server = useServer(target, env);

      it('accepts tokens signed with the private key and rejects HS256 signed with the public key', async () => {
        const good = await new SignJWT({ sub: 'a' })
          .setProtectedHeader({ alg: algorithm })
          .setExpirationTime('5m')
          .sign(privateKey);
        expect(await statusWith(server(), `Bearer ${good}`)).toBe(200);
        const confused = await new SignJWT({ sub: 'a' })
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(publicPem));
        expect(await statusWith(server(), `Bearer ${confused}`)).toBe(401);
      });
    });
  }

  describe('keys from JWT_JWKS_URL', () => {
    const keys: Array<{ kid: string; alg: string; privateKey: CryptoKey; jwk: JWK }> = [];
    let jwksServer: Server;
    const env: Record<string, string> = { JWT_SECRET: '' };
    beforeAll(async () => {
      for (const alg of ['RS256', 'ES256', 'EdDSA']) {
        const pair = await generateKeyPair(alg, { extractable: true });
        const jwk = { ...(await exportJWK(pair.publicKey)), kid: `key-${alg}`, alg, use: 'sig' };
        keys.push({ kid: jwk.kid, alg, privateKey: pair.privateKey, jwk });
      }
      jwksServer = createServer((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ keys: keys.map((key) => key.jwk) }));
      });
      await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
      env.JWT_JWKS_URL = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    });
    afterAll(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));
    const server = useServer(target, env);

    it('verifies RS256, ES256 and EdDSA tokens by kid and rejects an unknown kid', async () => {
      for (const key of keys) {
        const token = await new SignJWT({ sub: 'a' })
          .setProtectedHeader({ alg: key.alg, kid: key.kid })
          .setExpirationTime('5m')
          .sign(key.privateKey);
        expect(await statusWith(server(), `Bearer ${token}`), key.alg).toBe(200);
      }
      const stranger = await generateKeyPair('RS256');
      const unknown = await new SignJWT({ sub: 'a' })
        .setProtectedHeader({ alg: 'RS256', kid: 'not-published' })
        .setExpirationTime('5m')
        .sign(stranger.privateKey);
      expect(await statusWith(server(), `Bearer ${unknown}`)).toBe(401);
    });
  });

  describe('JWKS rotation and outage', () => {
    const published: JWK[] = [];
    let jwksServer: Server;
    let jwksUrl = '';
    const env: Record<string, string> = { JWT_SECRET: '', JWT_JWKS_COOLDOWN_MS: '100' };
    const keyPair = async (kid: string) => {
      const pair = await generateKeyPair('ES256', { extractable: true });
      const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256' };
      const sign = () =>
        new SignJWT({ sub: 'rotating' })
          .setProtectedHeader({ alg: 'ES256', kid })
          .setExpirationTime('5m')
          .sign(pair.privateKey);
      return { jwk, sign };
    };
    let oldKey: Awaited<ReturnType<typeof keyPair>>;
    let newKey: Awaited<ReturnType<typeof keyPair>>;

    beforeAll(async () => {
      oldKey = await keyPair('old');
      newKey = await keyPair('new');
      published.push(oldKey.jwk);
      jwksServer = createServer((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ keys: published }));
      });
      await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
      jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
      env.JWT_JWKS_URL = jwksUrl;
    });
    afterAll(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));
    const server = useServer(target, env);

    it('picks up a rotated key set by kid, and drops the retired key', async () => {
      expect(await statusWith(server(), `Bearer ${await oldKey.sign()}`)).toBe(200);
      published.splice(0, published.length, newKey.jwk);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await statusWith(server(), `Bearer ${await newKey.sign()}`)).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await statusWith(server(), `Bearer ${await oldKey.sign()}`)).toBe(401);
    });

    it('answers 503 while the JWKS endpoint is down, and stays up', async () => {
      // A service pointed at a JWKS endpoint that refuses connections.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks.json`;
      await new Promise((resolve) => closed.close(resolve));
      const database = await target.create();
      const orphan = await startTestServer(database.url, { JWT_SECRET: '', JWT_JWKS_URL: deadUrl });
      try {
        const response = await orphan.call('GET', '/organizations', {
          headers: { authorization: `Bearer ${await newKey.sign()}` },
        });
        expect(response.status).toBe(503);
        expect(response.body).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
        expect((await orphan.call('GET', '/healthz')).status).toBe(200);
      } finally {
        await orphan.service.close();
        await database.drop();
      }
    });
  });
});

// Behaviour §2: token keys that cannot be obtained are the service's outage (503), not the caller's
// fault (401); the service warns once per stretch of failures, not once per request.
describe('a JWKS endpoint that answers without a key set', () => {
  let answerBadly: ((response: ServerResponse) => void) | undefined;
  let published: JWK[] = [];
  let jwksServer: Server;
  let service: ServiceProcess;
  const warnings = () => service.entries().filter((entry) => /cannot obtain the JWKS/.test(entry.msg)).length;
  const statusOf = async (token: string) =>
    (await fetch(`${service.baseUrl}/organizations`, { headers: { authorization: `Bearer ${token}` } })).status;

  beforeAll(async () => {
    jwksServer = createServer((_request, response) => {
      if (answerBadly) return answerBadly(response);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const { port } = jwksServer.address() as AddressInfo;
    service = await spawnService({
      DATABASE_URL: ':memory:',
      // A query string, as a signed URL has: its signature stays out of the log.
      JWT_JWKS_URL: `http://127.0.0.1:${port}/jwks.json?signature=QuerySecret`,
      // Every unknown kid fetches the key set again, so that each case below is a fetch.
      JWT_JWKS_COOLDOWN_MS: '0',
      RATE_LIMIT_MAX: '0',
    });
  });
  afterAll(async () => {
    service?.kill();
    await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
  });

  it.each<[string, (response: ServerResponse) => void]>([
    ['an HTTP error page', (response) => response.writeHead(500, { 'content-type': 'text/html' }).end('<p>oops</p>')],
    ['a body that is not JSON', (response) => response.end('this is not json')],
    ['JSON that is not a key set', (response) => response.end('{"keys":"x"}')],
  ])('answers 503 while it sends %s, warns once, and verifies once it sends the keys', async (_, badAnswer) => {
    // A key of a new kid: the service has to fetch the key set for it.
    const kid = `key-${published.length}`;
    const pair = await generateKeyPair('ES256', { extractable: true });
    const token = await new SignJWT({ sub: 'someone' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setExpirationTime('5m')
      .sign(pair.privateKey);
    const warnedBefore = warnings();
    answerBadly = badAnswer;
    expect([await statusOf(token), await statusOf(token), await statusOf(token)]).toEqual([503, 503, 503]);
    expect(warnings()).toBe(warnedBefore + 1);
    expect(JSON.stringify(service.entries())).not.toContain('QuerySecret');
    answerBadly = undefined;
    published = [...published, { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256' }];
    expect(await statusOf(token)).toBe(200);
    // Keys obtained, and a token that does not verify against them: the caller's fault.
    const stranger = await generateKeyPair('ES256');
    const forged = await new SignJWT({ sub: 'someone' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setExpirationTime('5m')
      .sign(stranger.privateKey);
    expect(await statusOf(forged)).toBe(401);
  });
});
