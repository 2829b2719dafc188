/**
 * The service on a 3-node MariaDB Galera cluster, one instance per node, as an operator scales out
 * past one MariaDB server: the rules that hold on one server must hold across nodes, where
 * `SELECT … FOR UPDATE` locks only on the local node and Galera detects conflicts only between
 * rows that transactions write (certification at commit).
 *
 * Only the instance on node 1 migrates at start, and the others start after it: the migration lock
 * (GET_LOCK) is local to a node, so instances migrating at once on two nodes both run the DDL and
 * one of them fails to start ("Table … already exists").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../server/platform/database/schema.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { GaleraCluster } from './support/galera.ts';
import { failWithout, galeraMissing } from './support/needs.ts';
import { createKey } from './support/keys.ts';
import { pooled } from './support/pooled.ts';
import { CONTENDERS, raceForSeats } from './support/seats.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { teamMembersWithoutMembership } from './support/teams.ts';

/** Members removed from the organization through one node while added to a team through another. */
const RACING_MEMBERS = 30;
/** Rounds per race, as in the issue that found the cross-node failures. */
const ROUNDS = 60;
/** Set-up requests in flight at once (all through one instance, so they never conflict). */
const SETUP_CONCURRENCY = 6;
const RACE_TIMEOUT_MS = 300_000;

interface Member {
  user_id: string;
  role: string;
}

describe('one instance per node of a 3-node Galera cluster', () => {
  failWithout(galeraMissing());
  const cluster = new GaleraCluster();
  const instances: TestServer[] = [];
  /** By node: node1 … node3. */
  const node = (index: number) => instances[index]!;

  beforeAll(async () => {
    await cluster.start();
    console.info(`Galera cluster of 3 nodes up in ${cluster.startupMs} ms`);
    const database = await cluster.createDatabase();
    instances.push(await startTestServer(cluster.url(0, database), { MIGRATE_ON_START: 'true' }));
    for (const index of [1, 2]) {
      instances.push(await startTestServer(cluster.url(index, database), { MIGRATE_ON_START: 'false' }));
    }
  }, RACE_TIMEOUT_MS);
  afterAll(async () => {
    for (const instance of instances) await instance.service.close();
    await cluster.destroy();
  }, 60_000);

  const members = async (server: TestServer, reader: TestUser, organizationId: string): Promise<Member[]> => {
    const list = await server.call('GET', '/organization-user', { token: reader.token, organizationId });
    expect(list.status).toBe(200);
    return list.body;
  };

  /** Organizations with two owners and a member who watches, all made through node 1's instance. */
  async function organizationsWithTwoOwners(count: number) {
    return pooled(count, SETUP_CONCURRENCY, async () => {
      const first = await registerUser(node(0), 'first');
      const second = await registerUser(node(0), 'second');
      const witness = await registerUser(node(0), 'witness');
      const organizationId = await createOrganization(node(0), first);
      await addMember(node(0), first, organizationId, second, 'owner');
      await addMember(node(0), first, organizationId, witness, 'member');
      return { first, second, witness, organizationId };
    });
  }

  for (const method of ['PUT', 'DELETE'] as const) {
    it(
      `two owners ${method === 'PUT' ? 'demoting' : 'removing'} each other at once through two nodes leave one owner, and no 5xx`,
      async () => {
        const organizations = await organizationsWithTwoOwners(ROUNDS);
        const outcomes = [];
        for (const { first, second, organizationId } of organizations) {
          const body = (target: TestUser) =>
            method === 'PUT' ? { user_id: target.id, role: 'member' } : { user_id: target.id };
          const statuses = await Promise.all([
            node(0).call(method, '/organization-user', { token: first.token, organizationId, body: body(second) }),
            node(1).call(method, '/organization-user', { token: second.token, organizationId, body: body(first) }),
          ]);
          outcomes.push(statuses.map((response) => response.status).sort());
        }
        // Read through the third node: the state the whole cluster agreed on.
        const owners = await pooled(ROUNDS, SETUP_CONCURRENCY, async (index) => {
          const { witness, organizationId } = organizations[index]!;
          return (await members(node(2), witness, organizationId)).filter((member) => member.role === 'owner').length;
        });
        // One change wins (200); the other is refused: its caller is no longer an owner (403), no
        // longer a member (404 for a removed one), or the target is the last owner (409).
        const summary = {
          rounds: ROUNDS,
          organizationsWithoutOwner: owners.filter((count) => count === 0).length,
          organizationsWithSeveralOwners: owners.filter((count) => count > 1).length,
          serverErrors: outcomes.flat().filter((status) => status >= 500).length,
          roundsNotOneWinnerOneRefusal: outcomes.filter(
            ([winner, loser]) => winner !== 200 || ![403, 404, 409].includes(loser!),
          ).length,
        };
        expect(summary).toEqual({
          rounds: ROUNDS,
          organizationsWithoutOwner: 0,
          organizationsWithSeveralOwners: 0,
          serverErrors: 0,
          roundsNotOneWinnerOneRefusal: 0,
        });
      },
      RACE_TIMEOUT_MS,
    );
  }

  it(
    'one change sent with one Idempotency-Key through two nodes at once is carried out once',
    async () => {
      const owners = await pooled(ROUNDS, SETUP_CONCURRENCY, () => registerUser(node(0), 'keyholder'));
      const outcomes = [];
      for (const [index, owner] of owners.entries()) {
        const create = (server: TestServer) =>
          server.call('POST', '/organizations', {
            token: owner.token,
            body: { organization_name: `Once ${index}`, organization_description: '' },
            headers: { 'idempotency-key': `galera-${index}` },
          });
        const answers = await Promise.all([create(node(0)), create(node(1))]);
        // One carried out (201), the other a replay of it (201, marked) or told it is still running (409).
        outcomes.push(
          answers
            .map((answer) => `${answer.status}${answer.headers.get('idempotency-replayed') ? ' replayed' : ''}`)
            .sort(),
        );
      }
      const organizations = await pooled(ROUNDS, SETUP_CONCURRENCY, async (index) => {
        const list = await node(2).call('GET', '/organizations', { token: owners[index]!.token });
        return list.body.length;
      });
      expect({
        serverErrors: outcomes.flat().filter((status) => status.startsWith('5')).length,
        roundsNotCarriedOutOnce: outcomes.filter(
          ([first, second]) => first !== '201' || (second !== '201 replayed' && second !== '409'),
        ).length,
        ownersWithoutExactlyOneOrganization: organizations.filter((count) => count !== 1).length,
      }).toEqual({ serverErrors: 0, roundsNotCarriedOutOnce: 0, ownersWithoutExactlyOneOrganization: 0 });
    },
    RACE_TIMEOUT_MS,
  );

  it(
    'adding one user through two nodes at once makes one membership: one 201, one 409',
    async () => {
      const rounds = await pooled(ROUNDS, SETUP_CONCURRENCY, async () => {
        const owner = await registerUser(node(0), 'owner');
        const newcomer = await registerUser(node(0), 'newcomer');
        const organizationId = await createOrganization(node(0), owner);
        return { owner, newcomer, organizationId };
      });
      const outcomes = [];
      for (const { owner, newcomer, organizationId } of rounds) {
        const add = (server: TestServer) =>
          server.call('POST', '/organization-user', {
            token: owner.token,
            organizationId,
            body: { email: newcomer.email, role: 'member' },
          });
        const statuses = await Promise.all([add(node(0)), add(node(1))]);
        outcomes.push(statuses.map((response) => response.status).sort());
      }
      const memberships = await pooled(ROUNDS, SETUP_CONCURRENCY, async (index) => {
        const { owner, newcomer, organizationId } = rounds[index]!;
        return (await members(node(2), owner, organizationId)).filter((member) => member.user_id === newcomer.id)
          .length;
      });
      expect({
        serverErrors: outcomes.flat().filter((status) => status >= 500).length,
        roundsNotOneCreatedOneConflict: outcomes.filter(([created, conflict]) => created !== 201 || conflict !== 409)
          .length,
        organizationsWithoutExactlyOneMembership: memberships.filter((count) => count !== 1).length,
      }).toEqual({ serverErrors: 0, roundsNotOneCreatedOneConflict: 0, organizationsWithoutExactlyOneMembership: 0 });
    },
    RACE_TIMEOUT_MS,
  );

  it(
    'a member list read through another node right after a change shows the change',
    async () => {
      const owner = await registerUser(node(0), 'owner');
      const organizationId = await createOrganization(node(0), owner);
      const newcomers = await pooled(ROUNDS, SETUP_CONCURRENCY, () => registerUser(node(0), 'newcomer'));
      const roleOf = async (userId: string) =>
        (await members(node(1), owner, organizationId)).find((member) => member.user_id === userId)?.role;
      /** Makes a change through node 1's instance, then reads the member's role through node 2's. */
      const changeThenRead = async (method: string, body: object, status: number, userId: string) => {
        expect(
          (await node(0).call(method, '/organization-user', { token: owner.token, organizationId, body })).status,
        ).toBe(status);
        return roleOf(userId);
      };
      const stale = { afterAdd: 0, afterRoleChange: 0, afterRemoval: 0 };
      for (const newcomer of newcomers) {
        if ((await changeThenRead('POST', { email: newcomer.email, role: 'member' }, 201, newcomer.id)) !== 'member') {
          stale.afterAdd++;
        }
        if ((await changeThenRead('PUT', { user_id: newcomer.id, role: 'admin' }, 200, newcomer.id)) !== 'admin') {
          stale.afterRoleChange++;
        }
        if ((await changeThenRead('DELETE', { user_id: newcomer.id }, 200, newcomer.id)) !== undefined) {
          stale.afterRemoval++;
        }
      }
      expect(stale).toEqual({ afterAdd: 0, afterRoleChange: 0, afterRemoval: 0 });
    },
    RACE_TIMEOUT_MS,
  );

  it(
    'a permission check answered through another node right after a role change sees the change (behaviour §11)',
    async () => {
      const owner = await registerUser(node(0), 'owner');
      const organizationId = await createOrganization(node(0), owner);
      const member = await registerUser(node(0), 'member');
      await addMember(node(0), owner, organizationId, member, 'member');
      const rolesPath = `/organizations/${organizationId}/roles`;
      const created = await node(0).call('POST', rolesPath, {
        token: owner.token,
        body: { role: 'inviter', permissions: ['organization:read', 'invitations:create'] },
      });
      expect(created.status).toBe(201);
      /** Whether `member` may invite, asked through node 3's instance. */
      const mayInvite = async () => {
        const answer = await node(2).call('POST', `/organizations/${organizationId}/permissions/check`, {
          token: member.token,
          body: { permissions: ['invitations:create'] },
        });
        expect(answer.status).toBe(200);
        return answer.body.allowed as boolean;
      };
      const change = async (method: string, path: string, body: object, headers = {}) =>
        expect((await node(0).call(method, path, { token: owner.token, body, ...headers })).status).toBe(200);
      const stale: string[] = [];
      for (let round = 0; round < ROUNDS / 3; round++) {
        // The member's role changes, then what the member's role holds changes.
        await change('PUT', '/organization-user', { user_id: member.id, role: 'inviter' }, { organizationId });
        if (!(await mayInvite())) stale.push(`${round}: role given`);
        await change('PUT', `${rolesPath}/inviter`, { permissions: ['organization:read'] });
        if (await mayInvite()) stale.push(`${round}: permission taken from the role`);
        await change('PUT', `${rolesPath}/inviter`, { permissions: ['organization:read', 'invitations:create'] });
        if (!(await mayInvite())) stale.push(`${round}: permission given to the role`);
        await change('PUT', '/organization-user', { user_id: member.id, role: 'member' }, { organizationId });
        if (await mayInvite()) stale.push(`${round}: role taken`);
      }
      expect(stale).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );

  it(
    'removals from the organization through one node racing adds to a team through another leave no team member who is not a member (behaviour §12)',
    async () => {
      const owner = await registerUser(node(0), 'owner');
      const organizationId = await createOrganization(node(0), owner);
      const team = await node(0).call('POST', `/organizations/${organizationId}/teams`, {
        token: owner.token,
        body: { name: 'Racers' },
      });
      expect(team.status, JSON.stringify(team.body)).toBe(201);
      const teamMembersPath = `/organizations/${organizationId}/teams/${team.body.team_id}/members`;
      const members = await pooled(RACING_MEMBERS, SETUP_CONCURRENCY, async () => {
        const member = await registerUser(node(0), 'racer');
        await addMember(node(0), owner, organizationId, member, 'member');
        return member;
      });
      // One member at a time, so that each pair starts together rather than queueing behind the others.
      const answers = [];
      for (const [index, member] of members.entries()) {
        const remove = () =>
          node(0).call('DELETE', '/organization-user', {
            token: owner.token,
            organizationId,
            body: { user_id: member.id },
          });
        const add = () => node(1).call('POST', teamMembersPath, { token: owner.token, body: { user_id: member.id } });
        // Half the pairs are sent add first, so that the race is won both ways.
        const [removal, addition] =
          index % 2 === 0
            ? await Promise.all([remove(), add()])
            : await Promise.all([add(), remove()]).then(([added, removed]) => [removed, added] as const);
        answers.push({ removal: removal.status, add: addition.status });
      }
      // The add is refused (404) or commits first and the removal takes it with the membership.
      expect(answers.filter((answer) => answer.removal !== 200 || ![201, 404].includes(answer.add))).toEqual([]);
      for (const [index, instance] of instances.entries()) {
        // Read straight from this node's database (the instance's sessions wait for the cluster's
        // writes), then through its instance.
        const orphans = await teamMembersWithoutMembership(instance.service.orm.em.getKysely<Database>());
        expect(orphans, `node${index + 1}`).toEqual([]);
        const teamMembers = await instance.call('GET', teamMembersPath, { token: owner.token });
        expect(teamMembers.status, `node${index + 1}`).toBe(200);
        expect(teamMembers.body, `node${index + 1}`).toEqual([]);
      }
    },
    RACE_TIMEOUT_MS,
  );

  it(
    'an account deleted through one node while it is added through the others: no add lost silently, no 5xx (behaviour §15)',
    async () => {
      // Each add is made before the deletion, which removes it with its member.left (or, made after
      // it, answered 404), whichever node made it: the deletion's lock of the user's row is local to
      // its node, and certification orders it with the adds of the others.
      const rounds = await pooled(ROUNDS, SETUP_CONCURRENCY, async () => {
        const owner = await registerUser(node(0), 'owner');
        const person = await registerUser(node(0), 'deleting');
        const organizationIds = [];
        for (let index = 0; index < 4; index++) organizationIds.push(await createOrganization(node(0), owner));
        return { owner, person, organizationIds };
      });
      const problems: string[] = [];
      for (const [round, { owner, person, organizationIds }] of rounds.entries()) {
        const [deleted, ...added] = await Promise.all([
          node(0).call('DELETE', '/users', { token: person.token }),
          ...organizationIds.map((organizationId, index) =>
            node(1 + (index % 2)).call('POST', '/organization-user', {
              token: owner.token,
              organizationId,
              body: { email: person.email, role: 'member' },
            }),
          ),
        ]);
        for (const answer of [deleted, ...added]) {
          if (answer.status >= 500) problems.push(`${round}: answered ${answer.status} ${JSON.stringify(answer.body)}`);
        }
        for (const [index, organizationId] of organizationIds.entries()) {
          // Read through the third node: the state the whole cluster agreed on.
          const listed = await members(node(2), owner, organizationId);
          const organization = await node(2).call('GET', `/organizations/${organizationId}`, { token: owner.token });
          const events = await node(2).call('GET', `/organizations/${organizationId}/events`, { token: owner.token });
          const ofPerson = (events.body as Array<{ type: string; subject_user_id: string }>)
            .filter((event) => event.subject_user_id === person.id)
            .map((event) => event.type);
          const member = listed.some((entry) => entry.user_id === person.id);
          if (organization.body.member_count !== listed.length) {
            problems.push(`${round}: member_count ${organization.body.member_count}, ${listed.length} listed`);
          }
          const eventsSay = ofPerson.at(-1) === 'member.added';
          if (member !== eventsSay) problems.push(`${round}: a member ${member}, events ${ofPerson.join(' ')}`);
          if (deleted.status === 200 && member) problems.push(`${round}: a member after the deletion`);
          if (added[index]!.status === 201 && deleted.status === 200 && !ofPerson.includes('member.left')) {
            problems.push(`${round}: added, deleted, no member.left`);
          }
        }
      }
      expect(problems).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );

  describe('seat limits with requests spread over the three nodes, exactly at the limit (behaviour §16)', () => {
    for (const way of ['add', 'invite', 'accept'] as const) {
      it(`${CONTENDERS} concurrent ${way}s`, () => raceForSeats(instances, way), RACE_TIMEOUT_MS);
    }
  });

  it(
    'an API key revoked through one node is refused at once through the others (behaviour §16)',
    async () => {
      const owner = await registerUser(node(0), 'key-owner');
      const organizationId = await createOrganization(node(0), owner);
      const refusedLate: string[] = [];
      for (let round = 0; round < ROUNDS / 6; round++) {
        const key = await createKey(node(0), owner.token, organizationId, 'member');
        const read = (index: number) =>
          node(index).call('GET', `/organizations/${organizationId}`, { token: key.secret });
        expect([(await read(1)).status, (await read(2)).status]).toEqual([200, 200]);
        const revoked = await node(0).call('DELETE', `/organizations/${organizationId}/api-keys/${key.key_id}`, {
          token: owner.token,
        });
        expect(revoked.status).toBe(200);
        const [second, third] = await Promise.all([read(1), read(2)]);
        if (second.status !== 401 || third.status !== 401)
          refusedLate.push(`${round}: ${second.status} ${third.status}`);
      }
      expect(refusedLate).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );
});
