/**
 * Teams at their limits and under races (behaviour §12): an organization with the most teams it may
 * have and a team of 10,000 members, each walked a page at a time (behaviour §6); names made unique
 * ignoring letter case while creations race; and a member removed from the organization while being
 * added to a team, which must never leave a team member who is not a member (behaviour §7).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { locateDatabase } from '../server/platform/database/engine.ts';
import { toDbTimestamp, type Database, type Dialect, type Sql } from '../server/platform/database/schema.ts';
import { MAX_TEAMS, teamNameKey, type TeamMemberView, type TeamView } from '../shared/teams.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import {
  addMember,
  createOrganization,
  insertUsersAsMembers,
  registerUser,
  type TestUser,
} from './support/fixtures.ts';
import { pooled } from './support/pooled.ts';
import { useServer } from './support/server.ts';
import { teamMembersWithoutMembership } from './support/teams.ts';

/** Team creations in flight at once: they queue on the organization's lock anyway. */
const CREATION_CONCURRENCY = 8;
/** Set-up requests in flight at once. */
const SETUP_CONCURRENCY = 6;
const BIG_TEAM = 10_000;
/** Rows a seeding statement inserts: few enough bound values for either database. */
const SEED_BATCH = 500;
/** Seeded members share each `added_at` in tens, so that pages break ties by user_id. */
const MEMBERS_PER_INSTANT = 10;
const NAME_ROUNDS = 5;
const SAME_NAME_CREATIONS = 20;
const RACING_MEMBERS = 30;
const SCALE_TIMEOUT_MS = 120_000;

const teamsPath = (organizationId: string, prefix = '') => `${prefix}/organizations/${organizationId}/teams`;
const teamPath = (organizationId: string, teamId: string) => `${teamsPath(organizationId)}/${teamId}`;
const teamMembersPath = (organizationId: string, teamId: string) => `${teamPath(organizationId, teamId)}/members`;

const nextLink = (headers: Headers) => /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '')?.[1];

/** The oldest first, ties by id: the order of both lists (behaviour §12). */
const byTimeThenId =
  <Row>(keyOf: (row: Row) => [string, string]) =>
  (a: Row, b: Row) => {
    const [aTime, aId] = keyOf(a);
    const [bTime, bId] = keyOf(b);
    if (aTime !== bTime) return aTime < bTime ? -1 : 1;
    return aId < bId ? -1 : aId > bId ? 1 : 0;
  };
const teamOrder = byTimeThenId((team: TeamView) => [team.created_at, team.team_id]);
const memberOrder = byTimeThenId((member: TeamMemberView) => [member.added_at, member.user_id]);

describeOnEachDatabase('teams at scale and under races', (target) => {
  const server = useServer(target);
  let owner: TestUser;

  beforeAll(async () => {
    owner = await registerUser(server(), 'owner');
  });

  const sql = () => server().service.orm.em.getKysely<Database>();
  const dialect = () => locateDatabase(server().databaseUrl).dialect;

  async function createTeam(organizationId: string, name: string) {
    return server().call<TeamView>('POST', teamsPath(organizationId), { token: owner.token, body: { name } });
  }

  async function wholeList<T>(path: string): Promise<T[]> {
    const whole = await server().call<T[]>('GET', path, { token: owner.token });
    expect(whole.status, JSON.stringify(whole.body)).toBe(200);
    expect(whole.headers.get('link')).toBeNull();
    return whole.body;
  }

  /** Every page of a REST list from `?limit=`, following the Link header to the end. */
  async function restPages<T>(path: string, limit: number): Promise<T[][]> {
    const pages: T[][] = [];
    let next: string | undefined = `${path}?limit=${limit}`;
    while (next) {
      const page = await server().call<T[]>('GET', next, { token: owner.token });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      pages.push(page.body);
      next = nextLink(page.headers);
    }
    return pages;
  }

  /** Every page of a tRPC page procedure, following nextCursor to the end. */
  async function trpcPages<T>(procedure: string, input: object, limit: number): Promise<T[][]> {
    const pages: T[][] = [];
    let cursor: string | null = null;
    do {
      const query = encodeURIComponent(JSON.stringify({ ...input, limit, ...(cursor && { cursor }) }));
      const answer = await server().call('GET', `/trpc/${procedure}?input=${query}`, { token: owner.token });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const page: { items: T[]; nextCursor: string | null } = answer.body.result.data;
      pages.push(page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return pages;
  }

  /** Pages of `limit` items, only the last one shorter, that together are `whole` in its order. */
  function expectPagesOf<T>(pages: T[][], limit: number, whole: T[]) {
    expect(pages.map((page) => page.length)).toEqual(
      Array.from({ length: Math.ceil(whole.length / limit) }, (_, index) =>
        Math.min(limit, whole.length - index * limit),
      ),
    );
    expect(pages.flat()).toEqual(whole);
  }

  it(
    `pages ${MAX_TEAMS} teams of one organization oldest first, and refuses one more (409)`,
    async () => {
      const organizationId = await createOrganization(server(), owner);
      const started = performance.now();
      const created = await pooled(MAX_TEAMS, CREATION_CONCURRENCY, async (index) => {
        const answer = await createTeam(organizationId, `Team ${index}`);
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
        return answer.body.team_id;
      });
      console.info(`${target.name}: ${MAX_TEAMS} teams created in ${Math.round(performance.now() - started)} ms`);

      const whole = await wholeList<TeamView>(teamsPath(organizationId));
      expect(whole).toHaveLength(MAX_TEAMS);
      expect(whole).toEqual([...whole].sort(teamOrder));
      expect(whole.map((team) => team.team_id).sort()).toEqual([...created].sort());

      expectPagesOf(await restPages<TeamView>(teamsPath(organizationId), 7), 7, whole);
      expectPagesOf(await restPages<TeamView>(teamsPath(organizationId, '/api'), 1000), 1000, whole);
      for (const limit of [333, 1000]) {
        expectPagesOf(
          await trpcPages<TeamView>('teams.page', { organization_id: organizationId }, limit),
          limit,
          whole,
        );
      }

      const oneTooMany = await createTeam(organizationId, `Team ${MAX_TEAMS}`);
      expect(oneTooMany.status, JSON.stringify(oneTooMany.body)).toBe(409);
      expect(await wholeList<TeamView>(teamsPath(organizationId))).toHaveLength(MAX_TEAMS);
    },
    SCALE_TIMEOUT_MS,
  );

  /**
   * Users, their memberships and their places in the team written straight to the tables, as if as
   * many members had been added: through the API that would take minutes. Returns the member list
   * the service should give, in its order.
   */
  async function seedTeamMembers(organizationId: string, teamId: string): Promise<TeamMemberView[]> {
    const base = Date.now() - BIG_TEAM;
    const members = Array.from({ length: BIG_TEAM }, (_, index): TeamMemberView => {
      const id = `seeded-${randomBytes(6).toString('hex')}`;
      const addedAt = new Date(base + Math.floor(index / MEMBERS_PER_INSTANT));
      return {
        user_id: id,
        first_name: `First ${index}`,
        last_name: `Last ${index}`,
        email: `${id}@example.com`,
        added_at: addedAt.toISOString(),
      };
    });
    for (let first = 0; first < BIG_TEAM; first += SEED_BATCH) {
      await insertMembers(sql(), dialect(), organizationId, teamId, members.slice(first, first + SEED_BATCH));
    }
    return members.sort(memberOrder);
  }

  it(
    `pages a team of ${BIG_TEAM} members by (added_at, user_id) over REST and tRPC`,
    async () => {
      const organizationId = await createOrganization(server(), owner);
      const created = await createTeam(organizationId, 'Everyone');
      expect(created.status).toBe(201);
      const teamId = created.body.team_id;
      const started = performance.now();
      const seeded = await seedTeamMembers(organizationId, teamId);
      console.info(`${target.name}: ${BIG_TEAM} team members seeded in ${Math.round(performance.now() - started)} ms`);

      const team = await server().call<TeamView>('GET', teamPath(organizationId, teamId), { token: owner.token });
      expect(team.body.member_count).toBe(BIG_TEAM);
      expect(await wholeList<TeamMemberView>(teamMembersPath(organizationId, teamId))).toEqual(seeded);
      for (const limit of [1000, 333]) {
        expectPagesOf(await restPages<TeamMemberView>(teamMembersPath(organizationId, teamId), limit), limit, seeded);
        const input = { organization_id: organizationId, team_id: teamId };
        expectPagesOf(await trpcPages<TeamMemberView>('teams.membersPage', input, limit), limit, seeded);
      }
    },
    SCALE_TIMEOUT_MS,
  );

  it('creates one team of concurrent creations of one name in different letter cases; the rest get 409', async () => {
    const organizationId = await createOrganization(server(), owner);
    for (let round = 0; round < NAME_ROUNDS; round++) {
      // "ß" is among the letters: its capital is "SS", one name with "ss" (behaviour §12).
      const name = `straße round ${round}`;
      const variants = letterCases(name, SAME_NAME_CREATIONS);
      const answers = await Promise.all(variants.map((spelling) => createTeam(organizationId, spelling)));
      const statuses = answers.map((answer) => answer.status);
      expect(
        statuses.filter((status) => status === 201),
        `round ${round}: ${statuses.join(',')}`,
      ).toHaveLength(1);
      expect(
        statuses.filter((status) => status === 409),
        `round ${round}: ${statuses.join(',')}`,
      ).toHaveLength(SAME_NAME_CREATIONS - 1);
      const winner = answers.find((answer) => answer.status === 201)!.body;
      const named = (await wholeList<TeamView>(teamsPath(organizationId))).filter(
        (team) => teamNameKey(team.name) === teamNameKey(name),
      );
      expect(named).toEqual([winner]);
    }
  });

  it(
    'never leaves a team member who is not a member when removals from the organization race adds to a team',
    async () => {
      const organizationId = await createOrganization(server(), owner);
      const [joined, joining] = await Promise.all(
        ['Joined', 'Joining'].map(async (name) => {
          const created = await createTeam(organizationId, name);
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          return created.body.team_id;
        }),
      );
      // Each member is in one team already, so that each removal takes a team membership with it.
      const members = await pooled(RACING_MEMBERS, SETUP_CONCURRENCY, async () => {
        const member = await registerUser(server(), 'racer');
        await addMember(server(), owner, organizationId, member, 'member');
        const added = await server().call('POST', teamMembersPath(organizationId, joined!), {
          token: owner.token,
          body: { user_id: member.id },
        });
        expect(added.status, JSON.stringify(added.body)).toBe(201);
        return member;
      });

      const answers = await Promise.all(
        members.map(async (member, index) => {
          const [removal, add] = await bothAtOnce(
            index,
            () =>
              server().call('DELETE', '/organization-user', {
                token: owner.token,
                organizationId,
                body: { user_id: member.id },
              }),
            () =>
              server().call('POST', teamMembersPath(organizationId, joining!), {
                token: owner.token,
                body: { user_id: member.id },
              }),
          );
          return { removal: removal.status, add: add.status };
        }),
      );
      const adds = answers.map((answer) => answer.add);
      console.info(
        `${target.name}: adds racing removals: ${adds.filter((status) => status === 201).length} added first, ` +
          `${adds.filter((status) => status === 404).length} refused`,
      );
      expect(answers.filter((answer) => answer.removal !== 200 || ![201, 404].includes(answer.add))).toEqual([]);

      expect(await teamMembersWithoutMembership(sql())).toEqual([]);
      for (const teamId of [joined!, joining!]) {
        expect(await wholeList<TeamMemberView>(teamMembersPath(organizationId, teamId))).toEqual([]);
        const team = await server().call<TeamView>('GET', teamPath(organizationId, teamId), { token: owner.token });
        expect(team.body.member_count).toBe(0);
      }

      // Each removal recorded leaving every team its member was in when it committed: the first
      // team always, the second when the add committed first (behaviour §12).
      const removedFrom = await teamRemovalEvents(organizationId);
      expect(removedFrom.filter((teamId) => teamId === joined)).toHaveLength(RACING_MEMBERS);
      expect(removedFrom.filter((teamId) => teamId === joining)).toHaveLength(
        adds.filter((status) => status === 201).length,
      );
    },
    SCALE_TIMEOUT_MS,
  );

  /** The team of each `team.member_removed` event of the organization. */
  async function teamRemovalEvents(organizationId: string): Promise<string[]> {
    const events = await server().call(
      'GET',
      `/organizations/${organizationId}/events?type=team.member_removed&limit=1000`,
      { token: owner.token },
    );
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    return events.body.map((event: { data: { team_id: string } }) => event.data.team_id);
  }
});

/** `count` distinct spellings of `name` that differ only in the case of its letters. */
function letterCases(name: string, count: number): string[] {
  const letters = [...name].flatMap((char, index) => (char.toUpperCase() !== char.toLowerCase() ? [index] : []));
  if (2 ** letters.length < count) throw new Error(`"${name}" has too few letters for ${count} spellings`);
  return Array.from({ length: count }, (_, variant) =>
    [...name]
      .map((char, index) => {
        const bit = letters.indexOf(index);
        return bit >= 0 && (variant >> bit) & 1 ? char.toUpperCase() : char.toLowerCase();
      })
      .join(''),
  );
}

/**
 * Sends two requests at once, the first one first for even rounds and the second for odd ones,
 * so that a race is won both ways; their answers in the order given.
 */
async function bothAtOnce<T>(round: number, first: () => Promise<T>, second: () => Promise<T>): Promise<[T, T]> {
  if (round % 2 === 0) return Promise.all([first(), second()]);
  const [secondAnswer, firstAnswer] = await Promise.all([second(), first()]);
  return [firstAnswer, secondAnswer];
}

/** Writes the users, their memberships (which team_members references) and their team rows. */
async function insertMembers(
  sql: Sql,
  dialect: Dialect,
  organizationId: string,
  teamId: string,
  members: TeamMemberView[],
): Promise<void> {
  await insertUsersAsMembers(sql, organizationId, members, toDbTimestamp(dialect, new Date()));
  await sql
    .insertInto('team_members')
    .values(
      members.map((member) => ({
        team_id: teamId,
        organization_id: organizationId,
        user_id: member.user_id,
        added_at: toDbTimestamp(dialect, new Date(member.added_at)),
      })),
    )
    .execute();
}
