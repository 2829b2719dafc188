/**
 * Strings are Unicode text (behaviour §4): a control character or a lone surrogate in any name,
 * e-mail, id or header is a 400 naming the field, and changes nothing — on both databases (a NUL
 * used to end the embedded database's statement early and answer 500). Names are trimmed of
 * Unicode white space first, tabs and line breaks included.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { paddedName, UNICODE_WHITE_SPACE } from './support/text-samples.ts';
import { tokenFor } from './support/tokens.ts';

const CONTROL_CHARACTERS = ['\u0000', '\u0001', '\u0007', '\u001b', '\u001f', '\u007f', '\n', '\t'];

/** Every field that holds a name, each trimmed before it is checked. */
const NAME_FIELDS = ['first_name', 'last_name', 'organization_name'] as const;
type NameField = (typeof NAME_FIELDS)[number];

describeOnEachDatabase('text fields', (target) => {
  const server = useServer(target);

  it('refuses a control character in a name with 400 naming the field, and keeps the record', async () => {
    const user = await registerUser(server());
    const before = await server().call('GET', '/api/users', { token: user.token });
    for (const character of CONTROL_CHARACTERS) {
      for (const field of ['first_name', 'last_name']) {
        const response = await server().call('PUT', '/api/users', {
          token: user.token,
          body: { [field]: `a${character}b` },
        });
        expect(response.status, JSON.stringify(character)).toBe(400);
        expect(response.body.code).toBe('BAD_REQUEST');
        expect(response.body.issues).toEqual([{ field, problem: expect.stringMatching(/control characters/) }]);
      }
    }
    expect(await server().call('GET', '/api/users', { token: user.token })).toMatchObject({ body: before.body });
  });

  it('refuses a lone surrogate (well-formed JSON, not text) instead of storing a replacement', async () => {
    const user = await registerUser(server());
    for (const escaped of ['\\udc00', '\\ud800', 'x\\udfffy', '\\ud83d']) {
      const response = await server().call('PUT', '/api/users', {
        token: user.token,
        rawBody: `{"first_name":"${escaped}"}`,
      });
      expect(response.status, escaped).toBe(400);
      expect(response.body.issues).toEqual([{ field: 'first_name', problem: expect.any(String) }]);
    }
    // A surrogate pair (an emoji) is text.
    const emoji = await server().call('PUT', '/api/users', {
      token: user.token,
      rawBody: '{"first_name":"\\ud83d\\ude00"}',
    });
    expect(emoji.status).toBe(200);
    expect((await server().call('GET', '/api/users', { token: user.token })).body.first_name).toBe('😀');
  });

  it('refuses control characters in e-mails, organization names and member ids', async () => {
    const token = await tokenFor(uniqueId('ctl'), { role: 'owner' });
    const user = await server().call('POST', '/users', {
      token,
      body: { first_name: 'A', last_name: 'B', email: 'a\u0000@example.com' },
    });
    expect(user.status).toBe(400);
    expect(user.body.issues).toEqual([{ field: 'email', problem: expect.any(String) }]);
    expect((await server().call('GET', '/users', { token })).status).toBe(404);

    const owner = await registerUser(server());
    const organization = await server().call('POST', '/organizations', {
      token: owner.token,
      body: { organization_name: 'Acme\u0007', organization_description: '' },
    });
    expect(organization.status).toBe(400);
    expect(organization.body.issues).toEqual([{ field: 'organization_name', problem: expect.any(String) }]);
    expect((await server().call('GET', '/organizations', { token: owner.token })).body).toEqual([]);

    const organizationId = await createOrganization(server(), owner);
    const member = await registerUser(server());
    await addMember(server(), owner, organizationId, member, 'member');
    for (const [method, body] of [
      ['PUT', { user_id: `${member.id}\u0000`, role: 'admin' }],
      ['DELETE', { user_id: `\u0000${member.id}` }],
    ] as const) {
      const response = await server().call(method, '/organization-user', { token: owner.token, organizationId, body });
      expect(response.status, method).toBe(400);
      expect(response.body.issues).toEqual([{ field: 'user_id', problem: expect.any(String) }]);
    }
    const read = await server().call('GET', `/organization-user/${encodeURIComponent('\u0000')}`, {
      token: owner.token,
      organizationId,
    });
    expect(read.status).toBe(400);
    expect(read.body.issues).toEqual([{ field: 'user_id', problem: expect.any(String) }]);
    expect(
      (await server().call('GET', `/organization-user/${member.id}`, { token: owner.token, organizationId })).body.role,
    ).toBe('member');
  });

  it('keeps line breaks and tabs in an organization description, which is free text', async () => {
    const owner = await registerUser(server());
    const created = await server().call('POST', '/organizations', {
      token: owner.token,
      body: { organization_name: 'Multi', organization_description: 'line one\nline two\ttabbed' },
    });
    expect(created.status).toBe(201);
    const [organization] = (await server().call('GET', '/organizations', { token: owner.token })).body;
    expect(organization.description).toBe('line one\nline two\ttabbed');
    const nul = await server().call('POST', '/organizations', {
      token: owner.token,
      body: { organization_name: 'Nul', organization_description: 'a\u0000b' },
    });
    expect(nul.status).toBe(400);
    expect(nul.body.issues).toEqual([{ field: 'organization_description', problem: expect.any(String) }]);
  });

  it('refuses bidirectional controls in a description too, and stores it in NFC', async () => {
    const owner = await registerUser(server());
    const refused = await server().call('POST', '/organizations', {
      token: owner.token,
      body: { organization_name: 'Bidi', organization_description: 'Read \u202eme backwards' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual([
      { field: 'organization_description', problem: expect.stringMatching(/bidirectional/) },
    ]);
    expect((await server().call('GET', '/organizations', { token: owner.token })).body).toEqual([]);
    const created = await server().call('POST', '/organizations', {
      token: owner.token,
      body: { organization_name: 'Nfc', organization_description: 'Cafe\u0301 au lait\nsecond line' },
    });
    expect(created.status).toBe(201);
    const [organization] = (await server().call('GET', '/organizations', { token: owner.token })).body;
    expect(organization.description).toBe('Café au lait\nsecond line');
  });

  it('refuses a body that is not well-formed UTF-8 with 400 naming the body, on REST and tRPC, and keeps the record', async () => {
    const user = await registerUser(server());
    const before = (await server().call('GET', '/users', { token: user.token })).body;
    // `{"first_name":"A\xff\xfeB"}`: bytes no UTF-8 decoder may take for text, and an overlong "/".
    for (const bytes of [
      [0xff, 0xfe],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
    ]) {
      const body = Buffer.concat([Buffer.from('{"first_name":"A'), Buffer.from(bytes), Buffer.from('B"}')]);
      for (const [method, path] of [
        ['PUT', '/users'],
        ['POST', '/trpc/users.update'],
      ] as const) {
        const response = await fetch(`${server().baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
          body,
        });
        const answer = await response.json();
        expect(response.status, `${method} ${path} ${bytes.join(',')}`).toBe(400);
        const { code, message } = path.startsWith('/trpc')
          ? { code: answer.error.data.code, message: answer.error.message }
          : answer;
        expect({ code, message }).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/body.*UTF-8/) });
      }
    }
    expect((await server().call('GET', '/users', { token: user.token })).body).toEqual(before);
  });

  it('refuses a body nested deeper than 64 levels with 400, with an Idempotency-Key too, on REST and tRPC', async () => {
    const user = await registerUser(server());
    let before = (await server().call('GET', '/users', { token: user.token })).body;
    // In a field the operation ignores, with brackets inside a string that must not count.
    const nested = (levels: number) =>
      `{"first_name":"Deep [{","padding":${'['.repeat(levels)}"]}"${']'.repeat(levels)}}`;
    for (const [method, path] of [
      ['PUT', '/users'],
      ['POST', '/trpc/users.update'],
    ] as const) {
      for (const idempotencyKey of [undefined, `deep-${path}`]) {
        const response = await fetch(`${server().baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${user.token}`,
            'content-type': 'application/json',
            ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
          },
          body: nested(5000),
        });
        const answer = await response.json();
        expect(response.status, `${method} ${path}`).toBe(400);
        const message = path.startsWith('/trpc') ? answer.error.message : answer.message;
        expect(message).toBe('The JSON body is nested deeper than 64 levels');
      }
      expect((await server().call('GET', '/users', { token: user.token })).body).toEqual(before);
      // 63 levels inside the body's own object: taken.
      const fits = await server().call(method, path, { token: user.token, rawBody: nested(63) });
      expect(fits.status, `${method} ${path}`).toBe(200);
      before = (await server().call('GET', '/users', { token: user.token })).body;
      expect(before.first_name).toBe('Deep [{');
    }
  });

  it('refuses the same input over tRPC with the same code and issue', async () => {
    const user = await registerUser(server());
    const response = await server().call('POST', '/trpc/users.update', {
      token: user.token,
      body: { first_name: 'a\u0000b' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.data).toMatchObject({
      code: 'BAD_REQUEST',
      httpStatus: 400,
      issues: [{ field: 'first_name', problem: expect.any(String) }],
    });
  });

  it('answers 401, not 500, to a token whose subject holds a control character', async () => {
    const token = await tokenFor('bad\u0000sub', { role: 'owner' });
    const response = await server().call('GET', '/users', { token });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('UNAUTHORIZED');
  });

  describe('names', () => {
    let owner: TestUser;
    let organizationId: string;
    beforeAll(async () => {
      owner = await registerUser(server());
      organizationId = await createOrganization(server(), owner);
    });

    /** Changes one name field; answers the status, the issues and the value then stored. */
    async function rename(field: NameField, value: string) {
      if (field === 'organization_name') {
        const response = await server().call('PUT', `/organizations/${organizationId}`, {
          token: owner.token,
          body: { organization_name: value },
        });
        const stored = (await server().call('GET', `/organizations/${organizationId}`, { token: owner.token })).body;
        return { status: response.status, issues: response.body.issues, stored: stored.organization_name };
      }
      const response = await server().call('PUT', '/users', { token: owner.token, body: { [field]: value } });
      const stored = (await server().call('GET', '/users', { token: owner.token })).body;
      return { status: response.status, issues: response.body.issues, stored: stored[field] };
    }

    async function expectStored(field: NameField, sent: string, stored: string) {
      expect(await rename(field, sent), `${field} ${JSON.stringify(sent)}`).toMatchObject({ status: 200, stored });
    }

    async function expectRefused(field: NameField, sent: string, problem: unknown = expect.any(String)) {
      const before = (await rename(field, 'Unchanged')).stored;
      const answer = await rename(field, sent);
      expect(answer.status, `${field} ${JSON.stringify(sent)}`).toBe(400);
      expect(answer.issues).toEqual([{ field, problem }]);
      expect(answer.stored).toBe(before);
    }

    it('trims every Unicode white-space character from both ends, and refuses one alone', async () => {
      for (const space of UNICODE_WHITE_SPACE) {
        for (const field of NAME_FIELDS) {
          await expectStored(field, `${space}${space}Ada Lovelace${space}`, 'Ada Lovelace');
          await expectRefused(field, space);
        }
      }
    });

    it('trims white space first, tab and line breaks included, then refuses a control character inside', async () => {
      for (const field of NAME_FIELDS) {
        await expectStored(field, '  Ada \t', 'Ada');
        await expectStored(field, '\r\n\tAda\u2028', 'Ada');
        await expectRefused(field, ' \tAda\u0000Lovelace\n', expect.stringMatching(/control characters/));
        await expectRefused(field, '\tAda\tLovelace\t', expect.stringMatching(/control characters/));
      }
    });

    it('keeps U+FEFF, which is not white space, and refuses a control character that is not at either end', async () => {
      for (const field of NAME_FIELDS) {
        await expectStored(field, '\ufeffAda\ufeff', '\ufeffAda\ufeff');
        await expectRefused(field, 'Ada\u001f');
        await expectRefused(field, '\u001cAda');
      }
    });

    it('stores a name in NFC, the composed form, whatever form it was sent in', async () => {
      for (const field of NAME_FIELDS) {
        await expectStored(field, 'Cafe\u0301', 'Café');
        await expectStored(field, ' Ame\u0301lie\u3000', 'Amélie');
        // NFC, not NFKC: a full-width letter is a letter of its own, kept as sent.
        await expectStored(field, 'Ｍａｒｙ', 'Ｍａｒｙ');
      }
    });

    it('refuses a name of invisible (default-ignorable) characters only, naming the field', async () => {
      for (const field of NAME_FIELDS) {
        for (const invisible of ['\u200b\u200b', '\u00ad', '\u200b \u2060', '\ufeff', '\u{e0041}\u{e0042}']) {
          await expectRefused(field, invisible);
        }
        await expectStored(field, '\u200bAda', '\u200bAda');
      }
    });

    it('refuses bidirectional embedding, override and isolate controls in a name, naming the field', async () => {
      const controls = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
      for (const field of NAME_FIELDS) {
        for (const control of controls) {
          await expectRefused(field, `${control}Srotartsinimda`, expect.stringMatching(/bidirectional/));
        }
        // The marks (U+200E, U+200F, U+061C) change no text's order: kept.
        await expectStored(field, 'Ada\u200f', 'Ada\u200f');
      }
    });

    it('stores a generated name trimmed of the white space at its ends, or refuses it naming the field', async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...NAME_FIELDS), paddedName, async (field, { sent, stored }) => {
          if (stored === null) await expectRefused(field, sent);
          else await expectStored(field, sent, stored);
        }),
        { numRuns: 40 },
      );
    });

    it('trims on creation too', async () => {
      const id = uniqueId('trim');
      const token = await tokenFor(id, { role: 'owner' });
      const email = `${id}@example.com`;
      const blank = await server().call('POST', '/users', {
        token,
        body: { first_name: '\u0085', last_name: 'Lee', email },
      });
      expect(blank.status).toBe(400);
      expect(blank.body.issues).toEqual([{ field: 'first_name', problem: expect.any(String) }]);
      expect((await server().call('GET', '/users', { token })).status).toBe(404);
      const created = await server().call('POST', '/users', {
        token,
        body: { first_name: ' \tAnn\u3000', last_name: '\u00a0Lee\u0085', email },
      });
      expect(created.status).toBe(201);
      expect((await server().call('GET', '/users', { token })).body).toMatchObject({
        first_name: 'Ann',
        last_name: 'Lee',
      });

      const organizations = () => server().call('GET', '/organizations', { token });
      const unnamed = await server().call('POST', '/organizations', {
        token,
        body: { organization_name: '\u2028\u2029', organization_description: '' },
      });
      expect(unnamed.status).toBe(400);
      expect(unnamed.body.issues).toEqual([{ field: 'organization_name', problem: expect.any(String) }]);
      expect((await organizations()).body).toEqual([]);
      const named = await server().call('POST', '/organizations', {
        token,
        body: { organization_name: '\tAcme\u205f', organization_description: '' },
      });
      expect(named.status).toBe(201);
      expect((await organizations()).body.map((organization: { name: string }) => organization.name)).toEqual(['Acme']);
    });

    it('refuses a name with a long run of white space inside', async () => {
      // shared/text.ts trims with a loop: a regular expression such as /\p{White_Space}+$/u is
      // quadratic over such a run (seconds for this one).
      for (const name of [`a${' '.repeat(60_000)}b`, `a${' '.repeat(60_000)}\u0000b`]) {
        const response = await server().call('PUT', '/users', { token: owner.token, body: { first_name: name } });
        expect(response.status).toBe(400);
        expect(response.body.issues.map((issue: { field: string }) => issue.field)).toContain('first_name');
      }
    });
  });
});
