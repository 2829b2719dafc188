/**
 * The scenarios (a) to (o), written once for `npm run bench` (bench/run.ts) and `npm run bench:ab`
 * (bench/ab.ts), which measure them each its own way: each scenario's letter, name, connections,
 * the load it drives (autocannon options) built from the seeded data (bench/seed.ts) for a run,
 * whether it is a fixed amount of requests, how what it changes is put back, and for some what
 * their answer must be before they are measured.
 */
import type autocannon from 'autocannon';
import type mysql from 'mysql2/promise';
import { pooled } from '../tests/support/pooled.ts';
import { restCall } from '../tests/support/rest-call.ts';
import { addsAndRemoves, newUsers, organizationCreations, roleFlips } from './loads.ts';
import { CHECKED_PERMISSIONS } from './permissions.ts';
import { callAs, CROSS, email, ownerToken, SMALL, SPARES, TEAM_MEMBER, TEAMS, userId, type Seeded } from './seed.ts';

/** autocannon's options for a run; `path`, that of a run of one request, goes into the URL. */
export type Load = Partial<autocannon.Options> & { path?: string };

/** How much a run sends: so many requests, or for so many seconds. */
export type RunSize = { amount: number } | { duration: number };

/** One run of a scenario's load: a warm-up or a measured run. */
export interface Run {
  /** Unique to the run: a scenario that creates records names them with it. */
  id: string;
  /** What the load is built for: (g) signs a caller for each request the run may send. */
  size: RunSize;
}

/** Where a reset puts things back. */
export interface ResetTarget {
  baseUrl: string;
  seeded: Seeded;
  database: mysql.Connection;
}

export interface Scenario {
  letter: string;
  name: string;
  connections: number;
  /**
   * Requests in all, when `npm run bench` measures the time a fixed job takes instead of a rate
   * (`npm run bench:ab` times every scenario, in its rounds).
   */
  amount?: number;
  load: (seeded: Seeded, run: Run) => Promise<Load>;
  /** Puts back what the scenario changes, so that the next run starts from the seeded data. */
  reset?: (target: ResetTarget) => Promise<void>;
  /**
   * Throws unless the server at `baseUrl` answers as the scenario means it to, before it is
   * measured: a rate of wrong answers measures nothing.
   */
  verify?: (baseUrl: string, seeded: Seeded) => Promise<void>;
}

/**
 * The connections of the scenarios that keep many requests in flight; BENCH_CONNECTIONS sets fewer,
 * for CPU profiles that show the servers' own work rather than their waits on a busy machine.
 */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const CREATED_ORGANIZATION_NAME = 'bench created';
/** `statement` run until it is not chosen as a deadlock's victim (MariaDB's errno 1213), at most 5 times. */
async function againAfterDeadlock(statement: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await statement();
      return;
    } catch (error) {
      if ((error as { errno?: number }).errno !== 1213 || attempt === 5) throw error;
    }
  }
}

/** More users a second than either server creates on this machine: what (g) signs for a timed run. */
const MOST_CREATIONS_PER_SECOND = 6_000;
/** (f)'s spare users handed out so far: each connection of each run takes the next (see SPARES). */
let sparesTaken = 0;

/** A member (role `member`) of the organization of 100 whom no scenario changes: (e) flips the first 32. */
const CHECKING_MEMBER = SMALL.owner + SMALL.members - 1;

/** `POST /organizations/{id}/permissions/check` of `permissions`, by `member` of their own. */
async function permissionChecks(seeded: Seeded, member: number, permissions: string[]): Promise<Load> {
  return {
    method: 'POST',
    path: `/organizations/${seeded.small}/permissions/check`,
    headers: { authorization: `Bearer ${await ownerToken(member)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ permissions }),
  };
}

/** Throws unless `member`'s check of `permissions` at `baseUrl` is a 200 whose `allowed` is `allowed`. */
async function assertCheck(
  baseUrl: string,
  seeded: Seeded,
  member: number,
  permissions: string[],
  allowed: boolean,
): Promise<void> {
  const path = `/organizations/${seeded.small}/permissions/check`;
  const answer = await restCall(baseUrl, 'POST', path, await ownerToken(member), { permissions });
  if (answer.status !== 200 || answer.body.allowed !== allowed) {
    throw new Error(
      `${baseUrl}: ${userId(member)}'s check of ${permissions.join(', ')} should be allowed: ${allowed}, was ${answer.status} ${JSON.stringify(answer.body)}`,
    );
  }
}

/** (k) checks through TEAMS, which are seeded only when asked for. */
function assertTeamsSeeded(seeded: Seeded): void {
  if (!seeded.teams) throw new Error('(k) checks a member of teams: seed them (seed(…, { teams: true }))');
}

/** The owner of the organization of 100, reading it. */
async function smallOwnerReads(seeded: Seeded, path: string): Promise<Load> {
  return { path, headers: { authorization: `Bearer ${await ownerToken(SMALL.owner)}`, organization_id: seeded.small } };
}

/** The member read of (b) and (m). */
const MEMBER_READ = `/organization-user/${userId(SMALL.owner + 50)}`;

export const SCENARIOS: Scenario[] = [
  {
    letter: 'a',
    name: 'GET /api/users',
    connections: CONNECTIONS,
    load: async () => ({ path: '/api/users', headers: { authorization: `Bearer ${await ownerToken(SMALL.owner)}` } }),
  },
  {
    letter: 'b',
    name: 'GET /organization-user/{id}, 100',
    connections: CONNECTIONS,
    load: (seeded) => smallOwnerReads(seeded, MEMBER_READ),
  },
  {
    letter: 'c',
    name: 'GET /organization-user, 100',
    connections: CONNECTIONS,
    load: (seeded) => smallOwnerReads(seeded, '/organization-user'),
  },
  {
    letter: 'd',
    name: 'GET /organization-user, 10,000',
    connections: 4,
    load: async ({ big }) => {
      if (!big) throw new Error('(d) reads the organization of 10,000: seed it');
      return {
        path: '/organization-user',
        headers: { authorization: `Bearer ${await ownerToken(0)}`, organization_id: big },
      };
    },
  },
  {
    letter: 'e',
    name: 'PUT /organization-user, role flip',
    connections: CONNECTIONS,
    load: async (seeded) => {
      const token = await ownerToken(SMALL.owner);
      let nextMember = SMALL.owner + 1;
      return roleFlips(() => ({ ownerToken: token, organizationId: seeded.small, userId: userId(nextMember++) }));
    },
  },
  {
    letter: 'f',
    name: 'POST then DELETE /organization-user',
    connections: CONNECTIONS,
    load: async (seeded) =>
      addsAndRemoves(await ownerToken(SMALL.owner), seeded.small, () => {
        const spare = SPARES.from + (sparesTaken++ % SPARES.count);
        return { userId: userId(spare), email: email(spare) };
      }),
    // A run stops between a POST and its DELETE: the spares still in the organization leave it.
    reset: async ({ baseUrl, seeded }) => {
      await pooled(SPARES.count, 8, (offset) =>
        callAs(
          baseUrl,
          {
            method: 'DELETE',
            path: '/organization-user',
            as: SMALL.owner,
            body: { user_id: userId(SPARES.from + offset) },
            organizationId: seeded.small,
          },
          [404],
        ),
      );
    },
  },
  {
    letter: 'g',
    name: 'POST /users, a new caller each',
    connections: CONNECTIONS,
    amount: 10_000,
    // A few more callers signed than requests sent (see newUsers).
    load: (_, { id, size }) =>
      newUsers(`bench-new-${id}`, 64 + ('amount' in size ? size.amount : size.duration * MOST_CREATIONS_PER_SECOND)),
    reset: async ({ database }) => {
      await database.query("delete from users where id like 'bench-new-%'");
    },
  },
  {
    letter: 'h',
    name: 'POST /organizations',
    connections: CONNECTIONS,
    // One creator per connection: members of the organization of 100.
    load: async () => {
      const creators = Array.from({ length: CONNECTIONS }, (_, index) => ownerToken(SMALL.owner + 1 + index));
      return organizationCreations(await Promise.all(creators), CREATED_ORGANIZATION_NAME);
    },
    reset: async ({ database }) => {
      // Creations still under way when the run ended may deadlock with the deletes: they go again.
      await againAfterDeadlock(() =>
        database.query(
          `delete e from organization_events e join organizations o on o.id = e.organization_id where o.name = ?`,
          [CREATED_ORGANIZATION_NAME],
        ),
      );
      await againAfterDeadlock(() =>
        database.query('delete from organizations where name = ?', [CREATED_ORGANIZATION_NAME]),
      );
    },
  },
  {
    letter: 'i',
    name: 'POST .../permissions/check, 1 permission',
    connections: CONNECTIONS,
    load: (seeded) => permissionChecks(seeded, CHECKING_MEMBER, ['members:read']),
    // Through the member's own role: what (k), through a team, is measured against.
    verify: (baseUrl, seeded) => assertCheck(baseUrl, seeded, CHECKING_MEMBER, ['members:read'], true),
  },
  {
    letter: 'j',
    name: 'POST .../permissions/check, 20 permissions',
    connections: CONNECTIONS,
    load: (seeded) => permissionChecks(seeded, CHECKING_MEMBER, CHECKED_PERMISSIONS),
  },
  {
    letter: 'k',
    name: `POST .../permissions/check, 1 permission from 1 of ${TEAMS.count} teams`,
    connections: CONNECTIONS,
    load: (seeded) => {
      assertTeamsSeeded(seeded);
      return permissionChecks(seeded, TEAM_MEMBER, [TEAMS.permission]);
    },
    // Allowed to the member of the teams, and not to CHECKING_MEMBER, of the same role and in no
    // team: the permission comes from a team.
    verify: async (baseUrl, seeded) => {
      assertTeamsSeeded(seeded);
      await assertCheck(baseUrl, seeded, TEAM_MEMBER, [TEAMS.permission], true);
      await assertCheck(baseUrl, seeded, CHECKING_MEMBER, [TEAMS.permission], false);
    },
  },
  {
    letter: 'l',
    name: `PUT /organization-user, role flip in ${CROSS.organizations} organizations`,
    connections: CONNECTIONS,
    // Connection k flips the member of organization k modulo their number, as its owner.
    load: async ({ cross }) => {
      const tokens = await Promise.all(cross.map((_, index) => ownerToken(CROSS.owner(index))));
      let nextConnection = 0;
      return roleFlips(() => {
        const index = nextConnection++ % cross.length;
        return { ownerToken: tokens[index]!, organizationId: cross[index]!, userId: userId(CROSS.member(index)) };
      });
    },
  },
  {
    letter: 'm',
    name: 'GET /organization-user/{id}, 100, with an API key',
    connections: CONNECTIONS,
    // (b)'s read, by the organization's API key (role member) instead of its owner's token.
    load: ({ organizationKey, small }) => {
      if (!organizationKey) throw new Error('(m) reads with an API key: seed it (seed(…, { key: true }))');
      return Promise.resolve({
        path: MEMBER_READ,
        headers: { authorization: `Bearer ${organizationKey}`, organization_id: small },
      });
    },
  },
  {
    letter: 'n',
    name: 'GET /organization-user?search=<a full e-mail>&limit=50, 100',
    connections: CONNECTIONS,
    // A member found by their e-mail address (behaviour §15), as a console's search box asks.
    load: (seeded) =>
      smallOwnerReads(seeded, `/organization-user?search=${encodeURIComponent(email(SMALL.owner + 50))}&limit=50`),
  },
  {
    letter: 'o',
    name: 'GET /organization-user?search=fi&limit=50, 100',
    connections: CONNECTIONS,
    // Two letters typed in a console's search box: every member's first name begins with them, so
    // the page is full (50 of 100), where (n) finds one member.
    load: (seeded) => smallOwnerReads(seeded, `/organization-user?search=fi&limit=50`),
  },
];

/** The scenarios named by their letters (`abe`), in their order; an unknown letter throws. */
export function scenariosOf(letters: string): Scenario[] {
  const unknown = [...letters].filter((letter) => !SCENARIOS.some((scenario) => scenario.letter === letter));
  if (unknown.length) {
    const known = SCENARIOS.map((scenario) => scenario.letter).join('');
    throw new Error(`No scenario ${unknown.join(', ')}: the scenarios are ${known}`);
  }
  return SCENARIOS.filter((scenario) => letters.includes(scenario.letter));
}

/** `(a) GET /api/users`. */
export const title = (scenario: Scenario) => `(${scenario.letter}) ${scenario.name}`;

/** autocannon's options for a run of `load`, a scenario's, against the server at `baseUrl`. */
export function autocannonOptions(baseUrl: string, scenario: Scenario, load: Load, size: RunSize): autocannon.Options {
  const { path, ...options } = load;
  return { url: `${baseUrl}${path ?? ''}`, connections: scenario.connections, ...size, ...options };
}
