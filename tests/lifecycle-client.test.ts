/**
 * The organization lifecycle and invitations through the typed client (client/src createClient)
 * over tRPC, on both databases: every row of behaviour §8 and leaving, with the same statuses and
 * codes as REST, and types inferred from the server's router.
 */
import { expect, expectTypeOf, it } from 'vitest';
import { createClient, type RouterOutputs } from '../client/src/index.ts';
import type { Role } from '../shared/fields.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { eventsOf, expireInvitation, organizationWithRoles, rowsPointingAt } from './support/lifecycle.ts';
import { rejection } from './support/api-errors.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

describeOnEachDatabase('lifecycle through the typed client', (target) => {
  const server = useServer(target);

  const clientOf = (user: { token: string }, organizationId?: string) =>
    createClient({ url: server().baseUrl, token: user.token, organizationId });

  /** An organization with one member of each role, and their clients. */
  async function setup() {
    const roles = await organizationWithRoles(server());
    return {
      ...roles,
      asOwner: clientOf(roles.owner),
      asAdmin: clientOf(roles.admin),
      asMember: clientOf(roles.member),
      asOutsider: clientOf(roles.outsider),
    };
  }

  it('reads an organization (any member; 403 outsiders and unknown ids; 400 malformed ids)', async () => {
    const { organizationId, asMember, asOutsider, asOwner } = await setup();
    const read = await asMember.organizations.get.query({ organization_id: organizationId });
    expectTypeOf(read).toEqualTypeOf<RouterOutputs['organizations']['get']>();
    expectTypeOf(read.role).toEqualTypeOf<Role>();
    expect(read).toMatchObject({ organization_id: organizationId, role: 'member', member_count: 3 });
    expect(await rejection(asOutsider.organizations.get.query({ organization_id: organizationId }))).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      path: 'organizations.get',
    });
    expect(await rejection(asOwner.organizations.get.query({ organization_id: UNKNOWN_ID }))).toMatchObject({
      status: 403,
    });
    const malformed = await rejection(asOwner.organizations.get.query({ organization_id: 'nope' }));
    expect(malformed).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(malformed.issues).toEqual([{ field: 'organization_id', problem: expect.any(String) }]);
  });

  it('updates an organization (owner or admin; 403 members; 400 bad input)', async () => {
    const { organizationId, asAdmin, asMember, asOwner } = await setup();
    const updated = await asAdmin.organizations.update.mutate({
      organization_id: organizationId,
      organization_name: 'Typed rename',
    });
    expect(updated).toMatchObject({ organization_name: 'Typed rename', role: 'admin' });
    expect((await asOwner.organizations.get.query({ organization_id: organizationId })).organization_name).toBe(
      'Typed rename',
    );
    expect(
      await rejection(
        asMember.organizations.update.mutate({ organization_id: organizationId, organization_name: 'X' }),
      ),
    ).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const empty = await rejection(asOwner.organizations.update.mutate({ organization_id: organizationId }));
    expect(empty).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(
      await rejection(
        asOwner.organizations.update.mutate({
          organization_id: organizationId,
          organization_description: 'd'.repeat(1001),
        }),
      ),
    ).toMatchObject({ status: 400 });
  });

  it('hands ownership over (owner; 400 to oneself, 404 non-members, 403 others)', async () => {
    const { owner, member, outsider, organizationId, asAdmin, asOwner } = await setup();
    const forSelf = await rejection(
      asOwner.organizations.transferOwnership.mutate({ organization_id: organizationId, user_id: owner.id }),
    );
    expect(forSelf).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(
      await rejection(
        asOwner.organizations.transferOwnership.mutate({ organization_id: organizationId, user_id: outsider.id }),
      ),
    ).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(
      await rejection(
        asAdmin.organizations.transferOwnership.mutate({ organization_id: organizationId, user_id: member.id }),
      ),
    ).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const handed = await asOwner.organizations.transferOwnership.mutate({
      organization_id: organizationId,
      user_id: member.id,
    });
    expect(handed).toEqual({ message: expect.any(String) });
    expect((await clientOf(member).organizations.get.query({ organization_id: organizationId })).role).toBe('owner');
    expect((await asOwner.organizations.get.query({ organization_id: organizationId })).role).toBe('admin');
  });

  it('deletes an organization (owner; 403 admins), its memberships and invitations with it', async () => {
    const { organizationId, asAdmin, asOwner, asMember } = await setup();
    await asOwner.invitations.create.mutate({
      organization_id: organizationId,
      email: 'x@example.com',
      role: 'member',
    });
    expect(await rejection(asAdmin.organizations.remove.mutate({ organization_id: organizationId }))).toMatchObject({
      status: 403,
    });
    expect(await asOwner.organizations.remove.mutate({ organization_id: organizationId })).toEqual({
      message: expect.any(String),
    });
    expect(await rowsPointingAt(server(), organizationId)).toBe(0);
    expect(await rejection(asMember.organizations.get.query({ organization_id: organizationId }))).toMatchObject({
      status: 403,
    });
  });

  it("creates, lists and revokes the organization's invitations with the contract's refusals", async () => {
    const { organizationId, asAdmin, asMember, asOwner } = await setup();
    const email = `${uniqueId('typed')}@example.com`;
    const invitation = await asAdmin.invitations.create.mutate({
      organization_id: organizationId,
      email: email.toUpperCase(),
      role: 'member',
    });
    expectTypeOf(invitation).toEqualTypeOf<RouterOutputs['invitations']['create']>();
    expectTypeOf(invitation.status).toEqualTypeOf<'pending' | 'accepted' | 'declined' | 'revoked'>();
    expect(invitation).toMatchObject({ email, role: 'member', status: 'pending', organization_id: organizationId });
    expect(
      await rejection(asAdmin.invitations.create.mutate({ organization_id: organizationId, email, role: 'member' })),
    ).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(
      await rejection(
        asAdmin.invitations.create.mutate({
          organization_id: organizationId,
          email: 'boss@example.com',
          role: 'owner',
        }),
      ),
    ).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const ownerInvitation = await asOwner.invitations.create.mutate({
      organization_id: organizationId,
      email: `${uniqueId('typed-owner')}@example.com`,
      role: 'owner',
    });

    expect(await asAdmin.invitations.list.query({ organization_id: organizationId })).toEqual([
      invitation,
      ownerInvitation,
    ]);
    expect(await rejection(asMember.invitations.list.query({ organization_id: organizationId }))).toMatchObject({
      status: 403,
    });

    const revoke = (client: typeof asOwner, invitationId: string) =>
      client.invitations.revoke.mutate({ organization_id: organizationId, invitation_id: invitationId });
    expect(await rejection(revoke(asAdmin, ownerInvitation.invitation_id))).toMatchObject({ status: 403 });
    expect(await rejection(revoke(asMember, invitation.invitation_id))).toMatchObject({ status: 403 });
    expect(await rejection(revoke(asOwner, UNKNOWN_ID))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await rejection(revoke(asOwner, 'not-an-id'))).toMatchObject({ status: 400 });
    expect(await revoke(asAdmin, invitation.invitation_id)).toEqual({ message: expect.any(String) });
    expect(await rejection(revoke(asOwner, invitation.invitation_id))).toMatchObject({ status: 410, code: 'GONE' });
    expect(await asOwner.invitations.list.query({ organization_id: organizationId })).toEqual([ownerInvitation]);
  });

  it("lists, accepts and declines the invitee's invitations with the contract's refusals", async () => {
    const { owner, organizationId, asOwner, asOutsider } = await setup();
    const id = uniqueId('typed-invitee');
    const email = `${id}@example.com`;
    const invitee = { id, email, token: await tokenFor(id, { role: 'owner' }) };
    const asInvitee = clientOf(invitee);
    const create = (role: Role = 'member') =>
      asOwner.invitations.create.mutate({ organization_id: organizationId, email, role });

    const toAccept = await create('admin');
    expect(await rejection(asInvitee.invitations.mine.query())).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await asInvitee.users.create.mutate({ first_name: 'Typed', last_name: 'Invitee', email });
    expect(await asInvitee.invitations.mine.query()).toEqual([toAccept]);

    expect(
      await rejection(asOutsider.invitations.accept.mutate({ invitation_id: toAccept.invitation_id })),
    ).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(await rejection(asInvitee.invitations.accept.mutate({ invitation_id: UNKNOWN_ID }))).toMatchObject({
      status: 404,
    });
    expect(await rejection(asInvitee.invitations.accept.mutate({ invitation_id: 'nope' }))).toMatchObject({
      status: 400,
    });
    const membership = await asInvitee.invitations.accept.mutate({ invitation_id: toAccept.invitation_id });
    expectTypeOf(membership).toEqualTypeOf<RouterOutputs['invitations']['accept']>();
    expect(membership).toEqual({ organization_id: organizationId, user_id: id, role: 'admin' });
    expect(
      await rejection(asInvitee.invitations.accept.mutate({ invitation_id: toAccept.invitation_id })),
    ).toMatchObject({ status: 410, code: 'GONE' });
    expect((await eventsOf(server(), organizationId)).at(-1)?.type).toBe('invitation.accepted');

    await clientOf(invitee, organizationId).members.remove.mutate({ user_id: id });
    const expired = await create();
    await expireInvitation(server(), expired.invitation_id);
    expect(await asInvitee.invitations.mine.query()).toEqual([]);
    for (const answer of [asInvitee.invitations.accept, asInvitee.invitations.decline]) {
      expect(await rejection(answer.mutate({ invitation_id: expired.invitation_id }))).toMatchObject({
        status: 410,
        code: 'GONE',
      });
    }

    // Invited again, then added directly: accepting is 409, and the invitation stays pending (it
    // may still be declined).
    const whileMember = await create();
    await clientOf(owner, organizationId).members.add.mutate({ email, role: 'member' });
    expect(
      await rejection(asInvitee.invitations.accept.mutate({ invitation_id: whileMember.invitation_id })),
    ).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(await asInvitee.invitations.mine.query()).toEqual([whileMember]);
    expect(
      await rejection(clientOf(owner).invitations.decline.mutate({ invitation_id: whileMember.invitation_id })),
    ).toMatchObject({ status: 403 });
    expect(await asInvitee.invitations.decline.mutate({ invitation_id: whileMember.invitation_id })).toEqual({
      message: expect.any(String),
    });
    expect(
      await rejection(asInvitee.invitations.decline.mutate({ invitation_id: whileMember.invitation_id })),
    ).toMatchObject({ status: 410 });
  });

  it('lets a member leave through members.remove with their own user_id; the last owner gets 409', async () => {
    const { owner, member, organizationId } = await setup();
    const leave = (user: TestUser) => clientOf(user, organizationId).members.remove.mutate({ user_id: user.id });
    expect(await leave(member)).toEqual({ message: expect.any(String) });
    expect((await eventsOf(server(), organizationId)).at(-1)).toMatchObject({
      type: 'member.left',
      actor_user_id: member.id,
      subject_user_id: member.id,
    });
    expect(await rejection(leave(member))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(await rejection(leave(owner))).toMatchObject({ status: 409, code: 'CONFLICT' });
    const stranger = await registerUser(server(), 'stranger');
    expect(await rejection(leave(stranger))).toMatchObject({ status: 403 });
  });

  it('rejects wrong input types at compile time', () => {
    const api = createClient({ url: 'http://127.0.0.1:1', token: 'unused' });
    const compileOnly = () => {
      // @ts-expect-error: organization_id is required
      void api.organizations.get.query({});
      // @ts-expect-error: a role is a name
      void api.invitations.create.mutate({ organization_id: UNKNOWN_ID, email: 'a@example.com', role: 42 });
      // @ts-expect-error: invitation_id is required
      void api.invitations.accept.mutate({});
      // @ts-expect-error: user_id is a string
      void api.organizations.transferOwnership.mutate({ organization_id: UNKNOWN_ID, user_id: 42 });
    };
    expect(compileOnly).toBeTypeOf('function');
  });
});
