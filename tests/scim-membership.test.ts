/**
 * A directory user whose membership ended another way than SCIM's (behaviour §18): removed by an
 * owner over REST, left, expired. The directory shows them `removed`; a group push keeps them in
 * the group without a team place and never fails; the identity provider's next change of them makes
 * them a member again, with their groups' team places, within the seat limit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { setMaxMembers } from './support/limits.ts';
import { expectScimError, GROUP_SCHEMA, oktaUser, organizationKey, patch, scimClient } from './support/scim.ts';
import { useServer } from './support/server.ts';

/** Long enough for the change that sets an expiry to arrive before it, even on a loaded machine. */
const SHORTLY_MS = 3_000;

describeOnEachDatabase('A directory user whose membership ended another way (behaviour §18)', (target) => {
  // No sweep while the tests run: an expired membership stays stored, as it does until a sweep.
  beforeAll(() => {
    process.env.EXPIRY_SWEEP_INTERVAL_MS = String(3_600_000);
  });
  const server = useServer(target);
  beforeAll(() => {
    delete process.env.EXPIRY_SWEEP_INTERVAL_MS;
  });

  /** An organization provisioned by its own key. */
  async function organization() {
    const owner = await registerUser(server(), 'scim-ended-owner');
    const organizationId = await createOrganization(server(), owner);
    const scim = scimClient(server(), await organizationKey(server(), owner, organizationId));
    const call = (actor: TestUser, method: string, path: string, body?: unknown) =>
      server().call(method, path, { token: actor.token, organizationId, body });
    const isMember = async (person: TestUser) =>
      (await call(owner, 'GET', `/organization-user/${person.id}`)).status === 200;
    const directoryUser = async (id: string) => {
      const users = await call(owner, 'GET', `/organizations/${organizationId}/directory/users`);
      expect(users.status, JSON.stringify(users.body)).toBe(200);
      return (users.body as Array<{ directory_user_id: string }>).find((user) => user.directory_user_id === id);
    };
    const teamMembers = async (teamId: string) => {
      const members = await call(owner, 'GET', `/organizations/${organizationId}/teams/${teamId}/members`);
      expect(members.status, JSON.stringify(members.body)).toBe(200);
      return (members.body as Array<{ user_id: string }>).map((member) => member.user_id);
    };
    /** A person with a record, provisioned: a member at once. */
    const provisioned = async () => {
      const person = await registerUser(server(), 'scim-ended');
      const created = await scim.send('POST', '/Users', oktaUser(person.email));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(await isMember(person)).toBe(true);
      return { person, id: created.body.id as string };
    };
    const group = async (members: string[]) => {
      const created = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: uniqueId('Ended'),
        members: members.map((value) => ({ value })),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    return { owner, organizationId, scim, call, isMember, directoryUser, teamMembers, provisioned, group };
  }

  let org: Awaited<ReturnType<typeof organization>>;
  beforeAll(async () => {
    org = await organization();
  });

  /** A way a membership ends, and the identity provider's change of the directory user that follows it. */
  interface Ending {
    end: (person: TestUser) => Promise<void>;
    change: (id: string, email: string) => { method: 'PUT' | 'PATCH'; body: object };
  }
  const endings: Array<[string, string, Ending]> = [
    [
      'the owner removes them over REST',
      'a PATCH that activates them',
      {
        end: async (person) => {
          const removed = await org.call(org.owner, 'DELETE', '/organization-user', { user_id: person.id });
          expect(removed.status, JSON.stringify(removed.body)).toBe(200);
        },
        change: () => ({ method: 'PATCH', body: patch({ op: 'replace', path: 'active', value: true }) }),
      },
    ],
    [
      'they leave',
      'a PUT',
      {
        end: async (person) => {
          const left = await org.call(person, 'DELETE', '/organization-user', { user_id: person.id });
          expect(left.status, JSON.stringify(left.body)).toBe(200);
        },
        change: (id, email) => ({ method: 'PUT', body: { ...oktaUser(email, 'Ann', 'Again'), id } }),
      },
    ],
    [
      'their membership expires',
      'a PATCH of their displayName alone',
      {
        end: async (person) => {
          const expiresAt = new Date(Date.now() + SHORTLY_MS).toISOString();
          const set = await org.call(org.owner, 'PUT', '/organization-user', {
            user_id: person.id,
            role: 'member',
            expires_at: expiresAt,
          });
          expect(set.status, JSON.stringify(set.body)).toBe(200);
          await sleep(Date.parse(expiresAt) + 1 - Date.now());
        },
        change: () => ({ method: 'PATCH', body: patch({ op: 'replace', path: 'displayName', value: 'Ann Again' }) }),
      },
    ],
  ];

  it.each(endings)(
    '%s: shown removed, kept in groups without a team place, a member again after %s',
    async (_, __, { end, change }) => {
      const { person, id } = await org.provisioned();
      const before = await org.group([id]);
      await end(person);
      expect(await org.isMember(person)).toBe(false);
      expect(await org.directoryUser(id)).toMatchObject({ active: true, user_id: person.id, state: 'removed' });

      // Group pushes keep the directory user in the group: the team gets them when they are a member.
      const created = await org.group([id]);
      const patched = await org.group([]);
      const add = patch({ op: 'add', path: 'members', value: [{ value: id }] });
      expect((await org.scim.send('PATCH', `/Groups/${patched}`, add)).status).toBe(204);
      for (const teamId of [before, created, patched]) {
        expect(await org.teamMembers(teamId)).toEqual([]);
        const members = (await org.scim.send('GET', `/Groups/${teamId}`)).body.members as Array<{ value: string }>;
        expect(members.map((member) => member.value)).toEqual([id]);
      }

      const { method, body } = change(id, person.email);
      const again = await org.scim.send(method, `/Users/${id}`, body);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(await org.isMember(person)).toBe(true);
      expect(await org.directoryUser(id)).toMatchObject({ user_id: person.id, state: 'member' });
      for (const teamId of [before, created, patched]) expect(await org.teamMembers(teamId)).toEqual([person.id]);
    },
  );

  describe('within the seat limit', () => {
    it('refuses to make them a member again when the organization is full: 409 MEMBER_LIMIT, nothing changed', async () => {
      const limited = await organization();
      await setMaxMembers(server(), limited.organizationId, 2);
      const { person, id } = await limited.provisioned();
      expect((await limited.call(limited.owner, 'DELETE', '/organization-user', { user_id: person.id })).status).toBe(
        200,
      );
      await addMember(
        server(),
        limited.owner,
        limited.organizationId,
        await registerUser(server(), 'seated'),
        'member',
      );
      const refused = await limited.scim.send(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'replace', value: { active: true, displayName: 'Not now' } }),
      );
      expectScimError(refused, 409);
      expect(refused.body.detail).toMatch(/^MEMBER_LIMIT/);
      expect(await limited.isMember(person)).toBe(false);
      expect(await limited.directoryUser(id)).toMatchObject({ user_id: person.id, state: 'removed' });
      expect((await limited.scim.send('GET', `/Users/${id}`)).body.displayName).toBe('Ann Lee');
    });
  });

  it('shows a member again whom an owner added back, and gives them the team places of group pushes', async () => {
    const { person, id } = await org.provisioned();
    expect((await org.call(org.owner, 'DELETE', '/organization-user', { user_id: person.id })).status).toBe(200);
    await addMember(server(), org.owner, org.organizationId, person, 'member');
    expect(await org.directoryUser(id)).toMatchObject({ user_id: person.id, state: 'member' });
    expect(await org.teamMembers(await org.group([id]))).toEqual([person.id]);
  });
});
