import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../shared/fields.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const LIST_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

describeOnEachDatabase('organization users', (target) => {
  const server = useServer(target);

  /** An organization with one member of each role, and an outsider. */
  async function organizationWithRoles() {
    const owner = await registerUser(server(), 'owner');
    const admin = await registerUser(server(), 'admin');
    const member = await registerUser(server(), 'member');
    const outsider = await registerUser(server(), 'outsider');
    const organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, admin, 'admin');
    await addMember(server(), owner, organizationId, member, 'member');
    return { owner, admin, member, outsider, organizationId };
  }

  const roleOf = async (organizationId: string, reader: TestUser, userId: string) =>
    (await server().call('GET', `/organization-user/${userId}`, { token: reader.token, organizationId })).body.role;

  it('adds a member with 201 and returns organization_id, user_id and role', async () => {
    const owner = await registerUser(server());
    const newcomer = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    const added = await server().call('POST', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { email: newcomer.email.toUpperCase(), role: 'member' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ organization_id: organizationId, user_id: newcomer.id, role: 'member' });
  });

  it('reads one member with ISO timestamps and the user fields', async () => {
    const { owner, member, organizationId } = await organizationWithRoles();
    const read = await server().call('GET', `/organization-user/${member.id}`, { token: member.token, organizationId });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      organization_id: organizationId,
      user_id: member.id,
      role: 'member',
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      first_name: `First ${member.id}`,
      last_name: `Last ${member.id}`,
      email: member.email,
      expires_at: null,
    });
    const missing = await server().call('GET', `/organization-user/nobody-here`, {
      token: owner.token,
      organizationId,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  it('reads a member whose id needs escaping in the path (an Auth0-style sub)', async () => {
    const { owner, organizationId } = await organizationWithRoles();
    const id = `auth0|${uniqueId('escaped')}/x`;
    const email = `${uniqueId('escaped')}@example.com`;
    const token = await tokenFor(id, { role: 'owner' });
    const body = { first_name: 'Escaped', last_name: 'Id', email };
    expect((await server().call('POST', '/users', { token, body })).status).toBe(201);
    await addMember(server(), owner, organizationId, { id, email, token }, 'member');
    const read = await server().call('GET', `/organization-user/${encodeURIComponent(id)}`, {
      token: owner.token,
      organizationId,
    });
    expect(read.status).toBe(200);
    expect(read.body.user_id).toBe(id);
  });

  it('lists members in join order with the legacy created_at form', async () => {
    const { owner, admin, member, organizationId } = await organizationWithRoles();
    const list = await server().call('GET', '/organization-user', { token: member.token, organizationId });
    expect(list.status).toBe(200);
    expect(list.body.map((row: { user_id: string }) => row.user_id)).toEqual([owner.id, admin.id, member.id]);
    expect(list.body[1]).toEqual({
      user_id: admin.id,
      first_name: `First ${admin.id}`,
      last_name: `Last ${admin.id}`,
      role: 'admin',
      email: admin.email,
      created_at: expect.stringMatching(LIST_TIME),
    });
    // Exactly the interface's fields, in its order (behaviour §15: legacy shapes stay).
    expect(Object.keys(list.body[1])).toEqual(['user_id', 'first_name', 'last_name', 'role', 'email', 'created_at']);
    const single = await server().call('GET', `/organization-user/${admin.id}`, {
      token: member.token,
      organizationId,
    });
    expect(list.body[1].created_at).toBe(single.body.created_at.slice(0, 19).replace('T', ' '));
  });

  it("lists the caller's organizations oldest first, and [] when none", async () => {
    const user = await registerUser(server());
    const other = await registerUser(server());
    const first = await createOrganization(server(), user);
    const second = await createOrganization(server(), other);
    await addMember(server(), other, second, user, 'member');
    const list = await server().call('GET', '/api/organizations', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.map((organization: { id: string }) => organization.id)).toEqual([first, second]);
    expect(list.body[0]).toEqual({
      id: first,
      name: 'Test organization',
      description: 'for tests',
      created_by: user.id,
      created_at: expect.stringMatching(ISO_MS),
    });
    const loner = await registerUser(server());
    expect((await server().call('GET', '/organizations', { token: loner.token })).body).toEqual([]);
  });

  it('answers 404 to an organization for a caller with no user record, and 400 to a bad body', async () => {
    const ghost = await tokenFor('ghost-creator', { role: 'owner' });
    const created = await server().call('POST', '/organizations', {
      token: ghost,
      body: { organization_name: 'X', organization_description: '' },
    });
    expect(created.status).toBe(404);
    const user = await registerUser(server());
    for (const body of [
      { organization_name: '  ', organization_description: '' },
      { organization_name: 'X' },
      { organization_name: 'X', organization_description: 'd'.repeat(1001) },
    ]) {
      expect((await server().call('POST', '/organizations', { token: user.token, body })).status).toBe(400);
    }
    expect((await server().call('GET', '/organizations', { token: user.token })).body).toEqual([]);
  });

  describe('permission table', () => {
    let setup: Awaited<ReturnType<typeof organizationWithRoles>>;
    beforeAll(async () => {
      setup = await organizationWithRoles();
    });

    it('lets every member read, and answers 403 to outsiders and unknown organizations', async () => {
      const { owner, admin, member, outsider, organizationId } = setup;
      for (const reader of [owner, admin, member]) {
        expect((await server().call('GET', '/organization-user', { token: reader.token, organizationId })).status).toBe(
          200,
        );
        expect(
          (await server().call('GET', `/organization-user/${owner.id}`, { token: reader.token, organizationId }))
            .status,
        ).toBe(200);
      }
      for (const path of ['/organization-user', `/organization-user/${owner.id}`]) {
        const denied = await server().call('GET', path, { token: outsider.token, organizationId });
        expect(denied.status).toBe(403);
        expect(denied.body.code).toBe('FORBIDDEN');
        const unknown = await server().call('GET', path, {
          token: owner.token,
          organizationId: '01900000-0000-7000-8000-000000000000',
        });
        expect(unknown.status).toBe(403);
      }
    });

    it('answers 400 to a missing or malformed organization_id header', async () => {
      const { owner } = setup;
      for (const organizationId of [undefined, 'not-a-uuid', '1234']) {
        const response = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
        expect(response.status).toBe(400);
        expect(response.body.issues).toEqual([{ field: 'organization_id', problem: expect.any(String) }]);
      }
    });

    it('keeps changes to owners and admins of the organization (403 for members and outsiders)', async () => {
      const { owner, member, outsider, organizationId } = setup;
      const newcomer = await registerUser(server());
      for (const actor of [member, outsider]) {
        const add = await server().call('POST', '/organization-user', {
          token: actor.token,
          organizationId,
          body: { email: newcomer.email, role: 'member' },
        });
        expect(add.status).toBe(403);
        const put = await server().call('PUT', '/organization-user', {
          token: actor.token,
          organizationId,
          body: { user_id: owner.id, role: 'member' },
        });
        expect(put.status).toBe(403);
        // Not member.id: removing oneself is leaving, which any member may (tested below).
        const remove = await server().call('DELETE', '/organization-user', {
          token: actor.token,
          organizationId,
          body: { user_id: owner.id },
        });
        expect(remove.status).toBe(403);
      }
      expect(await roleOf(organizationId, owner, owner.id)).toBe('owner');
      expect(await roleOf(organizationId, owner, member.id)).toBe('member');
    });

    it('answers 403 before looking at the body of a change, saying why', async () => {
      const { owner, member, outsider, organizationId } = setup;
      const reasons = [
        [member, /Neither your role nor your teams .* let you/],
        [outsider, /not a member/],
      ] as const;
      for (const [actor, reason] of reasons) {
        for (const method of ['POST', 'PUT', 'DELETE']) {
          for (const body of [{ role: 'superuser' }, { user_id: owner.id, email: 'x@example.com', role: 'member' }]) {
            const response = await server().call(method, '/organization-user', {
              token: actor.token,
              organizationId,
              body,
            });
            expect(response.status, `${method} ${JSON.stringify(body)}`).toBe(403);
            expect(response.body).toEqual({ code: 'FORBIDDEN', message: expect.stringMatching(reason) });
          }
        }
      }
    });

    it('lets an admin add, re-role and remove members but not grant or touch owners', async () => {
      const { owner, admin, organizationId } = setup;
      const newcomer = await registerUser(server());
      const asOwner = await server().call('POST', '/organization-user', {
        token: admin.token,
        organizationId,
        body: { email: newcomer.email, role: 'owner' },
      });
      expect(asOwner.status).toBe(403);
      await addMember(server(), admin, organizationId, newcomer, 'member');

      const promote = await server().call('PUT', '/organization-user', {
        token: admin.token,
        organizationId,
        body: { user_id: newcomer.id, role: 'owner' },
      });
      expect(promote.status).toBe(403);
      const toAdmin = await server().call('PUT', '/organization-user', {
        token: admin.token,
        organizationId,
        body: { user_id: newcomer.id, role: 'admin' },
      });
      expect(toAdmin.status).toBe(200);
      expect(toAdmin.body).toEqual({ message: expect.any(String) });
      expect(await roleOf(organizationId, owner, newcomer.id)).toBe('admin');

      const demoteOwner = await server().call('PUT', '/organization-user', {
        token: admin.token,
        organizationId,
        body: { user_id: owner.id, role: 'member' },
      });
      expect(demoteOwner.status).toBe(403);
      const removeOwner = await server().call('DELETE', '/organization-user', {
        token: admin.token,
        organizationId,
        body: { user_id: owner.id },
      });
      expect(removeOwner.status).toBe(403);
      expect(await roleOf(organizationId, owner, owner.id)).toBe('owner');

      const removed = await server().call('DELETE', '/organization-user', {
        token: admin.token,
        organizationId,
        body: { user_id: newcomer.id },
      });
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ message: expect.any(String) });
      const gone = await server().call('GET', `/organization-user/${newcomer.id}`, {
        token: owner.token,
        organizationId,
      });
      expect(gone.status).toBe(404);
    });
  });

  it('lets an owner grant ownership and step down while another owner remains', async () => {
    const { owner, admin, organizationId } = await organizationWithRoles();
    const grant = await server().call('PUT', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { user_id: admin.id, role: 'owner' },
    });
    expect(grant.status).toBe(200);
    const stepDown = await server().call('PUT', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { user_id: owner.id, role: 'member' },
    });
    expect(stepDown.status).toBe(200);
    expect(await roleOf(organizationId, admin, owner.id)).toBe('member');
  });

  it('never lets the last owner be demoted or removed (409)', async () => {
    const { owner, organizationId } = await organizationWithRoles();
    for (const role of ['admin', 'member'] satisfies Role[]) {
      const demote = await server().call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: owner.id, role },
      });
      expect(demote.status).toBe(409);
      expect(demote.body.code).toBe('CONFLICT');
    }
    const remove = await server().call('DELETE', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { user_id: owner.id },
    });
    expect(remove.status).toBe(409);
    expect(await roleOf(organizationId, owner, owner.id)).toBe('owner');
    const keep = await server().call('PUT', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { user_id: owner.id, role: 'owner' },
    });
    expect(keep.status).toBe(200);
  });

  it('answers 404 for unknown e-mails and non-members, 409 for existing members', async () => {
    const { owner, member, outsider, organizationId } = await organizationWithRoles();
    const unknownEmail = await server().call('POST', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { email: 'nobody@example.com', role: 'member' },
    });
    expect(unknownEmail.status).toBe(404);
    const twice = await server().call('POST', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { email: member.email, role: 'admin' },
    });
    expect(twice.status).toBe(409);
    expect(await roleOf(organizationId, owner, member.id)).toBe('member');
    for (const method of ['PUT', 'DELETE']) {
      const response = await server().call(method, '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: outsider.id, role: 'member' },
      });
      expect(response.status).toBe(404);
    }
  });

  it('answers 400 to invalid payloads, including roles outside owner/admin/member', async () => {
    const { owner, member, organizationId } = await organizationWithRoles();
    const attempts: Array<[string, unknown]> = [
      ['POST', { email: member.email, role: 'superuser' }],
      ['POST', { email: 'not-an-email', role: 'member' }],
      ['POST', { role: 'member' }],
      ['PUT', { user_id: member.id, role: 'Owner' }],
      ['PUT', { user_id: '', role: 'admin' }],
      ['PUT', { role: 'admin' }],
      ['DELETE', {}],
      ['DELETE', { user_id: 17 }],
    ];
    for (const [method, body] of attempts) {
      const response = await server().call(method, '/organization-user', { token: owner.token, organizationId, body });
      expect(response.status, `${method} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body.code).toBe('BAD_REQUEST');
    }
    expect(await roleOf(organizationId, owner, member.id)).toBe('member');
  });

  it('answers 401 without a token on every membership endpoint', async () => {
    const { owner, organizationId } = await organizationWithRoles();
    for (const [method, path] of [
      ['GET', '/organization-user'],
      ['GET', `/organization-user/${owner.id}`],
      ['POST', '/organization-user'],
      ['PUT', '/organization-user'],
      ['DELETE', '/organization-user'],
    ] as const) {
      const response = await server().call(method, path, { organizationId, body: method === 'GET' ? undefined : {} });
      expect(response.status).toBe(401);
    }
  });
});
