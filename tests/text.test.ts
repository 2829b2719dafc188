/**
 * Strings are Unicode text (CONTRACT 4): a control character or a lone surrogate in any name,
 * e-mail, id or header is a 400 naming the field, and changes nothing — on both databases (a NUL
 * used to end the embedded database's statement early and answer 500).
 */
import { expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const CONTROL_CHARACTERS = ['\u0000', '\u0001', '\u0007', '\u001b', '\u001f', '\u007f', '\n', '\t'];

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
});
