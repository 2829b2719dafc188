/**
 * Invitations over REST (behaviour §8): the organization's side (create, list, revoke) and the
 * invitee's (their list, accept, decline), with expiry and every refusal of the contract, each
 * checked for its status, body, and for having changed nothing. INVITATION_TTL_HOURS is set, so
 * that `expires_at` shows the setting is read.
 */
import { describe, expect, it } from 'vitest';
import { readSettings } from '../server/platform/config.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { eventsOf, expireInvitation, invite, organizationWithRoles, storedState } from './support/lifecycle.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';
const TTL_HOURS = 2;

describe('INVITATION_TTL_HOURS', () => {
  it('defaults to 168 and refuses values that are not a positive number of hours', () => {
    expect(readSettings({}).INVITATION_TTL_HOURS).toBe(168);
    expect(readSettings({ INVITATION_TTL_HOURS: '0.5' }).INVITATION_TTL_HOURS).toBe(0.5);
    for (const value of ['0', '-1', 'soon', '100000']) {
      expect(() => readSettings({ INVITATION_TTL_HOURS: value })).toThrow(/INVITATION_TTL_HOURS/);
    }
  });
});

describeOnEachDatabase('invitations', (target) => {
  const server = useServer(target, { INVITATION_TTL_HOURS: String(TTL_HOURS) });

  const invitationsPath = (organizationId: string, prefix = '') =>
    `${prefix}/organizations/${organizationId}/invitations`;
  const createAs = (actor: TestUser, organizationId: string, body: unknown) =>
    server().call('POST', invitationsPath(organizationId), { token: actor.token, body });
  const listAs = (actor: TestUser, organizationId: string) =>
    server().call('GET', invitationsPath(organizationId), { token: actor.token });
  const revokeAs = (actor: TestUser, organizationId: string, invitationId: string) =>
    server().call('DELETE', `${invitationsPath(organizationId)}/${invitationId}`, { token: actor.token });
  const answerAs = (caller: { token: string }, invitationId: string, answer: 'accept' | 'decline', prefix = '') =>
    server().call('POST', `${prefix}/invitations/${invitationId}/${answer}`, { token: caller.token });
  const mine = (caller: { token: string }) => server().call('GET', '/invitations', { token: caller.token });
  const idsOf = (list: { body: Array<{ invitation_id: string }> }) => list.body.map((row) => row.invitation_id);
  const freshEmail = () => `${uniqueId('invitee')}@example.com`;

  describe('creating', () => {
    it('answers 201 with the invitation, the e-mail lower-cased, expiring after INVITATION_TTL_HOURS', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const email = freshEmail();
      const created = await server().call('POST', invitationsPath(organizationId, '/api'), {
        token: owner.token,
        body: { email: email.toUpperCase(), role: 'member', extra: 'ignored' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        invitation_id: expect.stringMatching(UUID),
        organization_id: organizationId,
        organization_name: 'Test organization',
        email,
        role: 'member',
        status: 'pending',
        invited_by: owner.id,
        invited_by_key_id: null,
        created_at: expect.stringMatching(ISO_MS),
        expires_at: expect.stringMatching(ISO_MS),
        membership_expires_at: null,
      });
      // One shape everywhere: the invitee's list shows the same object.
      const listed = await server().call('GET', `/organizations/${organizationId}/invitations`, { token: owner.token });
      expect(listed.body).toEqual([created.body]);
      const lifetime = Date.parse(created.body.expires_at) - Date.parse(created.body.created_at);
      expect(lifetime).toBe(TTL_HOURS * 60 * 60 * 1000);
      // Nobody holds the address yet: the event has no subject.
      expect((await eventsOf(server(), organizationId)).at(-1)).toEqual({
        type: 'invitation.created',
        actor_user_id: owner.id,
        subject_user_id: null,
        data: { invitation_id: created.body.invitation_id, email, role: 'member' },
      });
    });

    it('names the user who holds the address as the subject of the event', async () => {
      const { admin, outsider, organizationId } = await organizationWithRoles(server());
      const invitation = await invite(server(), admin, organizationId, outsider.email, 'admin');
      expect((await eventsOf(server(), organizationId)).at(-1)).toMatchObject({
        type: 'invitation.created',
        actor_user_id: admin.id,
        subject_user_id: outsider.id,
        data: { invitation_id: invitation.invitation_id, role: 'admin' },
      });
    });

    it('lets an owner invite an owner, and refuses an admin (403), changing nothing', async () => {
      const { owner, admin, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      const refused = await createAs(admin, organizationId, { email: freshEmail(), role: 'owner' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 'FORBIDDEN', message: expect.any(String) });
      expect(await storedState(server(), organizationId)).toEqual(before);
      expect((await createAs(owner, organizationId, { email: freshEmail(), role: 'owner' })).status).toBe(201);
    });

    it('refuses members, outsiders and unknown organizations with 403, whatever the body', async () => {
      const { owner, member, outsider, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      for (const actor of [member, outsider]) {
        for (const body of [{ email: freshEmail(), role: 'member' }, { role: 'boss' }]) {
          const refused = await createAs(actor, organizationId, body);
          expect(refused.status).toBe(403);
          expect(refused.body.code).toBe('FORBIDDEN');
        }
      }
      expect((await createAs(owner, UNKNOWN_ID, { email: freshEmail(), role: 'member' })).status).toBe(403);
      expect(await storedState(server(), organizationId)).toEqual(before);
    });

    it('answers 400 naming the field to a bad body or organization id, changing nothing', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const before = await storedState(server(), organizationId);
      for (const [body, field] of [
        [{ role: 'member' }, 'email'],
        [{ email: 'not-an-address', role: 'member' }, 'email'],
        [{ email: `${'a'.repeat(250)}@example.com`, role: 'member' }, 'email'],
        [{ email: freshEmail(), role: 'boss' }, 'role'],
        [{ email: freshEmail() }, 'role'],
      ] as const) {
        const refused = await createAs(owner, organizationId, body);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.issues).toEqual([{ field, problem: expect.any(String) }]);
      }
      const malformed = await createAs(owner, 'not-a-uuid', { email: freshEmail(), role: 'member' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.issues).toEqual([{ field: 'organization_id', problem: expect.any(String) }]);
      expect(await storedState(server(), organizationId)).toEqual(before);
    });

    it('answers 409 to a member’s address and to an address with a pending invitation, changing nothing', async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      const email = freshEmail();
      await invite(server(), owner, organizationId, email);
      const before = await storedState(server(), organizationId);
      for (const body of [
        { email: member.email.toUpperCase(), role: 'admin' },
        { email: email.toUpperCase(), role: 'admin' },
      ]) {
        const refused = await createAs(owner, organizationId, body);
        expect(refused.status).toBe(409);
        expect(refused.body).toEqual({ code: 'CONFLICT', message: expect.any(String) });
      }
      expect(await storedState(server(), organizationId)).toEqual(before);
    });

    it('invites an address again once its invitation expired, was revoked or was declined', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'again');
      const expired = await invite(server(), owner, organizationId, invitee.email);
      await expireInvitation(server(), expired.invitation_id);
      const revoked = await invite(server(), owner, organizationId, invitee.email);
      expect((await revokeAs(owner, organizationId, revoked.invitation_id)).status).toBe(200);
      const declined = await invite(server(), owner, organizationId, invitee.email);
      expect((await answerAs(invitee, declined.invitation_id, 'decline')).status).toBe(200);
      const latest = await invite(server(), owner, organizationId, invitee.email);
      expect(idsOf(await listAs(owner, organizationId))).toEqual([latest.invitation_id]);
    });
  });

  describe("the organization's list", () => {
    it('shows owners and admins the pending, unexpired invitations, oldest first', async () => {
      const { owner, admin, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'listed');
      const first = await invite(server(), owner, organizationId, freshEmail());
      const expired = await invite(server(), owner, organizationId, freshEmail());
      const second = await invite(server(), admin, organizationId, freshEmail(), 'admin');
      const revoked = await invite(server(), owner, organizationId, freshEmail());
      const accepted = await invite(server(), owner, organizationId, invitee.email);
      const third = await invite(server(), owner, organizationId, freshEmail(), 'owner');
      await expireInvitation(server(), expired.invitation_id);
      await revokeAs(owner, organizationId, revoked.invitation_id);
      await answerAs(invitee, accepted.invitation_id, 'accept');
      for (const reader of [owner, admin]) {
        const list = await listAs(reader, organizationId);
        expect(list.status).toBe(200);
        expect(list.body).toEqual([first, second, third]);
      }
      expect(
        (await server().call('GET', invitationsPath(organizationId, '/api'), { token: owner.token })).body,
      ).toEqual([first, second, third]);
    });

    it('answers 403 to members, outsiders and unknown organizations, 400 to a malformed id', async () => {
      const { owner, member, outsider, organizationId } = await organizationWithRoles(server());
      for (const reader of [member, outsider]) {
        const refused = await listAs(reader, organizationId);
        expect(refused.status).toBe(403);
        expect(refused.body.code).toBe('FORBIDDEN');
      }
      expect((await listAs(owner, UNKNOWN_ID)).status).toBe(403);
      expect((await listAs(owner, 'nope')).status).toBe(400);
    });
  });

  describe('revoking', () => {
    it('sets the status to revoked and records invitation.revoked', async () => {
      const { owner, admin, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'revoked');
      const invitation = await invite(server(), owner, organizationId, invitee.email, 'admin');
      const revoked = await server().call(
        'DELETE',
        `${invitationsPath(organizationId, '/api')}/${invitation.invitation_id}`,
        { token: admin.token },
      );
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ message: expect.any(String) });
      expect((await listAs(owner, organizationId)).body).toEqual([]);
      expect((await mine(invitee)).body).toEqual([]);
      expect((await answerAs(invitee, invitation.invitation_id, 'accept')).status).toBe(410);
      expect((await eventsOf(server(), organizationId)).at(-1)).toEqual({
        type: 'invitation.revoked',
        actor_user_id: admin.id,
        subject_user_id: invitee.id,
        data: { invitation_id: invitation.invitation_id, email: invitee.email, role: 'admin' },
      });
    });

    it('answers 403 to an admin revoking an owner invitation, and to members and outsiders', async () => {
      const { owner, admin, member, outsider, organizationId } = await organizationWithRoles(server());
      const ownerInvitation = await invite(server(), owner, organizationId, freshEmail(), 'owner');
      const memberInvitation = await invite(server(), owner, organizationId, freshEmail());
      const before = await storedState(server(), organizationId);
      expect((await revokeAs(admin, organizationId, ownerInvitation.invitation_id)).status).toBe(403);
      for (const actor of [member, outsider]) {
        const refused = await revokeAs(actor, organizationId, memberInvitation.invitation_id);
        expect(refused.status).toBe(403);
        expect(refused.body.code).toBe('FORBIDDEN');
      }
      expect(await storedState(server(), organizationId)).toEqual(before);
      expect((await revokeAs(owner, organizationId, ownerInvitation.invitation_id)).status).toBe(200);
    });

    it('answers 404 to unknown ids and other organizations’ invitations, 400 to malformed ids, 410 when not open', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const other = await organizationWithRoles(server());
      const elsewhere = await invite(server(), other.owner, other.organizationId, freshEmail());
      const expired = await invite(server(), owner, organizationId, freshEmail());
      await expireInvitation(server(), expired.invitation_id);
      const revoked = await invite(server(), owner, organizationId, freshEmail());
      await revokeAs(owner, organizationId, revoked.invitation_id);
      const before = await storedState(server(), organizationId);
      for (const invitationId of [UNKNOWN_ID, elsewhere.invitation_id]) {
        const missing = await revokeAs(owner, organizationId, invitationId);
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
      }
      const malformed = await revokeAs(owner, organizationId, 'not-an-id');
      expect(malformed.status).toBe(400);
      expect(malformed.body.issues).toEqual([{ field: 'invitation_id', problem: expect.any(String) }]);
      for (const invitation of [expired, revoked]) {
        const gone = await revokeAs(owner, organizationId, invitation.invitation_id);
        expect(gone.status).toBe(410);
        expect(gone.body).toEqual({ code: 'GONE', message: expect.any(String) });
      }
      expect(await storedState(server(), organizationId)).toEqual(before);
      expect((await listAs(other.owner, other.organizationId)).body).toEqual([elsewhere]);
    });
  });

  describe("the invitee's list", () => {
    it('lists the open invitations to the caller’s e-mail across organizations, oldest first', async () => {
      const email = freshEmail();
      const first = await organizationWithRoles(server());
      const second = await organizationWithRoles(server());
      // Invited before they have a user record: that is the point of an invitation.
      const a = await invite(server(), first.owner, first.organizationId, email);
      const b = await invite(server(), second.admin, second.organizationId, email.toUpperCase(), 'admin');
      const third = await organizationWithRoles(server());
      const expired = await invite(server(), third.owner, third.organizationId, email);
      await expireInvitation(server(), expired.invitation_id);
      // Another user's invitations are not listed.
      expect((await mine(third.outsider)).body).toEqual([]);

      const id = uniqueId('holder');
      const holder = { id, email, token: await tokenFor(id, { role: 'member' }) };
      const noRecord = await mine(holder);
      expect(noRecord.status).toBe(404);
      expect(noRecord.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
      const registered = await server().call('POST', '/users', {
        token: await tokenFor(id, { role: 'owner' }),
        body: { first_name: 'Late', last_name: 'Comer', email },
      });
      expect(registered.status).toBe(201);
      const list = await server().call('GET', '/api/invitations', { token: holder.token });
      expect(list.status).toBe(200);
      expect(list.body).toEqual([a, b]);
      expect(list.body[1].organization_name).toBe('Test organization');
      await expireInvitation(server(), a.invitation_id);
      expect(idsOf(await mine(holder))).toEqual([b.invitation_id]);
    });
  });

  describe('accepting', () => {
    it('makes the membership with the invited role and records only invitation.accepted', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'joiner');
      const invitation = await invite(server(), owner, organizationId, invitee.email, 'admin');
      const eventsBefore = await eventsOf(server(), organizationId);
      const accepted = await answerAs(invitee, invitation.invitation_id, 'accept', '/api');
      expect(accepted.status).toBe(201);
      expect(accepted.body).toEqual({ organization_id: organizationId, user_id: invitee.id, role: 'admin' });
      const member = await server().call('GET', `/organization-user/${invitee.id}`, {
        token: owner.token,
        organizationId,
      });
      expect(member.body.role).toBe('admin');
      expect((await server().call('GET', `/organizations/${organizationId}`, { token: invitee.token })).body.role).toBe(
        'admin',
      );
      expect((await mine(invitee)).body).toEqual([]);
      expect((await listAs(owner, organizationId)).body).toEqual([]);
      expect((await eventsOf(server(), organizationId)).slice(eventsBefore.length)).toEqual([
        {
          type: 'invitation.accepted',
          actor_user_id: invitee.id,
          subject_user_id: invitee.id,
          data: { invitation_id: invitation.invitation_id, role: 'admin' },
        },
      ]);
    });

    it('makes an owner of the invitee of an owner invitation', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'co-owner');
      const invitation = await invite(server(), owner, organizationId, invitee.email, 'owner');
      expect((await answerAs(invitee, invitation.invitation_id, 'accept')).body.role).toBe('owner');
      // Two owners now: the first may leave.
      const left = await server().call('DELETE', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: owner.id },
      });
      expect(left.status).toBe(200);
    });

    it('answers 409 to an invitee who is a member already, and the invitation stays pending', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'early');
      const invitation = await invite(server(), owner, organizationId, invitee.email, 'admin');
      await addMember(server(), owner, organizationId, invitee, 'member');
      const before = await storedState(server(), organizationId);
      const refused = await answerAs(invitee, invitation.invitation_id, 'accept');
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ code: 'CONFLICT', message: expect.any(String) });
      expect(await storedState(server(), organizationId)).toEqual(before);
      expect(idsOf(await mine(invitee))).toEqual([invitation.invitation_id]);
    });

    it('answers 403 to another caller, 404 to a caller without a user record, changing nothing', async () => {
      const { owner, admin, outsider, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'addressee');
      const invitation = await invite(server(), owner, organizationId, invitee.email);
      const before = await storedState(server(), organizationId);
      for (const answer of ['accept', 'decline'] as const) {
        for (const other of [owner, admin, outsider]) {
          const refused = await answerAs(other, invitation.invitation_id, answer);
          expect(refused.status).toBe(403);
          expect(refused.body).toEqual({ code: 'FORBIDDEN', message: expect.any(String) });
        }
        const ghost = await answerAs({ token: await tokenFor(uniqueId('ghost')) }, invitation.invitation_id, answer);
        expect(ghost.status).toBe(404);
        expect(ghost.body.code).toBe('NOT_FOUND');
      }
      expect(await storedState(server(), organizationId)).toEqual(before);
      expect(idsOf(await mine(invitee))).toEqual([invitation.invitation_id]);
    });

    it('answers 404 to unknown ids, 400 to malformed ids, 401 without a token', async () => {
      const invitee = await registerUser(server(), 'prober');
      for (const answer of ['accept', 'decline'] as const) {
        const missing = await answerAs(invitee, UNKNOWN_ID, answer);
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
        for (const id of ['not-an-id', '01900000-0000-7000-8000-00000000000']) {
          const malformed = await answerAs(invitee, id, answer);
          expect(malformed.status).toBe(400);
          expect(malformed.body.issues).toEqual([{ field: 'invitation_id', problem: expect.any(String) }]);
        }
        expect((await server().call('POST', `/invitations/${UNKNOWN_ID}/${answer}`)).status).toBe(401);
      }
    });

    it('answers 410 to invitations accepted, declined, revoked or expired, changing nothing', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'late-answer');
      const accepted = await invite(server(), owner, organizationId, invitee.email);
      expect((await answerAs(invitee, accepted.invitation_id, 'accept')).status).toBe(201);
      await server().call('DELETE', '/organization-user', {
        token: invitee.token,
        organizationId,
        body: { user_id: invitee.id },
      });
      const declined = await invite(server(), owner, organizationId, invitee.email);
      expect((await answerAs(invitee, declined.invitation_id, 'decline')).status).toBe(200);
      const revoked = await invite(server(), owner, organizationId, invitee.email);
      await revokeAs(owner, organizationId, revoked.invitation_id);
      const expired = await invite(server(), owner, organizationId, invitee.email);
      await expireInvitation(server(), expired.invitation_id);
      const before = await storedState(server(), organizationId);
      for (const invitation of [accepted, declined, revoked, expired]) {
        for (const answer of ['accept', 'decline'] as const) {
          const gone = await answerAs(invitee, invitation.invitation_id, answer);
          expect(gone.status, `${answer} ${invitation.invitation_id}`).toBe(410);
          expect(gone.body).toEqual({ code: 'GONE', message: expect.any(String) });
        }
      }
      expect(await storedState(server(), organizationId)).toEqual(before);
    });
  });

  describe('retrying with an Idempotency-Key', () => {
    it('replays the stored answer of an invitation and of an acceptance instead of 409 and 410', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'retrier');
      const sendInvitation = () =>
        server().call('POST', invitationsPath(organizationId), {
          token: owner.token,
          body: { email: invitee.email, role: 'member' },
          headers: { 'idempotency-key': 'invite-once' },
        });
      const first = await sendInvitation();
      const replayed = await sendInvitation();
      expect(first.status).toBe(201);
      expect(replayed.status).toBe(201);
      expect(replayed.body).toEqual(first.body);
      expect(replayed.headers.get('idempotency-replayed')).toBe('true');
      expect(await listAs(owner, organizationId).then(idsOf)).toEqual([first.body.invitation_id]);

      const sendAcceptance = () =>
        server().call('POST', `/invitations/${first.body.invitation_id}/accept`, {
          token: invitee.token,
          headers: { 'idempotency-key': 'accept-once' },
        });
      const accepted = await sendAcceptance();
      const acceptedAgain = await sendAcceptance();
      expect([accepted.status, acceptedAgain.status]).toEqual([201, 201]);
      expect(acceptedAgain.body).toEqual({ organization_id: organizationId, user_id: invitee.id, role: 'member' });
      expect(acceptedAgain.headers.get('idempotency-replayed')).toBe('true');
      const accepts = (await eventsOf(server(), organizationId)).filter(
        (event) => event.type === 'invitation.accepted',
      );
      expect(accepts).toHaveLength(1);
    });
  });

  describe('declining', () => {
    it('sets the status to declined and records invitation.declined', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const invitee = await registerUser(server(), 'decliner');
      const invitation = await invite(server(), owner, organizationId, invitee.email, 'admin');
      const declined = await answerAs(invitee, invitation.invitation_id, 'decline', '/api');
      expect(declined.status).toBe(200);
      expect(declined.body).toEqual({ message: expect.any(String) });
      expect((await mine(invitee)).body).toEqual([]);
      expect((await listAs(owner, organizationId)).body).toEqual([]);
      expect((await server().call('GET', `/organizations/${organizationId}`, { token: invitee.token })).status).toBe(
        403,
      );
      expect((await eventsOf(server(), organizationId)).at(-1)).toEqual({
        type: 'invitation.declined',
        actor_user_id: invitee.id,
        subject_user_id: invitee.id,
        data: { invitation_id: invitation.invitation_id, email: invitee.email, role: 'admin' },
      });
    });
  });
});
