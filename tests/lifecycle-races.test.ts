/**
 * Lifecycle changes racing each other (behaviour §7 and 8). Two instances of the service share one
 * database, as behind a load balancer, so the racing requests meet in the database and not only in
 * one process's queue; each round fires them at once over HTTP, one to each instance. Whatever
 * order they land in, exactly one of two exclusive changes wins and the rules hold afterwards.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnEachDatabase, type DatabaseTarget, type TestDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { eventsOf, invite, rowsPointingAt, storedState } from './support/lifecycle.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const ROUNDS = 10;

/** Two services on one fresh database of the target: `instance(0)` and `instance(1)`. */
function useTwoInstances(target: DatabaseTarget): (index: 0 | 1) => TestServer {
  let database: TestDatabase | undefined;
  const instances: TestServer[] = [];
  beforeAll(async () => {
    database = await target.create();
    // One after the other: the first applies the migrations.
    for (let count = 0; count < 2; count++) instances.push(await startTestServer(database.url));
  });
  afterAll(async () => {
    for (const instance of instances) await instance.service.close();
    await database?.drop();
  });
  return (index) => {
    const instance = instances[index];
    if (!instance) throw new Error('instances not started');
    return instance;
  };
}

describeOnEachDatabase('lifecycle races across two instances', (target) => {
  const instance = useTwoInstances(target);
  const server = () => instance(0);

  const accept = (on: TestServer, invitee: TestUser, invitationId: string) =>
    on.call('POST', `/invitations/${invitationId}/accept`, { token: invitee.token });

  /** The organization's members by user id, as a member sees them. */
  async function rolesIn(organizationId: string, reader: TestUser): Promise<Record<string, string>> {
    const list = await server().call('GET', '/organization-user', { token: reader.token, organizationId });
    expect(list.status).toBe(200);
    return Object.fromEntries(list.body.map((row: { user_id: string; role: string }) => [row.user_id, row.role]));
  }

  it('an invitation accepted twice at once makes one membership', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owner = await registerUser(server(), 'owner');
      const invitee = await registerUser(server(), 'invitee');
      const organizationId = await createOrganization(server(), owner);
      const invitation = await invite(server(), owner, organizationId, invitee.email);
      const results = await Promise.all([
        accept(instance(0), invitee, invitation.invitation_id),
        accept(instance(1), invitee, invitation.invitation_id),
      ]);
      expect(results.map((result) => result.status).sort()).toEqual([201, 410]);
      expect(await rolesIn(organizationId, owner)).toEqual({ [owner.id]: 'owner', [invitee.id]: 'member' });
      const accepted = (await eventsOf(server(), organizationId)).filter(
        (event) => event.type === 'invitation.accepted',
      );
      expect(accepted).toHaveLength(1);
    }
  });

  it('accepting racing revoking ends in exactly one of the two', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owner = await registerUser(server(), 'owner');
      const invitee = await registerUser(server(), 'invitee');
      const organizationId = await createOrganization(server(), owner);
      const invitation = await invite(server(), owner, organizationId, invitee.email, 'admin');
      const revoke = (on: TestServer) =>
        on.call('DELETE', `/organizations/${organizationId}/invitations/${invitation.invitation_id}`, {
          token: owner.token,
        });
      // Alternate which request is sent first, and to which instance.
      const [accepted, revoked] =
        round % 2 === 0
          ? await Promise.all([accept(instance(0), invitee, invitation.invitation_id), revoke(instance(1))])
          : (
              await Promise.all([revoke(instance(0)), accept(instance(1), invitee, invitation.invitation_id)])
            ).reverse();
      const state = await storedState(server(), organizationId);
      const status = state.invitations[0]!.status;
      const isMember = state.memberships.some((membership) => membership.user_id === invitee.id);
      if (accepted!.status === 201) {
        expect(revoked!.status).toBe(410);
        expect([status, isMember]).toEqual(['accepted', true]);
      } else {
        expect([accepted!.status, revoked!.status]).toEqual([410, 200]);
        expect([status, isMember]).toEqual(['revoked', false]);
      }
      const answers = state.events.filter((event) => /^invitation\.(accepted|revoked)$/.test(event.type));
      expect(answers).toHaveLength(1);
    }
  });

  it('handing ownership over racing the new owner’s removal never leaves the organization without an owner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owner = await registerUser(server(), 'owner');
      const heir = await registerUser(server(), 'heir');
      const witness = await registerUser(server(), 'witness');
      const organizationId = await createOrganization(server(), owner);
      await addMember(server(), owner, organizationId, heir, 'member');
      await addMember(server(), owner, organizationId, witness, 'member');
      // Even rounds: the owner removes the heir; odd rounds: the heir leaves.
      const remover = round % 2 === 0 ? owner : heir;
      const [transferred, removed] = await Promise.all([
        instance((round % 2) as 0 | 1).call('POST', `/organizations/${organizationId}/transfer-ownership`, {
          token: owner.token,
          body: { user_id: heir.id },
        }),
        instance(((round + 1) % 2) as 0 | 1).call('DELETE', '/organization-user', {
          token: remover.token,
          organizationId,
          body: { user_id: heir.id },
        }),
      ]);
      const roles = await rolesIn(organizationId, witness);
      if (transferred.status === 200) {
        // The heir became the only owner: the former owner (now admin) may not remove them (403),
        // nor may they leave as the last owner (409).
        expect(removed.status).toBe(remover === owner ? 403 : 409);
        expect(roles).toEqual({ [owner.id]: 'admin', [heir.id]: 'owner', [witness.id]: 'member' });
      } else {
        expect([transferred.status, removed.status]).toEqual([404, 200]);
        expect(roles).toEqual({ [owner.id]: 'owner', [witness.id]: 'member' });
      }
      expect(Object.values(roles).filter((role) => role === 'owner')).toHaveLength(1);
    }
  });

  it('deleting an organization while members are added and invitations answered leaves no row behind', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owner = await registerUser(server(), 'owner');
      const newcomers = await Promise.all([1, 2, 3].map(() => registerUser(server(), 'newcomer')));
      const invitee = await registerUser(server(), 'invitee');
      const organizationId = await createOrganization(server(), owner);
      const invitation = await invite(server(), owner, organizationId, invitee.email);
      const [deleted, accepted, invited, ...added] = await Promise.all([
        instance(0).call('DELETE', `/organizations/${organizationId}`, { token: owner.token }),
        accept(instance(1), invitee, invitation.invitation_id),
        instance(1).call('POST', `/organizations/${organizationId}/invitations`, {
          token: owner.token,
          body: { email: 'late-invitee@example.com', role: 'member' },
        }),
        ...newcomers.map((newcomer, index) =>
          instance((index % 2) as 0 | 1).call('POST', '/organization-user', {
            token: owner.token,
            organizationId,
            body: { email: newcomer.email, role: 'member' },
          }),
        ),
      ]);
      expect(deleted.status).toBe(200);
      // Each other change either came first (and went with the organization) or found it gone.
      expect([201, 404]).toContain(accepted.status);
      expect([201, 403]).toContain(invited.status);
      for (const add of added) expect([201, 403]).toContain(add.status);
      expect(await rowsPointingAt(server(), organizationId)).toBe(0);
      for (const user of [owner, invitee, ...newcomers]) {
        expect((await server().call('GET', '/organizations', { token: user.token })).body).toEqual([]);
      }
    }
  });
});
