/**
 * The data `npm run bench` and `npm run bench:ab` seed through the service's REST API, laid out
 * alike for both, so that the scenarios (bench/scenarios.ts) are built from one shape of it:
 * users `bench-user-0` on; the organization of 10,000 owned by user 0, of users 0 to 9,999; the
 * organization of 100 owned by user 10,000, of users 10,000 to 10,099; spare users in neither.
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

/** An organization of `members` users from its owner on (already created), added 32 at a time: its id. */
async function seedOrganization(baseUrl: string, { owner, members }: typeof SMALL): Promise<string> {
  const organization = { organization_name: `bench ${members}`, organization_description: '' };
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

/** Seeds the users and the organization of 100, and with `big` the organization of 10,000. */
export async function seed(baseUrl: string, { big }: { big: boolean }): Promise<Seeded> {
  await seedUsers(baseUrl, SMALL.owner, SMALL.members + SPARES.count);
  if (big) await seedUsers(baseUrl, BIG.owner, BIG.members);
  return { small: await seedOrganization(baseUrl, SMALL), big: big ? await seedOrganization(baseUrl, BIG) : undefined };
}

/** How many users `seed` creates. */
export const usersSeeded = ({ big }: { big: boolean }) => SMALL.members + SPARES.count + (big ? BIG.members : 0);
