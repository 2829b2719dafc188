/**
 * Seat-limit races (behaviour §16): many adds, invitations or acceptances at once against an
 * organization's `max_members`, spread over one or more instances of the service, end exactly at
 * the limit, every other request answered 409 `MEMBER_LIMIT`. For tests/seat-limits.test.ts (one
 * server, each database) and tests/galera.test.ts (one instance per node of the cluster).
 */
import { expect } from 'vitest';
import { createOrganization, registerUser, type TestUser } from './fixtures.ts';
import { setMaxMembers } from './limits.ts';
import { pooled } from './pooled.ts';
import type { TestServer } from './server.ts';

/** Requests racing for the seats. */
export const CONTENDERS = 20;
/** The limit they race against: the owner and this many more fit. */
export const SEAT_LIMIT = 8;
/** Set-up requests in flight at once. */
const SETUP_CONCURRENCY = 4;

export type SeatWay = 'add' | 'invite' | 'accept';

interface Outcome {
  status: number;
  code?: string;
}

/** The organization's member count as GET /organizations/{organization_id} answers it. */
export async function memberCount(server: TestServer, owner: TestUser, organizationId: string): Promise<number> {
  const read = await server.call('GET', `/organizations/${organizationId}`, { token: owner.token });
  expect(read.status).toBe(200);
  return read.body.member_count;
}

async function invite(server: TestServer, owner: TestUser, organizationId: string, user: TestUser): Promise<Outcome> {
  const invited = await server.call('POST', `/organizations/${organizationId}/invitations`, {
    token: owner.token,
    body: { email: user.email, role: 'member' },
  });
  return { status: invited.status, code: invited.body?.code };
}

/**
 * CONTENDERS requests of one way at once, the n-th through `servers[n % servers.length]`, against
 * a limit of SEAT_LIMIT on an organization whose only member is its owner: exactly the seats left
 * are taken (the owner's counts, pending invitations too except for acceptances), the rest refused
 * with 409 MEMBER_LIMIT, and the count says so.
 */
export async function raceForSeats(servers: TestServer[], way: SeatWay): Promise<void> {
  const first = servers[0]!;
  const owner = await registerUser(first, `seat-owner-${way}`);
  const organizationId = await createOrganization(first, owner);
  const users = await pooled(CONTENDERS, SETUP_CONCURRENCY, () => registerUser(first, `seat-${way}`));
  const invitations =
    way === 'accept'
      ? await pooled(CONTENDERS, SETUP_CONCURRENCY, async (index) => {
          const invited = await first.call('POST', `/organizations/${organizationId}/invitations`, {
            token: owner.token,
            body: { email: users[index]!.email, role: 'member' },
          });
          expect(invited.status).toBe(201);
          return invited.body.invitation_id as string;
        })
      : [];
  // Set once the invitations are out: 20 pending ones against a limit of 8 refuse no acceptance by themselves.
  await setMaxMembers(first, organizationId, SEAT_LIMIT);

  const outcomes = await Promise.all(
    users.map(async (user, index): Promise<Outcome> => {
      const server = servers[index % servers.length]!;
      if (way === 'invite') return invite(server, owner, organizationId, user);
      const answer =
        way === 'add'
          ? await server.call('POST', '/organization-user', {
              token: owner.token,
              organizationId,
              body: { email: user.email, role: 'member' },
            })
          : await server.call('POST', `/invitations/${invitations[index]}/accept`, { token: user.token });
      return { status: answer.status, code: answer.body?.code };
    }),
  );
  const seatsLeft = SEAT_LIMIT - 1;
  const made = outcomes.filter((outcome) => outcome.status === 201);
  const refused = outcomes.filter((outcome) => outcome.status === 409 && outcome.code === 'MEMBER_LIMIT');
  expect({ made: made.length, refused: refused.length }, JSON.stringify(outcomes)).toEqual({
    made: seatsLeft,
    refused: CONTENDERS - seatsLeft,
  });
  for (const server of servers) {
    expect(await memberCount(server, owner, organizationId)).toBe(way === 'invite' ? 1 : SEAT_LIMIT);
  }
  if (way === 'invite') {
    const pending = await first.call('GET', `/organizations/${organizationId}/invitations?limit=100`, {
      token: owner.token,
    });
    expect(pending.body).toHaveLength(seatsLeft);
  }
}
