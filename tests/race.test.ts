/** Concurrent requests: the database and the organization row lock keep the invariants. */
import { expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const ROUNDS = 8;

describeOnEachDatabase('races', (target) => {
  const server = useServer(target);

  async function ownerCount(organizationId: string, token: string): Promise<number> {
    const list = await server().call('GET', '/organization-user', { token, organizationId });
    expect(list.status).toBe(200);
    return list.body.filter((member: { role: string }) => member.role === 'owner').length;
  }

  it('two owners demoting or removing each other at once leave one owner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const first = await registerUser(server(), 'first');
      const second = await registerUser(server(), 'second');
      const witness = await registerUser(server(), 'witness');
      const organizationId = await createOrganization(server(), first);
      await addMember(server(), first, organizationId, second, 'owner');
      await addMember(server(), first, organizationId, witness, 'member');
      const method = round % 2 === 0 ? 'PUT' : 'DELETE';
      const results = await Promise.all([
        server().call(method, '/organization-user', {
          token: first.token,
          organizationId,
          body: { user_id: second.id, role: 'member' },
        }),
        server().call(method, '/organization-user', {
          token: second.token,
          organizationId,
          body: { user_id: first.id, role: 'member' },
        }),
      ]);
      const statuses = results.map((result) => result.status).sort();
      // One change wins; the other is refused as last owner (409) or as no longer an owner (403/404).
      expect(statuses[0]).toBe(200);
      expect([403, 404, 409]).toContain(statuses[1]);
      expect(await ownerCount(organizationId, witness.token)).toBe(1);
    }
  });

  it('an admin re-roling a member while an owner promotes them to owner never changes an owner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owner = await registerUser(server(), 'owner');
      const admin = await registerUser(server(), 'admin');
      const target = await registerUser(server(), 'target');
      const organizationId = await createOrganization(server(), owner);
      await addMember(server(), owner, organizationId, admin, 'admin');
      await addMember(server(), owner, organizationId, target, 'member');
      const change = (actor: typeof owner, role: string) =>
        server().call('PUT', '/organization-user', {
          token: actor.token,
          organizationId,
          body: { user_id: target.id, role },
        });
      const [promotion, demotion] = await Promise.all([change(owner, 'owner'), change(admin, 'admin')]);
      expect(promotion.status).toBe(200);
      const read = await server().call('GET', `/organization-user/${target.id}`, {
        token: owner.token,
        organizationId,
      });
      // Either the admin's change came first (200, then the promotion) or the promotion did (403: an
      // admin may not touch an owner). Never the admin's change applied over the new owner.
      expect([200, 403]).toContain(demotion.status);
      expect(read.body.role).toBe('owner');
    }
  });

  it('adding one user from several requests at once makes one membership', async () => {
    const owner = await registerUser(server());
    const newcomer = await registerUser(server());
    const organizationId = await createOrganization(server(), owner);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        server().call('POST', '/organization-user', {
          token: owner.token,
          organizationId,
          body: { email: newcomer.email, role: 'member' },
        }),
      ),
    );
    const statuses = results.map((result) => result.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    const list = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
    expect(list.body.filter((member: { user_id: string }) => member.user_id === newcomer.id)).toHaveLength(1);
  });

  it('registering one e-mail from several callers at once keeps it unique', async () => {
    const email = `${uniqueId('shared')}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 6 }, async (_, index) =>
        server().call('POST', '/users', {
          token: await tokenFor(uniqueId(`racer${index}`), { role: 'owner' }),
          body: { first_name: 'Race', last_name: 'Racer', email },
        }),
      ),
    );
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });
});
