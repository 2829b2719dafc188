/**
 * An organization's roles (behaviour §11) end to end, over REST (with and without /api) and tRPC:
 * the list of every usable role, creating, changing and deleting the organization's own, giving
 * them to members, and the permission endpoints answering from them. Refusals are checked for
 * their status and for having changed nothing; a race of deleting a role against giving it must
 * never leave a member holding a role that no longer exists.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createClient } from '../client/src/index.ts';
import type { AuditEvent } from '../shared/events.ts';
import { ROLES } from '../shared/fields.ts';
import { locateDatabase } from '../server/platform/database/engine.ts';
import { toDbTimestamp, type Database } from '../server/platform/database/schema.ts';
import { SERVICE_PERMISSIONS } from '../server/platform/role-catalogue.ts';
import { MAX_ORGANIZATION_ROLES, type RoleView } from '../shared/roles.ts';
import { rejection } from './support/api-errors.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { createKey } from './support/keys.ts';
import { addMember, registerUser, type TestUser } from './support/fixtures.ts';
import { expireInvitation, invite, organizationWithRoles, storedState } from './support/lifecycle.ts';
import { EXPECTED } from './support/permissions.ts';
import { createRole, giveRole, listRoles, rolePath, rolesPath } from './support/roles.ts';
import { startTestServer, useServer } from './support/server.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The built-in roles as the list shows them, in the catalogue's order. */
const BUILT_IN: RoleView[] = ROLES.map((role) => ({
  role,
  description: expect.any(String),
  permissions: [...EXPECTED[role]].sort(),
  kind: 'built_in',
  created_at: null,
  updated_at: null,
}));

/** A roles file with an application permission, an instance role, and that permission granted to admin. */
const ROLES_FILE = join(mkdtempSync(join(tmpdir(), 'orgs-roles-')), 'roles.json');
writeFileSync(
  ROLES_FILE,
  JSON.stringify({
    permissions: { 'reports:export': 'export reports' },
    roles: { reporter: { description: 'Exports reports', permissions: ['reports:export', 'organization:read'] } },
    grants: { admin: ['reports:export'] },
  }),
);

const badRequest = (field: string) => ({
  code: 'BAD_REQUEST',
  message: expect.any(String),
  issues: expect.arrayContaining([expect.objectContaining({ field })]),
});

describeOnEachDatabase('organization roles (behaviour §11)', (target) => {
  const server = useServer(target);

  const trpc = (user: TestUser) => createClient({ url: server().baseUrl, token: user.token });
  const post = (actor: TestUser, organizationId: string, body: unknown, prefix = '') =>
    server().call('POST', rolesPath(organizationId, prefix), { token: actor.token, body });
  const put = (actor: TestUser, organizationId: string, role: string, body: unknown, prefix = '') =>
    server().call('PUT', rolePath(organizationId, role, prefix), { token: actor.token, body });
  const remove = (actor: TestUser, organizationId: string, role: string, prefix = '') =>
    server().call('DELETE', rolePath(organizationId, role, prefix), { token: actor.token });
  const roleEvents = async (owner: TestUser, organizationId: string): Promise<AuditEvent[]> => {
    const listed = await server().call('GET', `/organizations/${organizationId}/events?limit=1000`, {
      token: owner.token,
    });
    expect(listed.status).toBe(200);
    return (listed.body as AuditEvent[]).filter((event) => event.type.startsWith('role.'));
  };

  /**
   * Runs a request that must be refused with `status`, and checks it changed nothing: the roles
   * as the owner lists them, and every row of the organization (memberships, invitations, events).
   */
  async function refused(
    owner: TestUser,
    organizationId: string,
    status: number,
    request: () => Promise<{ status: number; body: any }>,
  ) {
    const before = {
      roles: await listRoles(server(), owner, organizationId),
      ...(await storedState(server(), organizationId)),
    };
    const answer = await request();
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    const after = {
      roles: await listRoles(server(), owner, organizationId),
      ...(await storedState(server(), organizationId)),
    };
    expect(after).toEqual(before);
    return answer;
  }

  it('lists the built-in roles with their permissions to any member, on REST with and without /api and tRPC', async () => {
    const users = await organizationWithRoles(server());
    for (const role of ROLES) {
      for (const prefix of ['', '/api']) {
        const listed = await server().call('GET', rolesPath(users.organizationId, prefix), {
          token: users[role].token,
        });
        expect(listed.status).toBe(200);
        expect(listed.body).toEqual(BUILT_IN);
      }
      expect(await trpc(users[role]).roles.list.query({ organization_id: users.organizationId })).toEqual(BUILT_IN);
    }
    const outsider = await server().call('GET', rolesPath(users.organizationId), { token: users.outsider.token });
    expect(outsider).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect((await server().call('GET', rolesPath('not-a-uuid'), { token: users.owner.token })).status).toBe(400);
  });

  it('creates a role that members get by being added or re-roled, and the permission endpoints answer from it', async () => {
    const { owner, member, organizationId } = await organizationWithRoles(server());
    const created = await post(
      owner,
      organizationId,
      {
        role: 'auditor',
        description: 'Reads the audit trail',
        permissions: ['members:read', 'events:read', 'organization:read'],
      },
      '/api',
    );
    expect(created.status).toBe(201);
    const auditor: RoleView = {
      role: 'auditor',
      description: 'Reads the audit trail',
      permissions: ['events:read', 'members:read', 'organization:read'],
      kind: 'organization',
      created_at: expect.stringMatching(ISO_MS),
      updated_at: created.body.created_at,
    };
    expect(created.body).toEqual(auditor);
    expect(await listRoles(server(), member, organizationId)).toEqual([...BUILT_IN, auditor]);

    const newcomer = await registerUser(server(), 'auditor');
    await addMember(server(), owner, organizationId, newcomer, 'auditor');
    await giveRole(server(), owner, organizationId, member, 'auditor');
    for (const user of [newcomer, member]) {
      const mine = await server().call('GET', `/organizations/${organizationId}/permissions`, { token: user.token });
      expect(mine.body).toEqual({ user_id: user.id, role: 'auditor', teams: [], permissions: auditor.permissions });
      const check = await server().call('POST', `/api/organizations/${organizationId}/permissions/check`, {
        token: owner.token,
        body: { permissions: ['events:read', 'members:add'], user_id: user.id },
      });
      expect(check.body).toEqual({
        user_id: user.id,
        allowed: false,
        results: { 'events:read': true, 'members:add': false },
      });
      const read = await server().call('GET', `/organization-user/${user.id}`, { token: owner.token, organizationId });
      expect(read.body.role).toBe('auditor');
    }
    // The role's holder acts with it: events:read lets them read the events, members:add is refused.
    const events = await server().call('GET', `/organizations/${organizationId}/events`, { token: newcomer.token });
    expect(events.status).toBe(200);
    const denied = await server().call('POST', '/organization-user', {
      token: newcomer.token,
      organizationId,
      body: { email: (await registerUser(server())).email, role: 'member' },
    });
    expect(denied.status).toBe(403);
  });

  it('changes a role, and the very next check answers from its new permissions; a change of nothing records nothing', async () => {
    const { owner, member, organizationId } = await organizationWithRoles(server());
    const before = await createRole(
      server(),
      owner,
      organizationId,
      'helper',
      ['organization:read', 'members:read'],
      'Helps',
    );
    await giveRole(server(), owner, organizationId, member, 'helper');
    const check = () =>
      server().call('POST', `/organizations/${organizationId}/permissions/check`, {
        token: member.token,
        body: { permissions: ['members:read', 'invitations:read'] },
      });
    expect((await check()).body.results).toEqual({ 'members:read': true, 'invitations:read': false });

    const changed = await put(owner, organizationId, 'helper', {
      permissions: ['organization:read', 'invitations:read', 'members:read'],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({
      ...before,
      permissions: ['invitations:read', 'members:read', 'organization:read'],
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(Date.parse(changed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at!));
    expect((await check()).body).toEqual({
      user_id: member.id,
      allowed: true,
      results: { 'members:read': true, 'invitations:read': true },
    });

    const described = await trpc(owner).roles.update.mutate({
      organization_id: organizationId,
      role: 'helper',
      description: 'Helps with invitations',
    });
    expect(described).toEqual({
      ...changed.body,
      description: 'Helps with invitations',
      updated_at: expect.any(String),
    });

    // The same description and permissions, in another order: no change, no event, updated_at kept.
    const eventsBefore = await roleEvents(owner, organizationId);
    const same = await put(
      owner,
      organizationId,
      'helper',
      {
        description: 'Helps with invitations',
        permissions: ['members:read', 'invitations:read', 'organization:read'],
      },
      '/api',
    );
    expect(same).toMatchObject({ status: 200, body: described });
    expect(await roleEvents(owner, organizationId)).toEqual(eventsBefore);

    const shrunk = await put(owner, organizationId, 'helper', { permissions: ['members:read', 'organization:read'] });
    expect(shrunk.status).toBe(200);
    expect((await check()).body.results).toEqual({ 'members:read': true, 'invitations:read': false });
  });

  it('deletes a role only once no member or pending invitation holds it, and records every change as an event', async () => {
    const { owner, admin, member, organizationId } = await organizationWithRoles(server());
    await createRole(server(), owner, organizationId, 'helper', ['members:read'], 'Helps');
    await giveRole(server(), owner, organizationId, member, 'helper');
    await giveRole(server(), owner, organizationId, admin, 'helper');
    const inUse = await refused(owner, organizationId, 409, () => remove(owner, organizationId, 'helper'));
    expect(inUse.body).toEqual({ code: 'CONFLICT', message: expect.stringContaining('2 members') });

    await giveRole(server(), owner, organizationId, member, 'member');
    await giveRole(server(), owner, organizationId, admin, 'admin');
    const invitation = await invite(server(), owner, organizationId, 'helper-invitee@example.com', 'helper');
    const invited = await refused(owner, organizationId, 409, () => remove(owner, organizationId, 'helper', '/api'));
    expect(invited.body.message).toContain('1 pending invitation');
    const revoked = await server().call(
      'DELETE',
      `/organizations/${organizationId}/invitations/${invitation.invitation_id}`,
      { token: owner.token },
    );
    expect(revoked.status).toBe(200);

    const deleted = await remove(owner, organizationId, 'helper');
    expect(deleted).toMatchObject({ status: 200, body: { message: expect.any(String) } });
    expect(await listRoles(server(), owner, organizationId)).toEqual(BUILT_IN);
    expect((await remove(owner, organizationId, 'helper')).status).toBe(404);

    // An expired invitation stays pending but can no longer be accepted: it holds its role no more.
    await createRole(server(), owner, organizationId, 'stale', ['members:read']);
    const stale = await invite(server(), owner, organizationId, 'stale-invitee@example.com', 'stale');
    await expireInvitation(server(), stale.invitation_id);
    expect((await remove(owner, organizationId, 'stale')).status).toBe(200);

    // Over tRPC: create, change, delete.
    const api = trpc(owner);
    await api.roles.create.mutate({ organization_id: organizationId, role: 'viewer', permissions: ['members:read'] });
    await api.roles.update.mutate({ organization_id: organizationId, role: 'viewer', permissions: ['events:read'] });
    expect(await api.roles.remove.mutate({ organization_id: organizationId, role: 'viewer' })).toEqual({
      message: expect.any(String),
    });
    const duplicate = await rejection(
      api.roles.create.mutate({ organization_id: organizationId, role: 'admin', permissions: ['members:read'] }),
    );
    expect({ code: duplicate.code, status: duplicate.status }).toEqual({ code: 'CONFLICT', status: 409 });

    const events = await roleEvents(owner, organizationId);
    expect(
      events.map(({ type, actor_user_id, subject_user_id, data }) => ({ type, actor_user_id, subject_user_id, data })),
    ).toEqual([
      {
        type: 'role.created',
        actor_user_id: owner.id,
        subject_user_id: null,
        data: { role: 'helper', description: 'Helps', permissions: ['members:read'] },
      },
      { type: 'role.deleted', actor_user_id: owner.id, subject_user_id: null, data: { role: 'helper' } },
      {
        type: 'role.created',
        actor_user_id: owner.id,
        subject_user_id: null,
        data: { role: 'stale', description: '', permissions: ['members:read'] },
      },
      { type: 'role.deleted', actor_user_id: owner.id, subject_user_id: null, data: { role: 'stale' } },
      {
        type: 'role.created',
        actor_user_id: owner.id,
        subject_user_id: null,
        data: { role: 'viewer', description: '', permissions: ['members:read'] },
      },
      {
        type: 'role.updated',
        actor_user_id: owner.id,
        subject_user_id: null,
        data: { role: 'viewer', changes: { permissions: { from: ['members:read'], to: ['events:read'] } } },
      },
      { type: 'role.deleted', actor_user_id: owner.id, subject_user_id: null, data: { role: 'viewer' } },
    ]);
  });

  it('deletes a role only once no live API key holds it: an expired or revoked one does not count', async () => {
    const { owner, organizationId } = await organizationWithRoles(server());
    await createRole(server(), owner, organizationId, 'robot', ['members:read']);
    const [live, expired] = [
      await createKey(server(), owner.token, organizationId, 'robot'),
      await createKey(server(), owner.token, organizationId, 'robot'),
    ];
    // Behind the API: a key whose expiry has passed holds its role no more.
    await server()
      .service.orm.em.getKysely<Database>()
      .updateTable('api_keys')
      .set({ expires_at: toDbTimestamp(locateDatabase(server().databaseUrl).dialect, new Date(Date.now() - 1000)) })
      .where('id', '=', expired.key_id)
      .execute();
    const inUse = await refused(owner, organizationId, 409, () => remove(owner, organizationId, 'robot'));
    expect(inUse.body).toEqual({ code: 'CONFLICT', message: expect.stringContaining('in use by 1 API key:') });
    const asKey = () => server().call('GET', '/organization-user', { token: live.secret, organizationId });
    expect((await asKey()).status).toBe(200);

    const revoked = await server().call('DELETE', `/organizations/${organizationId}/api-keys/${live.key_id}`, {
      token: owner.token,
    });
    expect(revoked.status).toBe(200);
    expect((await remove(owner, organizationId, 'robot')).status).toBe(200);
  });

  it('refuses a name in use (409), and changing or deleting a built-in role (409) or one it does not have (404)', async () => {
    const { owner, organizationId } = await organizationWithRoles(server());
    await createRole(server(), owner, organizationId, 'helper', ['members:read']);
    for (const role of [...ROLES, 'helper']) {
      const taken = await refused(owner, organizationId, 409, () =>
        post(owner, organizationId, { role, permissions: ['members:read'] }),
      );
      expect(taken.body).toEqual({ code: 'CONFLICT', message: expect.stringContaining(role) });
    }
    for (const role of ROLES) {
      await refused(owner, organizationId, 409, () => put(owner, organizationId, role, { description: 'mine now' }));
      await refused(owner, organizationId, 409, () => remove(owner, organizationId, role));
    }
    await refused(owner, organizationId, 404, () => put(owner, organizationId, 'nosuchrole', { description: 'x' }));
    await refused(owner, organizationId, 404, () => remove(owner, organizationId, 'nosuchrole'));
  });

  it('refuses with 400 permissions no role may hold and malformed names or lists, changing nothing', async () => {
    const { owner, member, organizationId } = await organizationWithRoles(server());
    await createRole(server(), owner, organizationId, 'helper', ['members:read']);
    const stranger = await registerUser(server(), 'stranger');
    const bodies: Array<[string, unknown, string]> = [
      ['an unknown permission', { role: 'x', permissions: ['members:read', 'reports:export'] }, 'permissions'],
      ['organization:delete (owners only)', { role: 'x', permissions: ['organization:delete'] }, 'permissions'],
      ['ownership:transfer (owners only)', { role: 'x', permissions: ['ownership:transfer'] }, 'permissions'],
      ['a malformed permission', { role: 'x', permissions: ['read'] }, 'permissions.0'],
      ['no permissions', { role: 'x', permissions: [] }, 'permissions'],
      ['no permission list', { role: 'x' }, 'permissions'],
      ['a permission twice', { role: 'x', permissions: ['members:read', 'members:read'] }, 'permissions'],
      ['an upper-case name', { role: 'Auditor', permissions: ['members:read'] }, 'role'],
      ['a name starting with a digit', { role: '1st', permissions: ['members:read'] }, 'role'],
      ['a name with a space', { role: 'a b', permissions: ['members:read'] }, 'role'],
      ['an empty name', { role: '', permissions: ['members:read'] }, 'role'],
      ['a name of 65 characters', { role: 'a'.repeat(65), permissions: ['members:read'] }, 'role'],
      ['no name', { permissions: ['members:read'] }, 'role'],
      [
        'a description of 501 characters',
        { role: 'x', description: 'd'.repeat(501), permissions: ['members:read'] },
        'description',
      ],
    ];
    for (const [why, body, field] of bodies) {
      const answer = await refused(owner, organizationId, 400, () => post(owner, organizationId, body));
      expect(answer.body, why).toEqual(badRequest(field));
    }
    const ownersOnly = await post(owner, organizationId, { role: 'x', permissions: ['organization:delete'] });
    expect(ownersOnly.body.issues).toEqual([
      { field: 'permissions', problem: expect.stringContaining('organization:delete') },
    ]);

    const changes: Array<[string, string, unknown, string]> = [
      ['an unknown permission', 'helper', { permissions: ['reports:export'] }, 'permissions'],
      ['an owners-only permission', 'helper', { permissions: ['members:read', 'ownership:transfer'] }, 'permissions'],
      ['no permissions', 'helper', { permissions: [] }, 'permissions'],
      ['a permission twice', 'helper', { permissions: ['events:read', 'events:read'] }, 'permissions'],
      ['a malformed name in the path', 'Helper', { description: 'x' }, 'role'],
      ['a name in the path with a dot', 'help.er', { description: 'x' }, 'role'],
    ];
    for (const [why, role, body, field] of changes) {
      const answer = await refused(owner, organizationId, 400, () => put(owner, organizationId, role, body));
      expect(answer.body, why).toEqual(badRequest(field));
    }
    await refused(owner, organizationId, 400, () => put(owner, organizationId, 'helper', {}));
    await refused(owner, organizationId, 400, () => remove(owner, organizationId, 'Helper'));

    // A role the organization does not have, named when giving one: 400.
    const unknown = await refused(owner, organizationId, 400, () =>
      server().call('POST', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { email: stranger.email, role: 'nosuchrole' },
      }),
    );
    expect(unknown.body).toEqual(badRequest('role'));
    const unknownChange = await refused(owner, organizationId, 400, () =>
      server().call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: member.id, role: 'nosuchrole' },
      }),
    );
    expect(unknownChange.body).toEqual(badRequest('role'));
  });

  it('refuses with 403 a member without roles:manage, whatever the body, and an outsider', async () => {
    const { owner, member, outsider, organizationId } = await organizationWithRoles(server());
    await createRole(server(), owner, organizationId, 'helper', ['members:read']);
    for (const caller of [member, outsider]) {
      for (const body of [{ role: 'mine', permissions: ['members:read'] }, { role: 'Bad name' }, {}]) {
        await refused(owner, organizationId, 403, () => post(caller, organizationId, body));
      }
      await refused(owner, organizationId, 403, () => put(caller, organizationId, 'helper', { description: 'x' }));
      await refused(owner, organizationId, 403, () => put(caller, organizationId, 'Bad name', {}));
      await refused(owner, organizationId, 403, () => remove(caller, organizationId, 'helper'));
    }
    const overTrpc = await rejection(
      trpc(member).roles.remove.mutate({ organization_id: organizationId, role: 'helper' }),
    );
    expect(overTrpc.code).toBe('FORBIDDEN');
  });

  it('lets no one create or change a role with a permission they do not hold, nor give one (403)', async () => {
    const { owner, organizationId } = await organizationWithRoles(server());
    await createRole(server(), owner, organizationId, 'role-manager', ['members:read', 'roles:manage']);
    await createRole(server(), owner, organizationId, 'auditor', ['events:read', 'members:read']);
    const manager = await registerUser(server(), 'role-manager');
    await addMember(server(), owner, organizationId, manager, 'role-manager');

    const escalating = await refused(owner, organizationId, 403, () =>
      post(manager, organizationId, { role: 'adder', permissions: ['members:read', 'members:add'] }),
    );
    expect(escalating.body).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('members:add') });
    const reader = await post(manager, organizationId, { role: 'reader', permissions: ['members:read'] });
    expect(reader.status).toBe(201);
    await refused(owner, organizationId, 403, () =>
      put(manager, organizationId, 'reader', { permissions: ['members:read', 'members:add'] }),
    );
    // The auditor role holds events:read, which the manager does not: not theirs to change.
    await refused(owner, organizationId, 403, () => put(manager, organizationId, 'auditor', { description: 'x' }));
    expect((await put(manager, organizationId, 'reader', { description: 'Reads members' })).status).toBe(200);
    // Deleting takes power away: the manager may delete a role holding more than they do.
    expect((await remove(manager, organizationId, 'auditor')).status).toBe(200);
    // The manager's role holds no roles:read.
    expect((await server().call('GET', rolesPath(organizationId), { token: manager.token })).status).toBe(403);

    // Giving a role: whoever gives it must hold every permission it holds.
    await createRole(server(), owner, organizationId, 'member-manager', [
      'members:add',
      'members:read',
      'members:update',
      'roles:manage',
    ]);
    await createRole(server(), owner, organizationId, 'auditor', ['events:read', 'members:read']);
    await createRole(server(), owner, organizationId, 'reader-two', ['members:read']);
    const giver = await registerUser(server(), 'giver');
    await addMember(server(), owner, organizationId, giver, 'member-manager');
    const newcomer = await registerUser(server(), 'newcomer');
    for (const role of ['admin', 'auditor']) {
      const answer = await refused(owner, organizationId, 403, () =>
        server().call('POST', '/organization-user', {
          token: giver.token,
          organizationId,
          body: { email: newcomer.email, role },
        }),
      );
      expect(answer.body.code).toBe('FORBIDDEN');
    }
    await addMember(server(), giver, organizationId, newcomer, 'reader');
    await refused(owner, organizationId, 403, () =>
      server().call('PUT', '/organization-user', {
        token: giver.token,
        organizationId,
        body: { user_id: newcomer.id, role: 'admin' },
      }),
    );
    await giveRole(server(), giver, organizationId, newcomer, 'reader-two');
  });

  it(`refuses the organization's ${MAX_ORGANIZATION_ROLES + 1}st role of its own with 409`, async () => {
    const { owner, organizationId } = await organizationWithRoles(server());
    for (let index = 0; index < MAX_ORGANIZATION_ROLES; index++) {
      await createRole(server(), owner, organizationId, `role-${index}`, ['members:read']);
    }
    const tooMany = await refused(owner, organizationId, 409, () =>
      post(owner, organizationId, { role: 'one-too-many', permissions: ['members:read'] }),
    );
    expect(tooMany.body).toEqual({
      code: 'CONFLICT',
      message: expect.stringContaining(String(MAX_ORGANIZATION_ROLES)),
    });
    expect((await remove(owner, organizationId, 'role-0')).status).toBe(200);
    await createRole(server(), owner, organizationId, 'one-too-many', ['members:read']);
  });

  it('serialises deleting a role and giving it: no member ever holds a role that does not exist', async () => {
    const { owner, member, organizationId } = await organizationWithRoles(server());
    for (let round = 0; round < 20; round++) {
      await createRole(server(), owner, organizationId, 'racer', ['members:read']);
      // Odd rounds add a new member with the role, even ones change an existing member's.
      const subject = round % 2 === 1 ? await registerUser(server(), 'racer') : member;
      const give = () =>
        subject === member
          ? server().call('PUT', '/organization-user', {
              token: owner.token,
              organizationId,
              body: { user_id: member.id, role: 'racer' },
            })
          : server().call('POST', '/organization-user', {
              token: owner.token,
              organizationId,
              body: { email: subject.email, role: 'racer' },
            });
      // Sent together, the deletion (no body) tends to reach the database first; in half the
      // rounds it is sent a millisecond later, so that either may come first.
      const deleteLater = Math.floor(round / 2) % 2 === 1;
      const [deleted, given] = await Promise.all([
        (deleteLater ? setTimeout(1) : Promise.resolve()).then(() => remove(owner, organizationId, 'racer')),
        give(),
      ]);
      const outcome = `round ${round}: delete ${deleted.status}, give ${given.status}`;
      if (deleted.status === 200) {
        expect(given.status, outcome).toBe(400);
      } else {
        expect(deleted.status, outcome).toBe(409);
        expect(given.status, outcome).toBe(subject === member ? 200 : 201);
      }

      const roles = (await listRoles(server(), owner, organizationId)).map((role) => role.role);
      const read = await server().call('GET', `/organization-user/${subject.id}`, {
        token: owner.token,
        organizationId,
      });
      if (read.status === 200) expect(roles, outcome).toContain(read.body.role);
      else expect(read.status, outcome).toBe(404);
      const everyone = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
      for (const row of everyone.body as Array<{ role: string }>) expect(roles, outcome).toContain(row.role);

      if (given.status !== 400) {
        if (subject === member) await giveRole(server(), owner, organizationId, member, 'member');
        else {
          const removed = await server().call('DELETE', '/organization-user', {
            token: owner.token,
            organizationId,
            body: { user_id: subject.id },
          });
          expect(removed.status).toBe(200);
        }
        expect((await remove(owner, organizationId, 'racer')).status).toBe(200);
      }
    }
  });

  describe('with instance roles (ROLES_FILE)', () => {
    const withFile = useServer(target, { ROLES_FILE });

    it("answers the permission catalogue, the service's then the file's, to any caller (GET /permissions)", async () => {
      const stranger = await registerUser(withFile(), 'catalogue-reader');
      const catalogue = await withFile().call('GET', '/permissions', { token: stranger.token });
      expect(catalogue.status).toBe(200);
      expect(catalogue.body).toEqual([
        ...Object.entries(SERVICE_PERMISSIONS).map(([permission, description]) => ({
          permission,
          description,
          owners_only: permission === 'organization:delete' || permission === 'ownership:transfer',
          application_only: permission === 'organization:limits' || permission === 'metadata:private',
        })),
        { permission: 'reports:export', description: 'export reports', owners_only: false, application_only: false },
      ]);
      expect((await withFile().call('GET', '/api/permissions', { token: stranger.token })).body).toEqual(
        catalogue.body,
      );
      const typed = createClient({ url: withFile().baseUrl, token: stranger.token });
      expect(await typed.permissions.catalogue.query()).toEqual(catalogue.body);
      expect((await withFile().call('GET', '/permissions')).status).toBe(401);
      // Without the file, the service's own only.
      expect((await server().call('GET', '/permissions', { token: stranger.token })).body).toEqual(
        catalogue.body.slice(0, -1),
      );
    });

    it('lists them after the built-in roles and before its own, and refuses to take, change or delete them', async () => {
      const { owner, admin, member, organizationId } = await organizationWithRoles(withFile());
      const own = await createRole(withFile(), admin, organizationId, 'exporter', ['reports:export']);
      const listed = await listRoles(withFile(), member, organizationId);
      expect(listed.map((role) => [role.role, role.kind])).toEqual([
        ['owner', 'built_in'],
        ['admin', 'built_in'],
        ['member', 'built_in'],
        ['reporter', 'instance'],
        ['exporter', 'organization'],
      ]);
      expect(listed[3]).toEqual({
        role: 'reporter',
        description: 'Exports reports',
        permissions: ['organization:read', 'reports:export'],
        kind: 'instance',
        created_at: null,
        updated_at: null,
      });
      expect(listed[4]).toEqual(own);
      for (const [status, request] of [
        [
          409,
          () =>
            withFile().call('POST', rolesPath(organizationId), {
              token: owner.token,
              body: { role: 'reporter', permissions: ['reports:export'] },
            }),
        ],
        [
          409,
          () =>
            withFile().call('PUT', rolePath(organizationId, 'reporter'), {
              token: owner.token,
              body: { description: 'ours' },
            }),
        ],
        [409, () => withFile().call('DELETE', rolePath(organizationId, 'reporter'), { token: owner.token })],
      ] as const) {
        const answer = await request();
        expect(answer.status, JSON.stringify(answer.body)).toBe(status);
        expect(answer.body.message).toContain('reporter');
      }
      expect(await listRoles(withFile(), member, organizationId)).toEqual(listed);
    });

    it("lets an instance role declared later count instead of an organization's own role of that name", async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      await createRole(server(), owner, organizationId, 'reporter', ['members:read']);
      await giveRole(server(), owner, organizationId, member, 'reporter');
      // The same database, served by an instance whose roles file has an instance role `reporter`.
      const later = await startTestServer(server().databaseUrl, { ROLES_FILE, MIGRATE_ON_START: 'false' });
      try {
        const listed = await listRoles(later, owner, organizationId);
        expect(listed.filter((role) => role.role === 'reporter')).toEqual([
          expect.objectContaining({ kind: 'instance', permissions: ['organization:read', 'reports:export'] }),
        ]);
        const check = await later.call('POST', `/organizations/${organizationId}/permissions/check`, {
          token: member.token,
          body: { permissions: ['reports:export', 'members:read'] },
        });
        expect(check.body.results).toEqual({ 'reports:export': true, 'members:read': false });
      } finally {
        await later.service.close();
      }
    });
  });
});
