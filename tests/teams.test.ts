/**
 * Teams (behaviour §12) end to end, over REST (with and without /api) and tRPC: creating, reading,
 * changing and deleting an organization's teams and their members; the refusals, each checked for
 * having changed nothing; no one giving through a team what they do not hold; the permissions a
 * team gives its members from the very next request; members who leave the organization, are
 * removed from it or whose membership expires leaving its teams with it; and the events recorded.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../client/src/index.ts';
import type { AuditEvent } from '../shared/events.ts';
import type { TeamMemberView, TeamView } from '../shared/teams.ts';
import { rejection } from './support/api-errors.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { organizationWithRoles, storedState } from './support/lifecycle.ts';
import { EXPECTED } from './support/permissions.ts';
import { createRole, rolePath } from './support/roles.ts';
import { useServer } from './support/server.ts';
import {
  addToTeam,
  byTeamId,
  createTeam,
  listTeams,
  removeFromTeam,
  teamMemberPath,
  teamMembers,
  teamMembersPath,
  teamPath,
  teamRowsPointingAt,
  teamsOf,
  teamsPath,
} from './support/teams.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNKNOWN_TEAM = '01900000-0000-7000-8000-000000000000';
/** Long enough to set an expiry before it passes, even on a loaded machine, and short enough to wait for. */
const SHORTLY_MS = 2_000;

/**
 * A roles file with an application permission granted to no built-in role but owner (which holds
 * every permission), and an instance role holding it: what an admin may not give.
 */
const ROLES_FILE = join(mkdtempSync(join(tmpdir(), 'orgs-teams-')), 'roles.json');
writeFileSync(
  ROLES_FILE,
  JSON.stringify({
    permissions: { 'reports:export': 'export reports' },
    roles: { reporter: { description: 'Exports reports', permissions: ['reports:export', 'organization:read'] } },
  }),
);

const badRequest = (field: string) => ({
  code: 'BAD_REQUEST',
  message: expect.any(String),
  issues: expect.arrayContaining([expect.objectContaining({ field })]),
});

const nextLink = (headers: Headers) => /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '')?.[1];

/** Oldest first, as the member lists are ordered: by added_at, then user_id. */
const byAddedAt = (a: TeamMemberView, b: TeamMemberView) =>
  a.added_at.localeCompare(b.added_at) || (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0);

/** A team member as the member lists show them (registerUser names each user after their id). */
const listed = (user: TestUser, added_at: string): TeamMemberView => ({
  user_id: user.id,
  first_name: `First ${user.id}`,
  last_name: `Last ${user.id}`,
  email: user.email,
  added_at,
});

/** Waits until 1 ms past `iso`. */
async function until(iso: string): Promise<void> {
  const wait = Date.parse(iso) + 1 - Date.now();
  if (wait > 0) await sleep(wait);
}

describeOnEachDatabase('teams (behaviour §12)', (target) => {
  const server = useServer(target, { ROLES_FILE });

  const trpc = (user: TestUser) => createClient({ url: server().baseUrl, token: user.token });
  const send = (actor: TestUser, method: string, path: string, body?: unknown) =>
    server().call(method, path, { token: actor.token, body });
  const teamEvents = async (owner: TestUser, organizationId: string, query = '?limit=1000'): Promise<AuditEvent[]> => {
    const events = await send(owner, 'GET', `/organizations/${organizationId}/events${query}`);
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    return (events.body as AuditEvent[]).filter((event) => event.type.startsWith('team.'));
  };
  const summary = ({ type, actor_user_id, subject_user_id, data }: AuditEvent) => ({
    type,
    actor_user_id,
    subject_user_id,
    data,
  });
  /** What a permission check answers about `subject`, asked by `asker`. */
  const check = async (asker: TestUser, organizationId: string, permissions: string[], subject?: TestUser) => {
    const answer = await send(asker, 'POST', `/organizations/${organizationId}/permissions/check`, {
      permissions,
      user_id: subject?.id,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { user_id: string; allowed: boolean; results: Record<string, boolean> };
  };
  const permissionsOf = async (user: TestUser, organizationId: string) => {
    const answer = await send(user, 'GET', `/organizations/${organizationId}/permissions`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const addToOrganization = (actor: TestUser, organizationId: string, user: TestUser) =>
    server().call('POST', '/organization-user', {
      token: actor.token,
      organizationId,
      body: { email: user.email, role: 'member' },
    });
  const removeFromOrganization = (actor: TestUser, organizationId: string, user: TestUser) =>
    server().call('DELETE', '/organization-user', { token: actor.token, organizationId, body: { user_id: user.id } });

  /**
   * Runs a request that must be refused with `status`, and checks it changed nothing: the teams as
   * the owner lists them (with their member counts), and every row of the organization, its events
   * included.
   */
  async function refused(
    owner: TestUser,
    organizationId: string,
    status: number,
    request: () => Promise<{ status: number; body: any }>,
  ) {
    const stateOf = async () => ({
      teams: await listTeams(server(), owner, organizationId),
      ...(await storedState(server(), organizationId)),
    });
    const before = await stateOf();
    const answer = await request();
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(await stateOf()).toEqual(before);
    return answer;
  }

  describe('creating, reading, changing and deleting', () => {
    it('creates a team (201), its name trimmed, no description or roles by default, its roles sorted', async () => {
      const { owner, admin, organizationId } = await organizationWithRoles(server());
      const created = await send(owner, 'POST', teamsPath(organizationId), { name: '\u3000 Support\u00a0' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toEqual({
        team_id: expect.stringMatching(UUID_V7),
        organization_id: organizationId,
        name: 'Support',
        description: '',
        roles: [],
        member_count: 0,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: created.body.created_at,
      });

      const overApi = await send(admin, 'POST', teamsPath(organizationId.toUpperCase(), '/api'), {
        name: 'Operations',
        description: 'Keeps things running,\nday and night',
        roles: ['member', 'admin'],
      });
      expect(overApi.status, JSON.stringify(overApi.body)).toBe(201);
      expect(overApi.body).toEqual({
        ...created.body,
        team_id: expect.stringMatching(UUID_V7),
        name: 'Operations',
        description: 'Keeps things running,\nday and night',
        roles: ['admin', 'member'],
        created_at: expect.stringMatching(ISO_MS),
        updated_at: overApi.body.created_at,
      });

      const overTrpc = await trpc(owner).teams.create.mutate({
        organization_id: organizationId,
        name: 'Reporters',
        roles: ['reporter', 'member'],
      });
      expect(overTrpc).toEqual({
        team_id: expect.stringMatching(UUID_V7),
        organization_id: organizationId,
        name: 'Reporters',
        description: '',
        roles: ['member', 'reporter'],
        member_count: 0,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: overTrpc.created_at,
      });

      // The longest name and description there may be.
      const longest = await createTeam(server(), owner, organizationId, 'n'.repeat(100), {
        description: 'd'.repeat(1000),
      });
      expect(longest.name).toHaveLength(100);
      expect((await listTeams(server(), owner, organizationId)).map((team) => team.team_id)).toEqual([
        created.body.team_id,
        overApi.body.team_id,
        overTrpc.team_id,
        longest.team_id,
      ]);
    });

    it('reads a team and lists the teams oldest first to any member, whole or paged', async () => {
      const { owner, admin, member, organizationId } = await organizationWithRoles(server());
      const teams: TeamView[] = [];
      for (const name of ['Gamma', 'Alpha', 'Beta'])
        teams.push(await createTeam(server(), owner, organizationId, name));
      const second = teams[1]!;
      for (const reader of [owner, admin, member]) {
        for (const prefix of ['', '/api']) {
          const whole = await send(reader, 'GET', teamsPath(organizationId, prefix));
          expect(whole.status).toBe(200);
          expect(whole.body).toEqual(teams);
          expect(whole.headers.get('link')).toBeNull();
          const one = await send(reader, 'GET', teamPath(organizationId, second.team_id, prefix));
          expect(one.status).toBe(200);
          expect(one.body).toEqual(second);
        }
        const api = trpc(reader);
        expect(await api.teams.list.query({ organization_id: organizationId })).toEqual(teams);
        expect(await api.teams.get.query({ organization_id: organizationId, team_id: second.team_id })).toEqual(second);
      }
      const upperCase = await send(member, 'GET', teamPath(organizationId.toUpperCase(), second.team_id.toUpperCase()));
      expect(upperCase.body).toEqual(second);

      const firstPage = await send(member, 'GET', `${teamsPath(organizationId)}?limit=2`);
      expect(firstPage.body).toEqual(teams.slice(0, 2));
      const link = nextLink(firstPage.headers);
      expect(link).toMatch(new RegExp(`^${teamsPath(organizationId)}\\?limit=2&cursor=`));
      const lastPage = await send(member, 'GET', link!);
      expect(lastPage.body).toEqual(teams.slice(2));
      expect(nextLink(lastPage.headers)).toBeUndefined();

      const api = trpc(member);
      const page = await api.teams.page.query({ organization_id: organizationId, limit: 2 });
      expect(page).toEqual({ items: teams.slice(0, 2), nextCursor: expect.any(String) });
      const rest = await api.teams.page.query({ organization_id: organizationId, limit: 2, cursor: page.nextCursor });
      expect(rest).toEqual({ items: teams.slice(2), nextCursor: null });
    });

    it("changes a team's name, description and roles, alone or together; a change of nothing keeps updated_at and records nothing", async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      const before = await createTeam(server(), owner, organizationId, 'Support', {
        description: 'Helps',
        roles: ['member'],
      });
      const path = teamPath(organizationId, before.team_id);

      const renamed = await send(owner, 'PUT', path, { name: ' Helpdesk ' });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      expect(renamed.body).toEqual({ ...before, name: 'Helpdesk', updated_at: expect.stringMatching(ISO_MS) });
      expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));

      const described = await send(owner, 'PUT', teamPath(organizationId, before.team_id, '/api'), {
        description: 'Answers\nquestions',
      });
      expect(described.status).toBe(200);
      expect(described.body).toEqual({
        ...renamed.body,
        description: 'Answers\nquestions',
        updated_at: expect.stringMatching(ISO_MS),
      });

      const reroled = await trpc(owner).teams.update.mutate({
        organization_id: organizationId,
        team_id: before.team_id,
        roles: ['reporter', 'admin'],
      });
      expect(reroled).toEqual({ ...described.body, roles: ['admin', 'reporter'], updated_at: expect.any(String) });

      const together = await send(owner, 'PUT', path, {
        name: 'Desk',
        description: 'Front desk',
        roles: ['member', 'admin'],
      });
      expect(together.status).toBe(200);
      expect(together.body).toEqual({
        ...reroled,
        name: 'Desk',
        description: 'Front desk',
        roles: ['admin', 'member'],
        updated_at: expect.stringMatching(ISO_MS),
      });

      // The same name, description and roles (in another order): no change, no event, updated_at kept.
      const eventsBefore = await teamEvents(owner, organizationId);
      const same = await send(owner, 'PUT', path, {
        name: 'Desk',
        description: 'Front desk',
        roles: ['member', 'admin'],
      });
      expect(same.status).toBe(200);
      expect(same.body).toEqual(together.body);
      expect((await send(owner, 'GET', path)).body).toEqual(together.body);
      expect(await teamEvents(owner, organizationId)).toEqual(eventsBefore);

      expect(await send(owner, 'PUT', path, {})).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    });

    it('deletes a team (200), taking what it gave from its members; it is then 404', async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      const doomed = await createTeam(server(), owner, organizationId, 'Doomed', { roles: ['reporter'] });
      const alsoDoomed = await createTeam(server(), owner, organizationId, 'Also doomed');
      await addToTeam(server(), owner, organizationId, doomed.team_id, member);
      expect((await check(member, organizationId, ['reports:export'])).allowed).toBe(true);

      const deleted = await send(owner, 'DELETE', teamPath(organizationId, doomed.team_id));
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ message: expect.any(String) });
      expect((await send(owner, 'GET', teamPath(organizationId, doomed.team_id))).status).toBe(404);
      expect((await send(owner, 'DELETE', teamPath(organizationId, doomed.team_id, '/api'))).status).toBe(404);
      expect((await check(member, organizationId, ['reports:export'])).allowed).toBe(false);
      expect((await permissionsOf(member, organizationId)).teams).toEqual([]);
      expect(await teamsOf(server(), member)).toEqual([]);

      const overTrpc = await trpc(owner).teams.remove.mutate({
        organization_id: organizationId,
        team_id: alsoDoomed.team_id,
      });
      expect(overTrpc).toEqual({ message: expect.any(String) });
      expect(await listTeams(server(), owner, organizationId)).toEqual([]);
    });

    it("lists a team's members oldest first, adds them (201) and removes them (200), over REST and tRPC", async () => {
      const { owner, admin, member, organizationId } = await organizationWithRoles(server());
      const team = await createTeam(server(), owner, organizationId, 'Support');

      const added = await send(owner, 'POST', teamMembersPath(organizationId, team.team_id), { user_id: member.id });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      expect(added.body).toEqual({
        team_id: team.team_id,
        user_id: member.id,
        added_at: expect.stringMatching(ISO_MS),
      });
      const overApi = await send(admin, 'POST', teamMembersPath(organizationId, team.team_id, '/api'), {
        user_id: owner.id,
      });
      expect(overApi.status, JSON.stringify(overApi.body)).toBe(201);
      const overTrpc = await trpc(owner).teams.addMember.mutate({
        organization_id: organizationId,
        team_id: team.team_id,
        user_id: admin.id,
      });
      expect(overTrpc).toEqual({ team_id: team.team_id, user_id: admin.id, added_at: expect.stringMatching(ISO_MS) });

      const everyone = [
        listed(member, added.body.added_at),
        listed(owner, overApi.body.added_at),
        listed(admin, overTrpc.added_at),
      ].sort(byAddedAt);
      for (const prefix of ['', '/api']) {
        const whole = await send(member, 'GET', teamMembersPath(organizationId, team.team_id, prefix));
        expect(whole.status).toBe(200);
        expect(whole.body).toEqual(everyone);
      }
      const api = trpc(member);
      const ids = { organization_id: organizationId, team_id: team.team_id };
      expect(await api.teams.members.query(ids)).toEqual(everyone);
      const page = await api.teams.membersPage.query({ ...ids, limit: 2 });
      expect(page).toEqual({ items: everyone.slice(0, 2), nextCursor: expect.any(String) });
      expect(await api.teams.membersPage.query({ ...ids, limit: 2, cursor: page.nextCursor })).toEqual({
        items: everyone.slice(2),
        nextCursor: null,
      });
      const firstPage = await send(member, 'GET', `${teamMembersPath(organizationId, team.team_id)}?limit=2`);
      expect(firstPage.body).toEqual(everyone.slice(0, 2));
      expect((await send(member, 'GET', nextLink(firstPage.headers)!)).body).toEqual(everyone.slice(2));
      expect((await send(member, 'GET', teamPath(organizationId, team.team_id))).body.member_count).toBe(3);

      const removed = await send(owner, 'DELETE', teamMemberPath(organizationId, team.team_id, admin.id));
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ message: expect.any(String) });
      const removedOverApi = await send(
        owner,
        'DELETE',
        teamMemberPath(organizationId, team.team_id, owner.id, '/api'),
      );
      expect(removedOverApi.status).toBe(200);
      expect(await trpc(owner).teams.removeMember.mutate({ ...ids, user_id: member.id })).toEqual({
        message: expect.any(String),
      });
      expect(await teamMembers(server(), owner, organizationId, team.team_id)).toEqual([]);
      expect((await send(member, 'GET', teamPath(organizationId, team.team_id))).body.member_count).toBe(0);
    });

    it("GET /teams answers the caller's teams in every organization they belong to, not one they left", async () => {
      const owner = await registerUser(server(), 'owner');
      const joiner = await registerUser(server(), 'joiner');
      const organizations: Array<{ organizationId: string; teamId: string }> = [];
      for (let index = 0; index < 3; index++) {
        const organizationId = await createOrganization(server(), owner);
        await addMember(server(), owner, organizationId, joiner, 'member');
        const team = await createTeam(server(), owner, organizationId, `Team ${index}`);
        await createTeam(server(), owner, organizationId, `Without the joiner ${index}`);
        await addToTeam(server(), owner, organizationId, team.team_id, joiner);
        organizations.push({ organizationId, teamId: team.team_id });
      }
      const [first, second, left] = organizations;
      expect((await removeFromOrganization(joiner, left!.organizationId, joiner)).status).toBe(200);

      const expected: TeamView[] = [];
      for (const { organizationId, teamId } of [first!, second!]) {
        expected.push((await send(owner, 'GET', teamPath(organizationId, teamId))).body as TeamView);
      }
      expect(expected.map((team) => team.member_count)).toEqual([1, 1]);
      expect(await teamsOf(server(), joiner)).toEqual(byTeamId(expected));
      const overApi = await send(joiner, 'GET', '/api/teams');
      expect(byTeamId(overApi.body)).toEqual(byTeamId(expected));
      expect(byTeamId(await trpc(joiner).teams.mine.query())).toEqual(byTeamId(expected));
      // Being a member of an organization is not being in its teams.
      expect(await teamsOf(server(), owner)).toEqual([]);
    });
  });

  describe('refusals', () => {
    let owner: TestUser;
    let admin: TestUser;
    let member: TestUser;
    let outsider: TestUser;
    let organizationId: string;
    let support: TeamView;
    /** Owns another organization, in which `elsewhere` is a team. */
    let otherOwner: TestUser;
    let elsewhere: TeamView;

    beforeAll(async () => {
      ({ owner, admin, member, outsider, organizationId } = await organizationWithRoles(server()));
      support = await createTeam(server(), owner, organizationId, 'Support');
      await createTeam(server(), owner, organizationId, 'Straße');
      await addToTeam(server(), owner, organizationId, support.team_id, admin);
      otherOwner = await registerUser(server(), 'other-owner');
      elsewhere = await createTeam(server(), otherOwner, await createOrganization(server(), otherOwner), 'Elsewhere');
    });

    /** Every request about one team, and the body each sends. */
    const everyTeamRequest = (teamId: string): Array<[string, string, unknown?]> => [
      ['GET', teamPath(organizationId, teamId)],
      ['PUT', teamPath(organizationId, teamId), { description: 'changed' }],
      ['DELETE', teamPath(organizationId, teamId)],
      ['GET', teamMembersPath(organizationId, teamId)],
      ['POST', teamMembersPath(organizationId, teamId), { user_id: member.id }],
      ['DELETE', teamMemberPath(organizationId, teamId, admin.id)],
    ];

    it("answers 400 to a malformed team_id and 404 to an unknown team or another organization's", async () => {
      for (const [teamId, status] of [
        ['not-a-uuid', 400],
        ['01900000-0000-7000-8000-00000000000g', 400],
        [UNKNOWN_TEAM, 404],
        [elsewhere.team_id, 404],
      ] as const) {
        for (const [method, path, body] of everyTeamRequest(teamId)) {
          const answer = await refused(owner, organizationId, status, () => send(owner, method, path, body));
          const expected = status === 400 ? badRequest('team_id') : { code: 'NOT_FOUND', message: expect.any(String) };
          expect(answer.body, `${method} ${path}`).toEqual(expected);
        }
      }
      const overTrpc = await rejection(
        trpc(owner).teams.get.query({ organization_id: organizationId, team_id: UNKNOWN_TEAM }),
      );
      expect({ code: overTrpc.code, status: overTrpc.status }).toEqual({ code: 'NOT_FOUND', status: 404 });
    });

    it('refuses a name in use in any letter case with 409, on creating and on renaming', async () => {
      for (const name of ['Support', 'SUPPORT', ' support ', 'Straße', 'STRASSE', 'strasse', 'STRAẞE']) {
        const taken = await refused(owner, organizationId, 409, () =>
          send(owner, 'POST', teamsPath(organizationId), { name }),
        );
        expect(taken.body, name).toEqual({ code: 'CONFLICT', message: expect.any(String) });
      }
      for (const name of ['SUPPORT', 'STRASSE']) {
        const other = await createTeam(server(), owner, organizationId, uniqueId('renamed'));
        await refused(owner, organizationId, 409, () =>
          send(owner, 'PUT', teamPath(organizationId, other.team_id), { name }),
        );
      }
      const overTrpc = await rejection(
        trpc(owner).teams.create.mutate({ organization_id: organizationId, name: 'support' }),
      );
      expect({ code: overTrpc.code, status: overTrpc.status }).toEqual({ code: 'CONFLICT', status: 409 });
      // Another organization's names are its own.
      await createTeam(server(), owner, organizationId, elsewhere.name.toUpperCase());
    });

    it('refuses "strasse" once "STRAẞE" is a name (409): the capital sharp s folds as "ss" (behaviour §4.4)', async () => {
      const otherOrganizationId = await createOrganization(server(), owner);
      const strasse = await createTeam(server(), owner, otherOrganizationId, 'STRAẞE');
      for (const name of ['strasse', 'Straße', 'STRASSE']) {
        await refused(owner, otherOrganizationId, 409, () =>
          send(owner, 'POST', teamsPath(otherOrganizationId), { name }),
        );
      }
      const other = await createTeam(server(), owner, otherOrganizationId, 'Strand');
      await refused(owner, otherOrganizationId, 409, () =>
        send(owner, 'PUT', teamPath(otherOrganizationId, other.team_id), { name: 'strasse' }),
      );
      // Its own name in another case is still its own.
      const renamed = await send(owner, 'PUT', teamPath(otherOrganizationId, strasse.team_id), { name: 'Strasse' });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    });

    it('refuses a name that only looks different from one in use (width, composed accents, invisible characters) with 409', async () => {
      // Behaviour §4.4: names that must be unique are compared after NFKC, case folding and the
      // removal of default-ignorable code points.
      await createTeam(server(), owner, organizationId, 'Managers');
      await createTeam(server(), owner, organizationId, 'Café');
      const lookalikes = [
        'Mana\u200bgers',
        'Ｍａｎａｇｅｒｓ',
        '\u00adMANAGERS\u2060',
        'Cafe\u0301',
        'CAFE\u0301',
        'ｃａｆé',
      ];
      for (const name of lookalikes) {
        const taken = await refused(owner, organizationId, 409, () =>
          send(owner, 'POST', teamsPath(organizationId), { name }),
        );
        expect(taken.body, JSON.stringify(name)).toEqual({ code: 'CONFLICT', message: expect.any(String) });
      }
      const other = await createTeam(server(), owner, organizationId, uniqueId('lookalike'));
      for (const name of lookalikes) {
        await refused(owner, organizationId, 409, () =>
          send(owner, 'PUT', teamPath(organizationId, other.team_id), { name }),
        );
      }
    });

    it('stores a name in NFC, the composed form, whatever form it was sent in', async () => {
      const team = await createTeam(server(), owner, organizationId, 'Cre\u0300me bru\u0302le\u0301e');
      expect(team.name).toBe('Crème brûlée');
      expect((await send(owner, 'GET', teamPath(organizationId, team.team_id))).body.name).toBe('Crème brûlée');
      const renamed = await send(owner, 'PUT', teamPath(organizationId, team.team_id), { name: 'Cre\u0300me' });
      expect(renamed.body.name).toBe('Crème');
    });

    it('lets a team be renamed to its own name in another letter case', async () => {
      for (const [name, rename] of [
        ['Night shift', 'NIGHT SHIFT'],
        ['Fuß', 'FUSS'],
      ]) {
        const team = await createTeam(server(), owner, organizationId, name!);
        const renamed = await send(owner, 'PUT', teamPath(organizationId, team.team_id), { name: rename });
        expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
        expect(renamed.body.name).toBe(rename);
      }
    });

    it('refuses roles a team cannot give and malformed names or descriptions: 400 on the field', async () => {
      const creations: Array<[string, unknown, string]> = [
        ['owner', { name: 'x', roles: ['owner'] }, 'roles'],
        ['owner among others', { name: 'x', roles: ['member', 'owner'] }, 'roles'],
        ['a role the organization does not have', { name: 'x', roles: ['member', 'nosuchrole'] }, 'roles.1'],
        ['21 roles', { name: 'x', roles: Array.from({ length: 21 }, (_, index) => `role-${index}`) }, 'roles'],
        ['a role twice', { name: 'x', roles: ['member', 'admin', 'member'] }, 'roles'],
        ['a malformed role', { name: 'x', roles: ['Not a role'] }, 'roles.0'],
        ['a name of 101 characters', { name: 'n'.repeat(101) }, 'name'],
        ['an empty name', { name: '' }, 'name'],
        ['a name of white space', { name: ' \u00a0\u3000 ' }, 'name'],
        ['a name with a control character', { name: 'Sup\u0007port' }, 'name'],
        ['a name with a line break', { name: 'Sup\nport' }, 'name'],
        ['a name of invisible characters only', { name: '\u200b\u200b\u2060' }, 'name'],
        ['a name with a right-to-left override', { name: '\u202eSrotartsinimdA' }, 'name'],
        ['a name with a bidirectional isolate', { name: 'Support \u2067team\u2069' }, 'name'],
        [
          'a description with a right-to-left override',
          { name: 'x', description: 'a \u202edescription' },
          'description',
        ],
        ['no name', { roles: ['member'] }, 'name'],
        ['a description of 1001 characters', { name: 'x', description: 'd'.repeat(1001) }, 'description'],
      ];
      for (const [why, body, field] of creations) {
        const answer = await refused(owner, organizationId, 400, () =>
          send(owner, 'POST', teamsPath(organizationId), body),
        );
        expect(answer.body, why).toEqual(badRequest(field));
      }
      const changes: Array<[string, unknown, string]> = [
        ['owner', { roles: ['owner'] }, 'roles'],
        ['a role the organization does not have', { roles: ['nosuchrole'] }, 'roles.0'],
        ['a role twice', { roles: ['admin', 'admin'] }, 'roles'],
        ['an empty name', { name: '' }, 'name'],
        ['a name with a control character', { name: 'a\u0000b' }, 'name'],
        ['a description of 1001 characters', { description: 'd'.repeat(1001) }, 'description'],
      ];
      for (const [why, body, field] of changes) {
        const answer = await refused(owner, organizationId, 400, () =>
          send(owner, 'PUT', teamPath(organizationId, support.team_id), body),
        );
        expect(answer.body, why).toEqual(badRequest(field));
      }
      await refused(owner, organizationId, 400, () =>
        send(owner, 'PUT', teamPath(organizationId, support.team_id), {}),
      );

      const overTrpc = await rejection(
        trpc(owner).teams.create.mutate({ organization_id: organizationId, name: 'x', roles: ['owner'] }),
      );
      expect({
        code: overTrpc.code,
        status: overTrpc.status,
        fields: overTrpc.issues?.map((issue) => issue.field),
      }).toEqual({ code: 'BAD_REQUEST', status: 400, fields: ['roles'] });
    });

    it('refuses every request of a non-member (403), and every change of a member without teams:manage (403)', async () => {
      const requests = [
        ...everyTeamRequest(support.team_id),
        ['GET', teamsPath(organizationId)],
        ['POST', teamsPath(organizationId), { name: 'Mine' }],
      ] as Array<[string, string, unknown?]>;
      for (const [method, path, body] of requests) {
        const answer = await refused(owner, organizationId, 403, () => send(outsider, method, path, body));
        expect(answer.body, `${method} ${path}`).toEqual({ code: 'FORBIDDEN', message: expect.any(String) });
      }
      for (const [method, path, body] of [
        ...requests.filter(([method]) => method !== 'GET'),
        ['POST', teamMembersPath(organizationId, support.team_id), { user_id: owner.id }],
      ] as Array<[string, string, unknown?]>) {
        await refused(owner, organizationId, 403, () => send(member, method, path, body));
      }
      const overTrpc = await rejection(
        trpc(member).teams.create.mutate({ organization_id: organizationId, name: 'Mine' }),
      );
      expect(overTrpc.code).toBe('FORBIDDEN');

      // teams:read, which every member holds, is all reading takes.
      expect((await send(member, 'GET', teamsPath(organizationId))).status).toBe(200);
      expect((await send(member, 'GET', teamPath(organizationId, support.team_id))).body.name).toBe('Support');
      expect((await teamMembers(server(), member, organizationId, support.team_id)).map((row) => row.user_id)).toEqual([
        admin.id,
      ]);
      expect(await teamsOf(server(), outsider)).toEqual([]);
    });

    it('refuses adding a user who is no member (404) or already in the team (409), and removing one who is not in it (404)', async () => {
      const membersPath = teamMembersPath(organizationId, support.team_id);
      for (const userId of [outsider.id, otherOwner.id, uniqueId('never-registered')]) {
        const answer = await refused(owner, organizationId, 404, () =>
          send(owner, 'POST', membersPath, { user_id: userId }),
        );
        expect(answer.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
      }
      const twice = await refused(owner, organizationId, 409, () =>
        send(owner, 'POST', membersPath, { user_id: admin.id }),
      );
      expect(twice.body).toEqual({ code: 'CONFLICT', message: expect.any(String) });
      for (const user of [member, outsider]) {
        await refused(owner, organizationId, 404, () =>
          send(owner, 'DELETE', teamMemberPath(organizationId, support.team_id, user.id)),
        );
      }
    });

    it('lets a member leave a team themselves, needing no teams:manage', async () => {
      const team = await createTeam(server(), owner, organizationId, 'Leavers');
      const other = await createTeam(server(), owner, organizationId, 'Other leavers');
      await addToTeam(server(), owner, organizationId, team.team_id, member);
      await addToTeam(server(), owner, organizationId, other.team_id, member);
      const left = await send(member, 'DELETE', teamMemberPath(organizationId, team.team_id, member.id));
      expect(left.status, JSON.stringify(left.body)).toBe(200);
      expect(left.body).toEqual({ message: expect.any(String) });
      const overTrpc = await trpc(member).teams.removeMember.mutate({
        organization_id: organizationId,
        team_id: other.team_id,
        user_id: member.id,
      });
      expect(overTrpc).toEqual({ message: expect.any(String) });
      expect(await teamMembers(server(), owner, organizationId, team.team_id)).toEqual([]);
      expect(await teamMembers(server(), owner, organizationId, other.team_id)).toEqual([]);
    });
  });

  describe('no escalation through teams', () => {
    let owner: TestUser;
    let admin: TestUser;
    let member: TestUser;
    /** Holds teams:manage and what the member role holds, nothing more. */
    let manager: TestUser;
    let organizationId: string;
    let exporters: TeamView;
    let admins: TeamView;
    let plain: TeamView;

    beforeAll(async () => {
      ({ owner, admin, member, organizationId } = await organizationWithRoles(server()));
      // reports:export is the owner's alone: neither admin nor member holds it (ROLES_FILE grants nothing).
      await createRole(server(), owner, organizationId, 'exporter', ['reports:export']);
      await createRole(server(), owner, organizationId, 'team-manager', [...EXPECTED.member, 'teams:manage']);
      manager = await registerUser(server(), 'team-manager');
      await addMember(server(), owner, organizationId, manager, 'team-manager');
      exporters = await createTeam(server(), owner, organizationId, 'Exporters', { roles: ['exporter'] });
      admins = await createTeam(server(), owner, organizationId, 'Admins', { roles: ['admin'] });
      plain = await createTeam(server(), owner, organizationId, 'Plain', { roles: ['member'] });
    });

    it('refuses creating a team, or giving one roles, holding a permission the caller lacks (403, naming it)', async () => {
      for (const roles of [['exporter'], ['reporter'], ['member', 'exporter']]) {
        const answer = await refused(owner, organizationId, 403, () =>
          send(admin, 'POST', teamsPath(organizationId), { name: 'Mine', roles }),
        );
        expect(answer.body).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('reports:export') });
      }
      await refused(owner, organizationId, 403, () =>
        send(admin, 'PUT', teamPath(organizationId, plain.team_id), { roles: ['member', 'exporter'] }),
      );
      const manages = await refused(owner, organizationId, 403, () =>
        send(manager, 'POST', teamsPath(organizationId), { name: 'Mine', roles: ['admin'] }),
      );
      expect(manages.body.message).toContain('members:add');
      await refused(owner, organizationId, 403, () =>
        send(manager, 'PUT', teamPath(organizationId, plain.team_id), { name: 'Mine', roles: ['admin'] }),
      );
      const overTrpc = await rejection(
        trpc(admin).teams.create.mutate({ organization_id: organizationId, name: 'Mine', roles: ['reporter'] }),
      );
      expect({ code: overTrpc.code, status: overTrpc.status }).toEqual({ code: 'FORBIDDEN', status: 403 });

      // What the caller holds, they may give; a change that gives no roles gives nothing.
      await createTeam(server(), admin, organizationId, 'Helpers', { roles: ['admin', 'member'] });
      await createTeam(server(), manager, organizationId, 'Readers', { roles: ['member'] });
      const renamed = await send(admin, 'PUT', teamPath(organizationId, exporters.team_id), { description: 'Export' });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    });

    it('refuses adding anyone, themselves included, to a team whose roles hold a permission the adder lacks (403)', async () => {
      for (const [adder, team, user] of [
        [admin, exporters, admin],
        [admin, exporters, member],
        [manager, admins, manager],
        [manager, admins, member],
      ] as const) {
        const answer = await refused(owner, organizationId, 403, () =>
          send(adder, 'POST', teamMembersPath(organizationId, team.team_id), { user_id: user.id }),
        );
        expect(answer.body.code).toBe('FORBIDDEN');
      }
      await addToTeam(server(), admin, organizationId, admins.team_id, member);
      await addToTeam(server(), manager, organizationId, plain.team_id, manager);

      // A team's roles count among what its members hold, and so may give.
      await addToTeam(server(), owner, organizationId, exporters.team_id, admin);
      await addToTeam(server(), admin, organizationId, exporters.team_id, member);
      await createTeam(server(), admin, organizationId, 'More exporters', { roles: ['exporter'] });
    });
  });

  describe('what teams give', () => {
    it("gives a member the team's permissions from the very next request after joining, and takes them on leaving", async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      await createRole(server(), owner, organizationId, 'exporter', ['reports:export', 'events:read']);
      const exporters = await createTeam(server(), owner, organizationId, 'Exporters', { roles: ['exporter'] });
      const reporters = await createTeam(server(), owner, organizationId, 'Reporters', { roles: ['reporter'] });
      const asked = ['reports:export', 'events:read'];
      const readEvents = () => send(member, 'GET', `/organizations/${organizationId}/events`);
      expect((await check(owner, organizationId, asked, member)).results).toEqual({
        'reports:export': false,
        'events:read': false,
      });
      expect((await readEvents()).status).toBe(403);

      await addToTeam(server(), owner, organizationId, exporters.team_id, member);
      expect(await check(owner, organizationId, asked, member)).toEqual({
        user_id: member.id,
        allowed: true,
        results: { 'reports:export': true, 'events:read': true },
      });
      expect(await permissionsOf(member, organizationId)).toEqual({
        user_id: member.id,
        role: 'member',
        teams: [exporters.team_id],
        permissions: [...EXPECTED.member, 'events:read', 'reports:export'].sort(),
      });
      expect((await readEvents()).status).toBe(200);
      const overTrpc = await trpc(member).permissions.check.query({
        organization_id: organizationId,
        permissions: ['reports:export'],
      });
      expect(overTrpc.allowed).toBe(true);

      await addToTeam(server(), owner, organizationId, reporters.team_id, member);
      expect((await permissionsOf(member, organizationId)).teams).toEqual(
        [exporters.team_id, reporters.team_id].sort(),
      );

      // Leaving one team leaves what the other gives.
      await removeFromTeam(server(), member, organizationId, exporters.team_id, member);
      expect((await check(member, organizationId, asked)).results).toEqual({
        'reports:export': true,
        'events:read': false,
      });
      await removeFromTeam(server(), owner, organizationId, reporters.team_id, member);
      expect((await check(member, organizationId, asked)).allowed).toBe(false);
      expect(await permissionsOf(member, organizationId)).toEqual({
        user_id: member.id,
        role: 'member',
        teams: [],
        permissions: [...EXPECTED.member].sort(),
      });
      expect((await readEvents()).status).toBe(403);
    });

    it("answers from an organization role's permissions as they are now, after the role given by a team changes", async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      await createRole(server(), owner, organizationId, 'exporter', ['reports:export']);
      const exporters = await createTeam(server(), owner, organizationId, 'Exporters', { roles: ['exporter'] });
      await addToTeam(server(), owner, organizationId, exporters.team_id, member);
      const asked = ['reports:export', 'events:read'];
      expect((await check(member, organizationId, asked)).results).toEqual({
        'reports:export': true,
        'events:read': false,
      });

      const changed = await send(owner, 'PUT', rolePath(organizationId, 'exporter'), { permissions: ['events:read'] });
      expect(changed.status).toBe(200);
      expect((await check(member, organizationId, asked)).results).toEqual({
        'reports:export': false,
        'events:read': true,
      });
      expect((await permissionsOf(member, organizationId)).permissions).toContain('events:read');
      // What an operation's permission is checked against follows too.
      expect((await send(member, 'GET', `/organizations/${organizationId}/events`)).status).toBe(200);
    });

    it('lets a member of a team giving admin add members, until the team no longer gives it', async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      const admins = await createTeam(server(), owner, organizationId, 'Admins', { roles: ['admin'] });
      const [first, second] = [await registerUser(server(), 'first'), await registerUser(server(), 'second')];
      expect((await addToOrganization(member, organizationId, first)).status).toBe(403);

      await addToTeam(server(), owner, organizationId, admins.team_id, member);
      expect((await addToOrganization(member, organizationId, first)).status).toBe(201);

      const reroled = await send(owner, 'PUT', teamPath(organizationId, admins.team_id), { roles: [] });
      expect(reroled.status).toBe(200);
      expect((await check(owner, organizationId, ['members:add'], member)).allowed).toBe(false);
      expect((await addToOrganization(member, organizationId, second)).status).toBe(403);
    });

    it('refuses deleting an organization role a team gives (409, saying how many), and deletes it once none does', async () => {
      const { owner, organizationId } = await organizationWithRoles(server());
      await createRole(server(), owner, organizationId, 'exporter', ['reports:export']);
      const first = await createTeam(server(), owner, organizationId, 'First', { roles: ['exporter'] });
      const second = await createTeam(server(), owner, organizationId, 'Second', { roles: ['exporter', 'member'] });
      const inUse = await refused(owner, organizationId, 409, () =>
        send(owner, 'DELETE', rolePath(organizationId, 'exporter')),
      );
      expect(inUse.body).toEqual({ code: 'CONFLICT', message: expect.stringContaining('2 teams') });

      expect((await send(owner, 'PUT', teamPath(organizationId, first.team_id), { roles: [] })).status).toBe(200);
      expect((await send(owner, 'PUT', teamPath(organizationId, second.team_id), { roles: ['member'] })).status).toBe(
        200,
      );
      expect((await send(owner, 'DELETE', rolePath(organizationId, 'exporter'))).status).toBe(200);
    });
  });

  describe('when a membership or the organization ends', () => {
    it('takes a member who leaves or is removed out of every team, recording team.member_removed for each', async () => {
      const { owner, admin, member, organizationId } = await organizationWithRoles(server());
      const support = await createTeam(server(), owner, organizationId, 'Support', { roles: ['reporter'] });
      const night = await createTeam(server(), owner, organizationId, 'Night');
      for (const team of [support, night]) await addToTeam(server(), owner, organizationId, team.team_id, member);
      await addToTeam(server(), owner, organizationId, support.team_id, admin);
      const eventsBefore = await teamEvents(owner, organizationId);

      expect((await removeFromOrganization(member, organizationId, member)).status).toBe(200);
      expect((await removeFromOrganization(owner, organizationId, admin)).status).toBe(200);

      for (const team of [support, night]) {
        expect(await teamMembers(server(), owner, organizationId, team.team_id)).toEqual([]);
      }
      expect((await listTeams(server(), owner, organizationId)).map((team) => team.member_count)).toEqual([0, 0]);
      expect((await check(owner, organizationId, ['reports:export'], member)).allowed).toBe(false);
      expect(await teamsOf(server(), member)).toEqual([]);
      const removals = (await teamEvents(owner, organizationId)).slice(eventsBefore.length).map(summary);
      const removal = (actor: TestUser, subject: TestUser, team: TeamView) => ({
        type: 'team.member_removed',
        actor_user_id: actor.id,
        subject_user_id: subject.id,
        data: { team_id: team.team_id, name: team.name },
      });
      expect(removals).toHaveLength(3);
      expect(removals).toEqual(
        expect.arrayContaining([
          removal(member, member, support),
          removal(member, member, night),
          removal(owner, admin, support),
        ]),
      );

      // Added again, they come back to no team.
      await addMember(server(), owner, organizationId, member, 'member');
      expect(await teamMembers(server(), owner, organizationId, support.team_id)).toEqual([]);
      expect((await permissionsOf(member, organizationId)).teams).toEqual([]);
    });

    it('counts an expired member in no team at once, and takes them out when they are added again', async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      const support = await createTeam(server(), owner, organizationId, 'Support', { roles: ['reporter'] });
      await addToTeam(server(), owner, organizationId, support.team_id, member);
      const otherOrganizationId = await createOrganization(server(), owner);
      await addMember(server(), owner, otherOrganizationId, member, 'member');
      const stays = await createTeam(server(), owner, otherOrganizationId, 'Stays');
      await addToTeam(server(), owner, otherOrganizationId, stays.team_id, member);
      expect((await check(owner, organizationId, ['reports:export'], member)).allowed).toBe(true);

      const expiresAt = new Date(Date.now() + SHORTLY_MS).toISOString();
      const expiring = await server().call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: member.id, role: 'member', expires_at: expiresAt },
      });
      expect(expiring.status, JSON.stringify(expiring.body)).toBe(200);
      await until(expiresAt);

      expect(await teamMembers(server(), owner, organizationId, support.team_id)).toEqual([]);
      expect((await send(owner, 'GET', teamPath(organizationId, support.team_id))).body.member_count).toBe(0);
      expect((await check(owner, organizationId, ['reports:export'], member)).allowed).toBe(false);
      expect((await teamsOf(server(), member)).map((team) => team.team_id)).toEqual([stays.team_id]);

      // Adding them again removes the expired membership first, and their place in the team with it.
      expect((await addToOrganization(owner, organizationId, member)).status).toBe(201);
      expect(await teamMembers(server(), owner, organizationId, support.team_id)).toEqual([]);
      expect((await check(owner, organizationId, ['reports:export'], member)).allowed).toBe(false);
      const removals = (await teamEvents(owner, organizationId)).filter(
        (event) => event.type === 'team.member_removed',
      );
      expect(removals.map(summary)).toEqual([
        {
          type: 'team.member_removed',
          actor_user_id: member.id,
          subject_user_id: member.id,
          data: { team_id: support.team_id, name: 'Support' },
        },
      ]);
    });

    it('deletes the teams of a deleted organization', async () => {
      const { owner, member, organizationId } = await organizationWithRoles(server());
      const doomed = await createTeam(server(), owner, organizationId, 'Doomed', { roles: ['member'] });
      await addToTeam(server(), owner, organizationId, doomed.team_id, member);
      const otherOrganizationId = await createOrganization(server(), owner);
      await addMember(server(), owner, otherOrganizationId, member, 'member');
      const stays = await createTeam(server(), owner, otherOrganizationId, 'Stays');
      await addToTeam(server(), owner, otherOrganizationId, stays.team_id, member);
      expect(await teamsOf(server(), member)).toHaveLength(2);

      expect((await send(owner, 'DELETE', `/organizations/${organizationId}`)).status).toBe(200);
      expect((await teamsOf(server(), member)).map((team) => team.team_id)).toEqual([stays.team_id]);
      expect(await teamRowsPointingAt(server(), organizationId)).toBe(0);
      expect((await send(owner, 'GET', teamPath(organizationId, doomed.team_id))).status).toBe(403);
    });
  });

  describe('events', () => {
    it('records every change of a team and its members, with only what changed, and filters them by type', async () => {
      const { owner, admin, member, organizationId } = await organizationWithRoles(server());
      const team = await createTeam(server(), owner, organizationId, 'Support', {
        description: 'Helps',
        roles: ['member'],
      });
      const path = teamPath(organizationId, team.team_id);
      expect((await send(owner, 'PUT', path, { name: 'Helpdesk' })).status).toBe(200);
      expect((await send(admin, 'PUT', path, { description: 'Answers', roles: ['admin', 'member'] })).status).toBe(200);
      expect((await send(owner, 'PUT', path, { name: 'Helpdesk', roles: ['member', 'admin'] })).status).toBe(200);
      await addToTeam(server(), owner, organizationId, team.team_id, member);
      await addToTeam(server(), admin, organizationId, team.team_id, admin);
      await removeFromTeam(server(), owner, organizationId, team.team_id, member);
      await removeFromTeam(server(), admin, organizationId, team.team_id, admin);
      expect((await send(admin, 'DELETE', path)).status).toBe(200);

      const named = { team_id: team.team_id, name: 'Helpdesk' };
      expect((await teamEvents(owner, organizationId)).map(summary)).toEqual([
        {
          type: 'team.created',
          actor_user_id: owner.id,
          subject_user_id: null,
          data: { team_id: team.team_id, name: 'Support', description: 'Helps', roles: ['member'] },
        },
        {
          type: 'team.updated',
          actor_user_id: owner.id,
          subject_user_id: null,
          data: { team_id: team.team_id, changes: { name: { from: 'Support', to: 'Helpdesk' } } },
        },
        {
          type: 'team.updated',
          actor_user_id: admin.id,
          subject_user_id: null,
          data: {
            team_id: team.team_id,
            changes: {
              description: { from: 'Helps', to: 'Answers' },
              roles: { from: ['member'], to: ['admin', 'member'] },
            },
          },
        },
        { type: 'team.member_added', actor_user_id: owner.id, subject_user_id: member.id, data: named },
        { type: 'team.member_added', actor_user_id: admin.id, subject_user_id: admin.id, data: named },
        { type: 'team.member_removed', actor_user_id: owner.id, subject_user_id: member.id, data: named },
        { type: 'team.member_removed', actor_user_id: admin.id, subject_user_id: admin.id, data: named },
        { type: 'team.deleted', actor_user_id: admin.id, subject_user_id: null, data: named },
      ]);

      const added = await teamEvents(owner, organizationId, '?type=team.member_added');
      expect(added.map((event) => event.subject_user_id)).toEqual([member.id, admin.id]);
      const filtered = await send(owner, 'GET', `/organizations/${organizationId}/events?type=team.member_added`);
      expect((filtered.body as AuditEvent[]).every((event) => event.type === 'team.member_added')).toBe(true);
    });
  });
});
