/**
 * Seat limits (behaviour §16): `max_members` refuses with 409 `MEMBER_LIMIT` a new invitation or a
 * membership not from a pending invitation when members plus pending invitations would exceed it,
 * and an acceptance only when the members alone would; exactly at the limit under 20 concurrent
 * requests, on each database (on the Galera cluster: tests/galera.test.ts); lowering it removes
 * nobody.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { setMaxMembers } from './support/limits.ts';
import { memberCount, raceForSeats } from './support/seats.ts';
import { useServer } from './support/server.ts';

describeOnEachDatabase('seat limits', (target) => {
  const server = useServer(target);

  describe('under 20 concurrent requests, exactly at the limit', () => {
    it('adds', () => raceForSeats([server()], 'add'));
    it('invitations', () => raceForSeats([server()], 'invite'));
    it('acceptances of pending invitations', () => raceForSeats([server()], 'accept'));
  });

  describe('one at a time', () => {
    let owner: TestUser;
    let organizationId: string;
    const refusal = { status: 409, code: 'MEMBER_LIMIT' };
    const outcome = (answer: { status: number; body: { code?: string } }) => ({
      status: answer.status,
      code: answer.body?.code,
    });
    const add = async (user: TestUser) =>
      outcome(
        await server().call('POST', '/organization-user', {
          token: owner.token,
          organizationId,
          body: { email: user.email, role: 'member' },
        }),
      );
    const invite = async (user: TestUser) => {
      const invited = await server().call('POST', `/organizations/${organizationId}/invitations`, {
        token: owner.token,
        body: { email: user.email, role: 'member' },
      });
      return { ...outcome(invited), id: invited.body.invitation_id as string };
    };

    beforeAll(async () => {
      owner = await registerUser(server(), 'limit-owner');
      organizationId = await createOrganization(server(), owner);
    });

    it('counts pending invitations against adds and invitations, not against their own acceptance', async () => {
      const [member, invitee, other] = [
        await registerUser(server()),
        await registerUser(server()),
        await registerUser(server()),
      ];
      await addMember(server(), owner, organizationId, member, 'member');
      await setMaxMembers(server(), organizationId, 3);
      const invitation = await invite(invitee);
      expect(invitation.status).toBe(201);
      // Two members and one pending invitation fill the three seats.
      expect(await add(other)).toEqual(refusal);
      expect(await invite(other)).toMatchObject(refusal);
      const accepted = await server().call('POST', `/invitations/${invitation.id}/accept`, { token: invitee.token });
      expect(accepted.status).toBe(201);
      expect(await memberCount(server(), owner, organizationId)).toBe(3);
      expect(await add(other)).toEqual(refusal);
      const message = (
        await server().call('POST', '/organization-user', {
          token: owner.token,
          organizationId,
          body: { email: other.email, role: 'member' },
        })
      ).body.message as string;
      expect(message).toMatch(/3 members and 0 pending invitations, and may have 3 at most/);
    });

    it('frees a seat when a pending invitation is revoked', async () => {
      const organization = await createOrganization(server(), owner);
      const [invitee, other] = [await registerUser(server()), await registerUser(server())];
      await setMaxMembers(server(), organization, 2);
      const invited = await server().call('POST', `/organizations/${organization}/invitations`, {
        token: owner.token,
        body: { email: invitee.email, role: 'member' },
      });
      expect(invited.status).toBe(201);
      const addOther = () =>
        server().call('POST', '/organization-user', {
          token: owner.token,
          organizationId: organization,
          body: { email: other.email, role: 'member' },
        });
      expect((await addOther()).status).toBe(409);
      const revoked = await server().call(
        'DELETE',
        `/organizations/${organization}/invitations/${invited.body.invitation_id}`,
        { token: owner.token },
      );
      expect(revoked.status).toBe(200);
      expect((await addOther()).status).toBe(201);
    });

    it('removes nobody when lowered below the member count, and refuses new seats until there is room', async () => {
      const organization = await createOrganization(server(), owner);
      const members = [await registerUser(server()), await registerUser(server()), await registerUser(server())];
      for (const member of members) await addMember(server(), owner, organization, member, 'member');
      await setMaxMembers(server(), organization, 1);
      expect(await memberCount(server(), owner, organization)).toBe(4);
      const list = await server().call('GET', '/organization-user', {
        token: owner.token,
        organizationId: organization,
      });
      expect(list.body).toHaveLength(4);
      // Members still act: the first one reads the members.
      expect(
        (await server().call('GET', '/organization-user', { token: members[0]!.token, organizationId: organization }))
          .status,
      ).toBe(200);
      const newcomer = await registerUser(server());
      const refused = await server().call('POST', '/organization-user', {
        token: owner.token,
        organizationId: organization,
        body: { email: newcomer.email, role: 'member' },
      });
      expect(outcome(refused)).toEqual(refusal);
      await setMaxMembers(server(), organization, null);
      const added = await server().call('POST', '/organization-user', {
        token: owner.token,
        organizationId: organization,
        body: { email: newcomer.email, role: 'member' },
      });
      expect(added.status).toBe(201);
    });
  });
});
