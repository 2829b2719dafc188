/** Short ways to make an organization's teams (behaviour §12) and put members in them through the public REST API. */
import { expect } from 'vitest';
import type { Database, Sql } from '../../server/platform/database/schema.ts';
import type { TeamMemberView, TeamView } from '../../shared/teams.ts';
import type { TestUser } from './fixtures.ts';
import type { TestServer } from './server.ts';

export const teamsPath = (organizationId: string, prefix = '') => `${prefix}/organizations/${organizationId}/teams`;
export const teamPath = (organizationId: string, teamId: string, prefix = '') =>
  `${teamsPath(organizationId, prefix)}/${teamId}`;
export const teamMembersPath = (organizationId: string, teamId: string, prefix = '') =>
  `${teamPath(organizationId, teamId, prefix)}/members`;
export const teamMemberPath = (organizationId: string, teamId: string, userId: string, prefix = '') =>
  `${teamMembersPath(organizationId, teamId, prefix)}/${encodeURIComponent(userId)}`;

/** Creates a team as `actor`; fails the test unless it is created. */
export async function createTeam(
  server: TestServer,
  actor: TestUser,
  organizationId: string,
  name: string,
  fields: { description?: string; roles?: string[] } = {},
): Promise<TeamView> {
  const created = await server.call('POST', teamsPath(organizationId), {
    token: actor.token,
    body: { name, ...fields },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** Puts `user` in the team as `actor`; fails the test unless they are added. */
export async function addToTeam(
  server: TestServer,
  actor: TestUser,
  organizationId: string,
  teamId: string,
  user: TestUser,
): Promise<void> {
  const added = await server.call('POST', teamMembersPath(organizationId, teamId), {
    token: actor.token,
    body: { user_id: user.id },
  });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
}

/** Takes `user` out of the team as `actor`; fails the test unless they are removed. */
export async function removeFromTeam(
  server: TestServer,
  actor: TestUser,
  organizationId: string,
  teamId: string,
  user: TestUser,
): Promise<void> {
  const removed = await server.call('DELETE', teamMemberPath(organizationId, teamId, user.id), { token: actor.token });
  expect(removed.status, JSON.stringify(removed.body)).toBe(200);
}

/** The organization's teams, oldest first, as `viewer` (who holds teams:read) lists them. */
export async function listTeams(server: TestServer, viewer: TestUser, organizationId: string): Promise<TeamView[]> {
  const listed = await server.call('GET', teamsPath(organizationId), { token: viewer.token });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body;
}

/** A team's members, oldest first, as `viewer` lists them. */
export async function teamMembers(
  server: TestServer,
  viewer: TestUser,
  organizationId: string,
  teamId: string,
): Promise<TeamMemberView[]> {
  const listed = await server.call('GET', teamMembersPath(organizationId, teamId), { token: viewer.token });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body;
}

/** The teams `user` is in, in every organization (GET /teams), by team id. */
export async function teamsOf(server: TestServer, user: TestUser): Promise<TeamView[]> {
  const listed = await server.call('GET', '/teams', { token: user.token });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return byTeamId(listed.body);
}

/** Teams in the order of their ids: for lists whose order the API leaves open. */
export const byTeamId = (teams: TeamView[]) =>
  [...teams].sort((a, b) => (a.team_id < b.team_id ? -1 : a.team_id > b.team_id ? 1 : 0));

/** Team and team-member rows still pointing at the organization (none may outlive it). */
export async function teamRowsPointingAt(server: TestServer, organizationId: string): Promise<number> {
  const sql = server.service.orm.em.getKysely<Database>();
  const [teams, members] = await Promise.all(
    (['teams', 'team_members'] as const).map((table) =>
      sql
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number | string>().as('rows'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow(),
    ),
  );
  return Number(teams!.rows) + Number(members!.rows);
}

/** Team members, in any organization, whose membership of the team's organization is gone: none, ever. */
export function teamMembersWithoutMembership(sql: Sql) {
  return sql
    .selectFrom('team_members as t')
    .leftJoin('organization_users as m', (join) =>
      join.onRef('m.organization_id', '=', 't.organization_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .where('m.user_id', 'is', null)
    .select(['t.organization_id', 't.team_id', 't.user_id'])
    .execute();
}
