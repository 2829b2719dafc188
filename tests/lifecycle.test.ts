/**
 * The organization lifecycle over REST (behaviour §8 and the leaving rule of 3.2): reading, updating,
 * deleting an organization, handing its ownership over, and members leaving. Each change is checked
 * for its audit event, each refusal for its status, body, and for having changed nothing.
 */
import { describe, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, registerUser } from './support/fixtures.ts';
import { eventsOf, invite, organizationWithRoles, rowsPointingAt, storedState } from './support/lifecycle.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UNKNOWN_ORGANIZATION = '01900000-0000-7000-8000-000000000000';
const MALFORMED_IDS = ['not-a-uuid', '1234', '01900000-0000-7000-8000-00000000000g'];

describeOnEachDatabase('organization lifecycle', (target) => {
  const server = useServer(target);

  const pathOf = (organizationId: string, prefix = '') => `${prefix}/organizations/${organizationId}`;

  describe('GET /organizations/{organization_id}', () => {
    it("answers any member with the organization, the caller's role and the member count", async () => {
      const { owner, admin, member, organizationId } = await organizationWithRoles(server());
      for (const [reader, role] of [
        [owner, 'owner'],
        [admin, 'admin'],
        [member, 'member'],
      ] as const) {
        for (const prefix of ['', '/api']) {
          const read = await server().call('GET', pathOf(organizationId, prefix), { token: reader.token });
          expect(read.status).toBe(200);
          expect(read.body).toEqual({
            organization_id: organizationId,
            organization_name: 'Test organization',
            organization_description: 'for tests',
            slug: expect.stringMatching(/^test-organization(-\d+)?$/),
            role,
            member_count: 3,
            max_members: null,
            public_metadata: {},
            created_at: expect.stringMatching(ISO_MS),
            updated_at: expect.stringMatching(ISO_MS),
          });
        }
      }
      const upperCase = await server().call('GET', pathOf(organizationId.toUpperCase()), { token: owner.token });
      expect(upperCase.body.organization_id).toBe(organizationId);
    });

    it('answers 403 to outsiders and unknown organizations, 400 to malformed ids, 401 without a token', async () => {
      const { outsider, owner, organizationId } = await organizationWithRoles(server());
      const denied = await server().call('GET', pathOf(organizationId), { token: outsider.token });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ code: 'FORBIDDEN', message: expect.any(String) });
      expect((await server().call('GET', pathOf(UNKNOWN_ORGANIZATION), { token: owner.token })).status).toBe(403);
      for (const id of MALFORMED_IDS) {
        const malformed = await server().call('GET', pathOf(id), { token: owner.token });
        expect(malformed.status).toBe(400);
        expect(malformed.body).toEqual({
          code: 'BAD_REQUEST',
          message: expect.any(String),
          issues: [{ field: 'organization_id', problem: expect.any(String) }],
        });
      }
      expect((await server().call('GET', pathOf(organizationId))).status).toBe(401);
    });
  });

  describe('PUT /organizations/{organization_id}', () => {
    it('lets an owner or admin change the name and/or description, recording only what changed', async () => {
      const { owner, admin, organizationId } = await organizationWithRoles(server());
      const before = await server().call('GET', pathOf(organizationId), { token: owner.token });
      const renamed = await server().call('PUT', pathOf(organizationId), {
        token: admin.token,
        body: { organization_name: '  Renamed  ', organization_description: 'for tests' },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({
        ...before.body,
        organization_name: 'Renamed',
        role: 'admin',
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect(renamed.body.updated_at > before.body.updated_at).toBe(true);
      const described = await server().call('PUT', pathOf(organizationId, '/api'), {
        token: owner.token,
        body: { organization_description: 'Line one\nline two' },
      });
      expect(described.status).toBe(200);
      expect(described.body.organization_description).toBe('Line one\nline two');
      expect((await server().call('GET', pathOf(organizationId), { token: owner.token })).body).toEqual(described.body);
      expect((await server().call('GET', '/organizations', { token: owner.token })).body[0].name).toBe('Renamed');

      const events = (await eventsOf(server(), organizationId)).filter(
        (event) => event.type === 'organization.updated',
      );
      expect(events).toEqual([
        {
          type: 'organization.updated',
          actor_user_id: admin.id,
          subject_user_id: null,
          data: { changes: { organization_name: { from: 'Test organization', to: 'Renamed' } } },
        },
        {
          type: 'organization.updated',
          actor_user_id: owner.id,
          subject_user_id: null,
          data: { changes: { organization_description: { from: 'for tests', to: 'Line one\nline two' } } },
        },
      ]);
    });

    it('changes nothing, records no event and keeps updated_at when the values are the same', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      const same = await server().call('PUT', pathOf(organizationId), {
        token: owner.token,
        body: { organization_name: 'Test organization', organization_description: 'for tests' },
      });
      expect(same.status).toBe(200);
      expect(same.body.organization_name).toBe('Test organization');
      const after = await storedState(server(), organizationId);
      expect(after.events).toEqual(before.events);
      expect(after.organization[0]!.updated_at).toEqual(before.organization[0]!.updated_at);
    });

    it('refuses members, outsiders and unknown organizations with 403, whatever the body', async () => {
      const { member, outsider, owner, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      for (const actor of [member, outsider]) {
        for (const body of [{ organization_name: 'Mine now' }, {}]) {
          const refused = await server().call('PUT', pathOf(organizationId), { token: actor.token, body });
          expect(refused.status).toBe(403);
          expect(refused.body.code).toBe('FORBIDDEN');
        }
      }
      const unknown = await server().call('PUT', pathOf(UNKNOWN_ORGANIZATION), {
        token: owner.token,
        body: { organization_name: 'X' },
      });
      expect(unknown.status).toBe(403);
      expect(await storedState(server(), organizationId)).toEqual(before);
    });

    it('answers 400 naming the field to a bad body or id, and changes nothing', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      for (const [body, field] of [
        [{}, '(body)'],
        [{ organization_name: '   ' }, 'organization_name'],
        [{ organization_name: 'n'.repeat(101) }, 'organization_name'],
        [{ organization_name: 'bell\u0007' }, 'organization_name'],
        [{ organization_description: 'd'.repeat(1001) }, 'organization_description'],
        [{ organization_description: 5 }, 'organization_description'],
      ] as const) {
        const refused = await server().call('PUT', pathOf(organizationId), { token: owner.token, body });
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.issues).toEqual([{ field, problem: expect.any(String) }]);
      }
      const loneSurrogate = await server().request('PUT', pathOf(organizationId), {
        token: owner.token,
        rawBody: '{"organization_name":"x\\udc00"}',
      });
      expect(loneSurrogate.status).toBe(400);
      for (const id of MALFORMED_IDS) {
        const malformed = await server().call('PUT', pathOf(id), {
          token: owner.token,
          body: { organization_name: 'X' },
        });
        expect(malformed.status).toBe(400);
      }
      expect(await storedState(server(), organizationId)).toEqual(before);
    });
  });

  describe('DELETE /organizations/{organization_id}', () => {
    it('lets an owner delete it with its memberships and invitations; its events stay', async () => {
      const { owner, admin, member, organizationId } = await organizationWithRoles(server());
      await invite(server(), owner, organizationId, 'someone-new@example.com');
      expect(await rowsPointingAt(server(), organizationId)).toBe(4);
      const deleted = await server().call('DELETE', pathOf(organizationId, '/api'), { token: owner.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ message: expect.any(String) });
      expect(await rowsPointingAt(server(), organizationId)).toBe(0);
      for (const user of [owner, admin, member]) {
        expect((await server().call('GET', pathOf(organizationId), { token: user.token })).status).toBe(403);
        expect((await server().call('GET', '/organizations', { token: user.token })).body).toEqual([]);
      }
      const events = await eventsOf(server(), organizationId);
      expect(events.at(-1)).toEqual({
        type: 'organization.deleted',
        actor_user_id: owner.id,
        subject_user_id: null,
        data: { organization_name: 'Test organization' },
      });
      expect(events.map((event) => event.type)).toContain('organization.created');
      // Gone: like an unknown organization, 403.
      expect((await server().call('DELETE', pathOf(organizationId), { token: owner.token })).status).toBe(403);
    });

    it('refuses admins, members and outsiders with 403 and malformed ids with 400, deleting nothing', async () => {
      const { admin, member, outsider, owner, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      for (const actor of [admin, member, outsider]) {
        const refused = await server().call('DELETE', pathOf(organizationId), { token: actor.token });
        expect(refused.status).toBe(403);
        expect(refused.body.code).toBe('FORBIDDEN');
      }
      expect((await server().call('DELETE', pathOf('nope'), { token: owner.token })).status).toBe(400);
      expect((await server().call('DELETE', pathOf(organizationId))).status).toBe(401);
      expect(await storedState(server(), organizationId)).toEqual(before);
    });
  });

  describe('POST /organizations/{organization_id}/transfer-ownership', () => {
    const transfer = (organizationId: string, token: string, body: unknown, prefix = '') =>
      server().call('POST', `${pathOf(organizationId, prefix)}/transfer-ownership`, { token, body });

    it('makes the member owner and the caller admin, in one change with one event', async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      const handed = await transfer(organizationId, owner.token, { user_id: member.id }, '/api');
      expect(handed.status).toBe(200);
      expect(handed.body).toEqual({ message: expect.any(String) });
      expect((await server().call('GET', pathOf(organizationId), { token: member.token })).body.role).toBe('owner');
      expect((await server().call('GET', pathOf(organizationId), { token: owner.token })).body.role).toBe('admin');
      expect((await eventsOf(server(), organizationId)).at(-1)).toEqual({
        type: 'ownership.transferred',
        actor_user_id: owner.id,
        subject_user_id: member.id,
        data: { previous_owner_user_id: owner.id, new_owner_previous_role: 'member' },
      });
      // The former owner, now admin, may not hand it back.
      expect((await transfer(organizationId, owner.token, { user_id: owner.id })).status).toBe(403);
    });

    it('lets one of several owners step down by naming another owner', async () => {
      const { owner, admin, organizationId } = await organizationWithRoles(server());
      const second = await registerUser(server(), 'second-owner');
      await addMember(server(), owner, organizationId, second, 'owner');
      expect((await transfer(organizationId, owner.token, { user_id: second.id })).status).toBe(200);
      const roles = await server().call('GET', '/organization-user', { token: admin.token, organizationId });
      expect(
        Object.fromEntries(roles.body.map((row: { user_id: string; role: string }) => [row.user_id, row.role])),
      ).toMatchObject({
        [owner.id]: 'admin',
        [second.id]: 'owner',
      });
    });

    it('answers 400 to the owner naming themselves, 404 to a non-member, and changes nothing', async () => {
      const { owner, outsider, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      const self = await transfer(organizationId, owner.token, { user_id: owner.id });
      expect(self.status).toBe(400);
      expect(self.body).toEqual({
        code: 'BAD_REQUEST',
        message: expect.any(String),
        issues: [{ field: 'user_id', problem: expect.any(String) }],
      });
      for (const userId of [outsider.id, 'nobody-at-all']) {
        const missing = await transfer(organizationId, owner.token, { user_id: userId });
        expect(missing.status).toBe(404);
        expect(missing.body.code).toBe('NOT_FOUND');
      }
      for (const body of [{}, { user_id: '' }, { user_id: 'x'.repeat(129) }, { user_id: 'tab\there' }]) {
        const invalid = await transfer(organizationId, owner.token, body);
        expect(invalid.status).toBe(400);
        expect(invalid.body.issues[0].field).toBe('user_id');
      }
      expect(await storedState(server(), organizationId)).toEqual(before);
    });

    it('refuses admins, members, outsiders and unknown organizations with 403, whatever the body', async () => {
      const { owner, admin, member, outsider, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      for (const actor of [admin, member, outsider]) {
        for (const body of [{ user_id: actor.id }, {}]) {
          const refused = await transfer(organizationId, actor.token, body);
          expect(refused.status).toBe(403);
          expect(refused.body.code).toBe('FORBIDDEN');
        }
      }
      expect((await transfer(UNKNOWN_ORGANIZATION, owner.token, { user_id: admin.id })).status).toBe(403);
      expect((await transfer('malformed', owner.token, { user_id: admin.id })).status).toBe(400);
      expect(await storedState(server(), organizationId)).toEqual(before);
    });
  });

  describe('leaving: DELETE /organization-user with one’s own user_id', () => {
    const leave = (organizationId: string, user: { id: string; token: string }) =>
      server().call('DELETE', '/organization-user', { token: user.token, organizationId, body: { user_id: user.id } });

    it('lets a member or an admin leave, recorded as member.left', async () => {
      const { owner, admin, member, organizationId } = await organizationWithRoles(server());
      for (const [user, role] of [
        [member, 'member'],
        [admin, 'admin'],
      ] as const) {
        const left = await leave(organizationId, user);
        expect(left.status).toBe(200);
        expect(left.body).toEqual({ message: expect.any(String) });
        expect((await server().call('GET', pathOf(organizationId), { token: user.token })).status).toBe(403);
        expect((await eventsOf(server(), organizationId)).at(-1)).toEqual({
          type: 'member.left',
          actor_user_id: user.id,
          subject_user_id: user.id,
          data: { role },
        });
      }
      expect((await server().call('GET', pathOf(organizationId), { token: owner.token })).body.member_count).toBe(1);
    });

    it('lets an owner leave while another owner stays', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const second = await registerUser(server(), 'second-owner');
      await addMember(server(), owner, organizationId, second, 'owner');
      expect((await leave(organizationId, owner)).status).toBe(200);
      expect((await server().call('GET', pathOf(organizationId), { token: second.token })).body).toMatchObject({
        role: 'owner',
        member_count: 3,
      });
    });

    it('answers 409 to the last owner and 403 to a non-member, changing nothing', async () => {
      const { owner, outsider, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      const last = await leave(organizationId, owner);
      expect(last.status).toBe(409);
      expect(last.body).toEqual({ code: 'CONFLICT', message: expect.any(String) });
      const stranger = await leave(organizationId, outsider);
      expect(stranger.status).toBe(403);
      const noRecord = { id: 'no-record-leaver', token: await tokenFor('no-record-leaver') };
      expect((await leave(organizationId, noRecord)).status).toBe(403);
      expect((await leave(UNKNOWN_ORGANIZATION, owner)).status).toBe(403);
      expect(await storedState(server(), organizationId)).toEqual(before);
    });
  });
});
