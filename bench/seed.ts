/**
 * The data `npm run bench` and `npm run bench:ab` seed through the service's REST API, laid out
 * alike for both, so that the scenarios (bench/scenarios.ts) are built from one shape of it:
 * users `bench-user-0` on; the organization of 10,000 owned by user 0, of users 0 to 9,999; the
 * organization of 100 owned by user 10,000, of users 10,000 to 10,099; spare users in neither;
 * CROSS.organizations organizations of two (see CROSS); and when asked, TEAMS.count teams of the
 * organization of 100, each giving a role of that organization's own, with TEAM_MEMBER in all of
 * them.
 */
import { pooled } from '../tests/support/pooled.ts';
import { restCall } from '../tests/support/rest-call.ts';
import { tokenFor } from '../tests/support/tokens.ts';

export const BIG = { owner: 0, members: 10_000 };
export const SMALL = { owner: 10_000, members: 100 };
/**
 * Users in neither organization, whom (f) adds and removes: enough for each of four runs (warm-up
 * and measured, per server) to have its own, so that a request still in flight when one run ends
 * cannot meet the next one.
 */
export const SPARES = { from: SMALL.owner + SMALL.members, count: 4 * 32 };

/**
 * The teams (k) checks through (behaviour §12): each gives an organization role of its own, and only
 * the last one's holds `permission`, which the built-in role `member` does not. The other roles each
 * hold one permission that is not it (`member`'s own or not: what they hold is not asked about).
 */
export const TEAMS = {
  count: 20,
  permission: 'members:add',
  others: [
    'organization:update',
    'members:update',
    'members:remove',
    'invitations:read',
    'invitations:create',
    'invitations:revoke',
    'events:read',
    'roles:manage',
    'teams:manage',
    'webhooks:manage',
    'reports:export',
    'reports:read',
    'billing:read',
  ],
};

/**
 * The organizations (l) changes roles in, one per connection, so that the per-organization order of
 * events (behaviour §9) does not serialize the changes: organization k is owned by member k + 1 of
 * the organization of 100 and has member k + 33 of it as its other member. Their roles there do not
 * matter here.
 */
export const CROSS = {
  organizations: 32,
  owner: (index: number) => SMALL.owner + 1 + index,
  member: (index: number) => SMALL.owner + 33 + index,
};

/** A member (role `member`) of the organization of 100 in every one of TEAMS: no other scenario changes them. */
export const TEAM_MEMBER = SMALL.owner + SMALL.members - 2;

export const userId = (index: number) => `bench-user-${index}`;
export const email = (index: number) => `${userId(index)}@example.com`;

const tokens = new Map<number, Promise<string>>();
/** A token for seeded user `index`, with the `owner` role claim the creation endpoints ask for. */
export function ownerToken(index: number): Promise<string> {
  if (!tokens.has(index)) tokens.set(index, tokenFor(userId(index), { role: 'owner', expiresIn: '2h' }));
  return tokens.get(index)!;
}

/** The ids of the seeded organizations. */
export interface Seeded {
  small: string;
  /** Seeded only when asked for: the scenario that reads it, (d), needs 10,000 users more. */
  big?: string;
  /** The ids of CROSS's organizations, organization k at index k. */
  cross: string[];
  /** The ids of TEAMS, seeded only when asked for (by (k)): a service before teams has no such API. */
  teams?: string[];
  /** The secret of an API key of the organization of 100 (role `member`), seeded only when asked for (by (m)). */
  organizationKey?: string;
}

/** A REST call as seeded user `as`; statuses in `tolerated` count as done too. Its JSON body. */
export async function callAs(
  baseUrl: string,
  request: { method: string; path: string; as: number; body: object; organizationId?: string },
  tolerated: number[] = [],
): Promise<any> {
  const { method, path, body, organizationId } = request;
  const answer = await restCall(baseUrl, method, path, await ownerToken(request.as), body, organizationId);
  if (answer.status >= 300 && !tolerated.includes(answer.status)) {
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

async function seedUsers(baseUrl: string, from: number, count: number): Promise<void> {
  await pooled(count, 32, (offset) => {
    const index = from + offset;
    const body = { first_name: `First${index}`, last_name: `Last${index}`, email: email(index) };
    return callAs(baseUrl, { method: 'POST', path: '/users', as: index, body });
  });
}

/**
 * An organization of `members` users from its owner on (already created), added 32 at a time,
 * named `name`: its id.
 */
async function seedOrganization(
  baseUrl: string,
  { owner, members }: typeof SMALL,
  name = `bench ${members}`,
): Promise<string> {
  const organization = { organization_name: name, organization_description: '' };
  const { organization_id } = await callAs(baseUrl, {
    method: 'POST',
    path: '/organizations',
    as: owner,
    body: organization,
  });
  await pooled(members - 1, 32, (offset) =>
    callAs(baseUrl, {
      method: 'POST',
      path: '/organization-user',
      as: owner,
      body: { email: email(owner + offset + 1), role: 'member' },
      organizationId: organization_id,
    }),
  );
  return organization_id;
}

/** CROSS's organizations: their ids, in order. */
function seedCrossOrganizations(baseUrl: string): Promise<string[]> {
  return pooled(CROSS.organizations, 8, async (index) => {
    const organizationId = await seedOrganization(
      baseUrl,
      { owner: CROSS.owner(index), members: 1 },
      `bench cross ${index}`,
    );
    await callAs(baseUrl, {
      method: 'POST',
      path: '/organization-user',
      as: CROSS.owner(index),
      body: { email: email(CROSS.member(index)), role: 'member' },
      organizationId,
    });
    return organizationId;
  });
}

/** The role team `index` of TEAMS gives, and the one permission it holds. */
function teamRole(index: number) {
  const permission = index === TEAMS.count - 1 ? TEAMS.permission : TEAMS.others[index % TEAMS.others.length]!;
  return { role: `bench-team-role-${index}`, permissions: [permission] };
}

/** TEAMS in the organization `organizationId` (of 100), each with its role, TEAM_MEMBER in each: their ids. */
async function seedTeams(baseUrl: string, organizationId: string): Promise<string[]> {
  const asOwner = (path: string, body: object) =>
    callAs(baseUrl, { method: 'POST', path: `/organizations/${organizationId}${path}`, as: SMALL.owner, body });
  return pooled(TEAMS.count, 4, async (index) => {
    const role = teamRole(index);
    await asOwner('/roles', role);
    const { team_id } = await asOwner('/teams', { name: `bench team ${index}`, roles: [role.role] });
    await asOwner(`/teams/${team_id}/members`, { user_id: userId(TEAM_MEMBER) });
    return team_id as string;
  });
}

/** An API key of the organization `organizationId` (of 100), made by its owner with the role `member`: its secret. */
async function seedOrganizationKey(baseUrl: string, organizationId: string): Promise<string> {
  const path = `/organizations/${organizationId}/api-keys`;
  const made = await callAs(baseUrl, {
    method: 'POST',
    path,
    as: SMALL.owner,
    body: { name: 'bench', role: 'member' },
  });
  return made.secret as string;
}

/**
 * Seeds the users and the organization of 100, with `big` the organization of 10,000, with
 * `teams` TEAMS, and with `key` an API key of the organization of 100.
 */
export async function seed(
  baseUrl: string,
  { big, teams, key }: { big: boolean; teams?: boolean; key?: boolean },
): Promise<Seeded> {
  await seedUsers(baseUrl, SMALL.owner, SMALL.members + SPARES.count);
  if (big) await seedUsers(baseUrl, BIG.owner, BIG.members);
  const small = await seedOrganization(baseUrl, SMALL);
  return {
    small,
    big: big ? await seedOrganization(baseUrl, BIG) : undefined,
    cross: await seedCrossOrganizations(baseUrl),
    teams: teams ? await seedTeams(baseUrl, small) : undefined,
    organizationKey: key ? await seedOrganizationKey(baseUrl, small) : undefined,
  };
}

/** How many users `seed` creates. */
export const usersSeeded = ({ big }: { big: boolean }) => SMALL.members + SPARES.count + (big ? BIG.members : 0);
