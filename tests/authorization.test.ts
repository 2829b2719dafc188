/**
 * Authorization in one place (behaviour §3.2, §11): every procedure of the router declares who may
 * call it, and every organization procedure refuses, 403, an actor who lacks exactly the permission
 * it declares, changing nothing, over tRPC as clients call it. The table is the router itself
 * (procedureMetas), so a procedure added without a declaration, or without a sample input here,
 * fails this file with its name.
 *
 * Each organization procedure is called with a valid sample input on fixtures the owner made (a
 * colleague in a team, a role, an invitation, a webhook endpoint with a failed delivery) by a member
 * whose role, one of the organization's own, holds every permission a role may hold but the
 * declared one (the owners-only permissions: the built-in admin); ANY_MEMBER, by a non-member. An
 * `orSelf` procedure is called on the colleague, so that the self exception does not apply. Then
 * the owner makes the same call, which must succeed: the 403 was the permission's, not the input's
 * (the application's key makes it for a permission of the application's own, which no role holds).
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type RouterInputs } from '../client/src/index.ts';
import { appRouter } from '../server/modules/router.ts';
import { acceptedBy, ANY_MEMBER, requirementName, type Requirement } from '../server/platform/authorization/access.ts';
import { APPLICATION_ONLY, isGrantable, SERVICE_PERMISSIONS } from '../server/platform/role-catalogue.ts';
import { procedureMetas, type Meta } from '../server/platform/rpc/init.ts';
import type { AuditEvent } from '../shared/events.ts';
import type { TeamView } from '../shared/teams.ts';
import type { WebhookView } from '../shared/webhooks.ts';
import { createApplicationKey } from './support/application-keys.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addVerifiedDomain, registerUserAt, uniqueDomain } from './support/domains.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { createRole, rolesPath } from './support/roles.ts';
import { useServer } from './support/server.ts';
import { addToTeam, createTeam, teamMembersPath, teamsPath } from './support/teams.ts';
import { createWebhook, deliveriesOf, deliveriesPath, webhooksPath } from './support/webhooks.ts';

/** `users.me`, `teams.addMember`…: every procedure path of the router, as the client types it. */
type ProcedurePath = {
  [Router in keyof RouterInputs]: `${Router}.${keyof RouterInputs[Router] & string}`;
}[keyof RouterInputs];

type InputOf<Path extends ProcedurePath> = Path extends `${infer Router extends keyof RouterInputs}.${infer Name}`
  ? RouterInputs[Router][Name & keyof RouterInputs[Router]]
  : never;

/** What an organization's sample inputs refer to, made by its owner (setUpOrganization). */
interface Fixtures {
  organizationId: string;
  /** A member (role member) who is in the team: the other user of the `orSelf` procedures. */
  colleague: TestUser;
  /** A member in no team. */
  newcomer: TestUser;
  /** A user who is not a member. */
  candidate: TestUser;
  teamId: string;
  /** A role of the organization's own that no member or invitation holds. */
  role: string;
  /** A pending invitation. */
  invitationId: string;
  /** An endpoint on http://127.0.0.1:9, which refuses connections, asking for organization.updated. */
  webhookId: string;
  /** Its one delivery, failed: no attempt of it is due any more. */
  deliveryId: string;
  /** The organization's first event (organization.created). */
  firstEventId: string;
  /** An API key of the organization's (role member). */
  apiKeyId: string;
  /** The organization's slug. */
  slug: string;
  /** A domain of the organization, verified (by its adder's verified e-mail), enrollment suggestion. */
  domainId: string;
  /** A pending join request by a person at that domain. */
  requestId: string;
}

interface Sample<Path extends ProcedurePath> {
  input: (fixtures: Fixtures) => InputOf<Path>;
  /** The owner's call uses up a fixture: it is made on fixtures of its own. */
  destructive?: true;
}

/**
 * A valid input of each organization procedure, which the owner's call carries out. A procedure
 * added to the router needs one here (the test says so, naming it).
 */
const SAMPLES: { [Path in ProcedurePath]?: Sample<Path> } = {
  'organizations.get': { input: (f) => ({ organization_id: f.organizationId }) },
  'organizations.getBySlug': { input: (f) => ({ slug: f.slug }) },
  'organizations.updateMetadata': {
    input: (f) => ({ organization_id: f.organizationId, public_metadata: { sample: true } }),
  },
  'organizations.setLimits': { input: (f) => ({ organization_id: f.organizationId, max_members: 1000 }) },
  'organizations.update': {
    input: (f) => ({ organization_id: f.organizationId, organization_description: 'Changed by a sample' }),
  },
  'organizations.remove': { input: (f) => ({ organization_id: f.organizationId }), destructive: true },
  'organizations.transferOwnership': {
    input: (f) => ({ organization_id: f.organizationId, user_id: f.colleague.id }),
    destructive: true,
  },
  'members.add': { input: (f) => ({ email: f.candidate.email, role: 'member' }) },
  'members.changeRole': { input: (f) => ({ user_id: f.colleague.id, role: 'admin' }) },
  'members.remove': { input: (f) => ({ user_id: f.colleague.id }), destructive: true },
  'members.get': { input: (f) => ({ user_id: f.colleague.id }) },
  'members.list': { input: () => ({}) },
  'members.page': { input: () => ({ limit: 10 }) },
  'members.details': { input: (f) => ({ organization_id: f.organizationId, user_id: f.colleague.id }) },
  'members.updateMetadata': {
    input: (f) => ({ organization_id: f.organizationId, user_id: f.colleague.id, public_metadata: { sample: 1 } }),
  },
  'invitations.create': {
    input: (f) => ({ organization_id: f.organizationId, email: 'sample-invitee@example.com', role: 'member' }),
  },
  'invitations.list': { input: (f) => ({ organization_id: f.organizationId }) },
  'invitations.revoke': {
    input: (f) => ({ organization_id: f.organizationId, invitation_id: f.invitationId }),
    destructive: true,
  },
  'events.list': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'events.page': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'events.watch': { input: (f) => ({ organization_id: f.organizationId, lastEventId: f.firstEventId }) },
  'permissions.mine': { input: (f) => ({ organization_id: f.organizationId }) },
  'permissions.check': {
    input: (f) => ({ organization_id: f.organizationId, permissions: ['organization:read'], user_id: f.colleague.id }),
  },
  'roles.list': { input: (f) => ({ organization_id: f.organizationId }) },
  'roles.create': {
    input: (f) => ({ organization_id: f.organizationId, role: 'sample-role', permissions: ['organization:read'] }),
  },
  'roles.update': { input: (f) => ({ organization_id: f.organizationId, role: f.role, description: 'Changed' }) },
  'roles.remove': { input: (f) => ({ organization_id: f.organizationId, role: f.role }), destructive: true },
  'teams.list': { input: (f) => ({ organization_id: f.organizationId }) },
  'teams.page': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'teams.create': { input: (f) => ({ organization_id: f.organizationId, name: 'Sample team' }) },
  'teams.get': { input: (f) => ({ organization_id: f.organizationId, team_id: f.teamId }) },
  'teams.update': { input: (f) => ({ organization_id: f.organizationId, team_id: f.teamId, description: 'Changed' }) },
  'teams.remove': { input: (f) => ({ organization_id: f.organizationId, team_id: f.teamId }), destructive: true },
  'teams.members': { input: (f) => ({ organization_id: f.organizationId, team_id: f.teamId }) },
  'teams.membersPage': { input: (f) => ({ organization_id: f.organizationId, team_id: f.teamId, limit: 10 }) },
  'teams.addMember': {
    input: (f) => ({ organization_id: f.organizationId, team_id: f.teamId, user_id: f.newcomer.id }),
  },
  'teams.removeMember': {
    input: (f) => ({ organization_id: f.organizationId, team_id: f.teamId, user_id: f.colleague.id }),
    destructive: true,
  },
  'webhooks.list': { input: (f) => ({ organization_id: f.organizationId }) },
  'webhooks.page': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'webhooks.create': {
    input: (f) => ({
      organization_id: f.organizationId,
      url: 'http://127.0.0.1:9/sample',
      event_types: ['organization.updated'],
    }),
  },
  'webhooks.get': { input: (f) => ({ organization_id: f.organizationId, webhook_id: f.webhookId }) },
  'webhooks.update': {
    input: (f) => ({ organization_id: f.organizationId, webhook_id: f.webhookId, description: 'Changed' }),
  },
  'webhooks.remove': {
    input: (f) => ({ organization_id: f.organizationId, webhook_id: f.webhookId }),
    destructive: true,
  },
  'webhooks.rotateSecret': { input: (f) => ({ organization_id: f.organizationId, webhook_id: f.webhookId }) },
  'webhooks.deliveries': { input: (f) => ({ organization_id: f.organizationId, webhook_id: f.webhookId }) },
  'webhooks.deliveriesPage': {
    input: (f) => ({ organization_id: f.organizationId, webhook_id: f.webhookId, limit: 10 }),
  },
  'webhooks.retryDelivery': {
    input: (f) => ({ organization_id: f.organizationId, webhook_id: f.webhookId, delivery_id: f.deliveryId }),
  },
  'webhooks.sendTest': { input: (f) => ({ organization_id: f.organizationId, webhook_id: f.webhookId }) },
  'apiKeys.create': { input: (f) => ({ organization_id: f.organizationId, name: 'Sample key', role: 'member' }) },
  'apiKeys.list': { input: (f) => ({ organization_id: f.organizationId }) },
  'apiKeys.page': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'apiKeys.get': { input: (f) => ({ organization_id: f.organizationId, key_id: f.apiKeyId }) },
  'apiKeys.revoke': { input: (f) => ({ organization_id: f.organizationId, key_id: f.apiKeyId }), destructive: true },
  'domains.add': { input: (f) => ({ organization_id: f.organizationId, domain: uniqueDomain('sample') }) },
  'domains.list': { input: (f) => ({ organization_id: f.organizationId }) },
  'domains.page': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'domains.get': { input: (f) => ({ organization_id: f.organizationId, domain_id: f.domainId }) },
  // Verified already: the owner's call asks no resolver.
  'domains.verify': { input: (f) => ({ organization_id: f.organizationId, domain_id: f.domainId }) },
  'domains.update': {
    input: (f) => ({ organization_id: f.organizationId, domain_id: f.domainId, enrollment: 'automatic' }),
  },
  'domains.remove': { input: (f) => ({ organization_id: f.organizationId, domain_id: f.domainId }), destructive: true },
  'directory.get': { input: (f) => ({ organization_id: f.organizationId }) },
  'directory.update': { input: (f) => ({ organization_id: f.organizationId, default_role: f.role }) },
  'directory.users': { input: (f) => ({ organization_id: f.organizationId }) },
  'directory.usersPage': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'directory.groups': { input: (f) => ({ organization_id: f.organizationId }) },
  'directory.groupsPage': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'joining.requests': { input: (f) => ({ organization_id: f.organizationId }) },
  'joining.requestsPage': { input: (f) => ({ organization_id: f.organizationId, limit: 10 }) },
  'joining.approve': {
    input: (f) => ({ organization_id: f.organizationId, request_id: f.requestId }),
    destructive: true,
  },
  'joining.reject': {
    input: (f) => ({ organization_id: f.organizationId, request_id: f.requestId }),
    destructive: true,
  },
};

const PROCEDURES = procedureMetas(appRouter);

/** The procedures that act in an organization: those declaring a permission (or ANY_MEMBER). */
const ORGANIZATION_PROCEDURES = PROCEDURES.filter(
  (entry): entry is [string, Meta & { permission: Requirement }] => entry[1]?.permission !== undefined,
);

/** 'query', 'mutation' or 'subscription': tRPC keeps procedures by dotted path, as procedureMetas reads them. */
const procedureType = (path: string): string =>
  (appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)[path]!._def.type;

function sampleOf(path: string): Sample<ProcedurePath> {
  const sample = SAMPLES[path as ProcedurePath];
  if (!sample) {
    expect.fail(
      `${path} has no sample input: add one to SAMPLES in tests/authorization.test.ts, ` +
        'an input its owner may send, on the fixtures of setUpOrganization',
    );
  }
  return sample;
}

/** A role may hold every permission but the owners' own (there is no roles file here). */
const GRANTABLE = Object.keys(SERVICE_PERMISSIONS).filter(isGrantable);

/** A subscription of the typed client, as far as this test uses one. */
interface Subscribable {
  subscribe(
    input: unknown,
    handlers: {
      onData: () => void;
      onError: (error: { message: string; data?: { code?: string; httpStatus?: number } }) => void;
      onComplete: () => void;
    },
  ): { unsubscribe(): void };
}

/** How a call was refused, or not: its HTTP status, the service's error code and message. */
interface Outcome {
  status: number;
  code?: string;
  message?: string;
}

describe('who may call each procedure', () => {
  it.each(PROCEDURES)('%s declares it', (path, meta) => {
    expect(
      meta?.permission ?? meta?.access,
      `${path} declares no one: start it from organizationProcedure({ from, may }), callerProcedure or ` +
        'creatorProcedure (server/platform/rpc/procedures.ts)',
    ).toBeDefined();
  });

  it('has a sample input for organization procedures only', () => {
    const organizationPaths = ORGANIZATION_PROCEDURES.map(([path]) => path);
    expect(Object.keys(SAMPLES).filter((path) => !organizationPaths.includes(path))).toEqual([]);
  });
});

describeOnEachDatabase('authorization of every organization procedure', (target) => {
  const server = useServer(target, {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // The fixture delivery fails for good soon after it is made (127.0.0.1:9 refuses connections),
    // so that nothing changes it while the tests look.
    WEBHOOK_RETRY_SCHEDULE: '10ms',
    WEBHOOK_POLL_INTERVAL_MS: '50',
  });
  let owner: TestUser;
  /** The application's key, as a caller. */
  let application: TestUser;
  let people: Pick<Fixtures, 'colleague' | 'newcomer' | 'candidate'>;
  /** The fixtures the refused calls are made on, and then the owner's that use up nothing. */
  let fixtures: Fixtures;
  /** For each requirement, a member of fixtures' organization lacking it (ANY_MEMBER: a non-member). */
  const actors = new Map<string, TestUser>();

  async function ownerGet<T = any>(path: string, organizationId?: string): Promise<T> {
    const answer = await server().call('GET', path, { token: owner.token, organizationId });
    expect(answer.status, `GET ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
    return answer.body;
  }

  async function setUpOrganization(): Promise<Fixtures> {
    const organizationId = await createOrganization(server(), owner);
    const { colleague, newcomer } = people;
    await addMember(server(), owner, organizationId, colleague, 'member');
    await addMember(server(), owner, organizationId, newcomer, 'member');
    const role = (await createRole(server(), owner, organizationId, 'fixture-role', ['organization:read'])).role;
    const teamId = (await createTeam(server(), owner, organizationId, 'Fixture team')).team_id;
    await addToTeam(server(), owner, organizationId, teamId, colleague);
    const invited = await server().call('POST', `/organizations/${organizationId}/invitations`, {
      token: owner.token,
      body: { email: `${uniqueId('invitee')}@example.com`, role: 'member' },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const webhookId = (
      await createWebhook(server(), owner, organizationId, {
        url: 'http://127.0.0.1:9/hook',
        event_types: ['organization.updated'],
      })
    ).webhook_id;
    const updated = await server().call('PUT', `/organizations/${organizationId}`, {
      token: owner.token,
      body: { organization_description: 'Updated, for a delivery' },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    // vi.waitFor, not expect.poll: this runs in beforeAll too.
    const delivery = await vi.waitFor(
      async () => {
        const deliveries = await deliveriesOf(server(), owner, organizationId, webhookId);
        expect(deliveries.map(({ status }) => status)).toEqual(['failed']);
        return deliveries[0]!;
      },
      { timeout: 20_000, interval: 50 },
    );
    const key = await server().call('POST', `/organizations/${organizationId}/api-keys`, {
      token: owner.token,
      body: { name: 'Fixture key', role: 'member' },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    // A domain verified by its adder's e-mail, and a person of it asking to join.
    const domainAdmin = await registerUserAt(server(), uniqueDomain('fixture'));
    await addMember(server(), owner, organizationId, domainAdmin, 'admin');
    const domainId = await addVerifiedDomain(server(), domainAdmin, organizationId);
    const suggesting = await server().call('PUT', `/organizations/${organizationId}/domains/${domainId}`, {
      token: owner.token,
      body: { enrollment: 'suggestion' },
    });
    expect(suggesting.status, JSON.stringify(suggesting.body)).toBe(200);
    const requester = await registerUserAt(server(), domainAdmin.email.split('@')[1]!);
    const asked = await server().call('POST', `/organizations/${organizationId}/join`, { token: requester.token });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const [first] = await ownerGet<AuditEvent[]>(`/organizations/${organizationId}/events?limit=1`);
    const { slug } = await ownerGet<{ slug: string }>(`/organizations/${organizationId}`);
    return {
      slug,
      domainId,
      requestId: asked.body.request_id,
      apiKeyId: key.body.key_id,
      organizationId,
      ...people,
      teamId,
      role,
      invitationId: invited.body.invitation_id,
      webhookId,
      deliveryId: delivery.delivery_id,
      firstEventId: first!.event_id,
    };
  }

  /** A member of the organization whose role holds every permission a role may hold but `lacking`. */
  async function memberLacking(organizationId: string, lacking: readonly string[]): Promise<TestUser> {
    const role = `lacks-${lacking.join('-').replaceAll(':', '-')}`;
    await createRole(
      server(),
      owner,
      organizationId,
      role,
      GRANTABLE.filter((held) => !lacking.includes(held)),
    );
    const member = await registerUser(server(), role);
    await addMember(server(), owner, organizationId, member, role);
    return member;
  }

  /**
   * Everything of the organization a change could touch, as its owner reads it: the organization,
   * its events (every change records one, but a delivery's retry), members, roles, teams and their
   * members, invitations, webhooks and their deliveries.
   */
  async function snapshot(organizationId: string) {
    const [
      organization,
      events,
      members,
      roles,
      teams,
      invitations,
      webhooks,
      apiKeys,
      domains,
      joinRequests,
      directory,
    ] = await Promise.all([
      ownerGet(`/organizations/${organizationId}`),
      ownerGet<AuditEvent[]>(`/organizations/${organizationId}/events?limit=1000`),
      ownerGet('/organization-user', organizationId),
      ownerGet(rolesPath(organizationId)),
      ownerGet<TeamView[]>(teamsPath(organizationId)),
      ownerGet(`/organizations/${organizationId}/invitations`),
      ownerGet<WebhookView[]>(webhooksPath(organizationId)),
      ownerGet(`/organizations/${organizationId}/api-keys`),
      ownerGet(`/organizations/${organizationId}/domains`),
      ownerGet(`/organizations/${organizationId}/join-requests`),
      ownerGet(`/organizations/${organizationId}/directory`),
    ]);
    // All of them, not a first page.
    expect(events.length).toBeLessThan(1000);
    const teamMembers = await Promise.all(
      teams.map(({ team_id }) => ownerGet(teamMembersPath(organizationId, team_id))),
    );
    const deliveries = await Promise.all(
      webhooks.map(({ webhook_id }) => ownerGet(deliveriesPath(organizationId, webhook_id))),
    );
    return {
      organization,
      events,
      members,
      roles,
      teams,
      teamMembers,
      invitations,
      webhooks,
      deliveries,
      apiKeys,
      domains,
      joinRequests,
      directory,
    };
  }

  /** A query (GET) or mutation (POST) over tRPC, the organization named in the header too. */
  async function callOverTrpc(path: string, input: unknown, caller: TestUser, organizationId: string) {
    const options = { token: caller.token, organizationId };
    return procedureType(path) === 'query'
      ? server().call('GET', `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, options)
      : server().call('POST', `/trpc/${path}`, { ...options, body: input });
  }

  async function outcomeOverTrpc(path: string, input: unknown, caller: TestUser, organizationId: string) {
    const { status, body } = await callOverTrpc(path, input, caller, organizationId);
    return { status, code: body?.error?.data?.code, message: body?.error?.message };
  }

  /**
   * A subscription through the typed client: how it was refused, or, if it delivered an event
   * first, a 200.
   */
  async function subscriptionOutcome(path: string, input: unknown, caller: TestUser): Promise<Outcome> {
    const api = createClient({ url: server().baseUrl, token: caller.token });
    const [router, name] = path.split('.') as [string, string];
    const procedure = (api as unknown as Record<string, Record<string, Subscribable>>)[router]![name]!;
    return new Promise((resolve) => {
      const subscription = procedure.subscribe(input, {
        // Resolved before unsubscribing, which completes the subscription.
        onData: () => {
          resolve({ status: 200 });
          subscription.unsubscribe();
        },
        onError: (error) => {
          resolve({ status: error.data?.httpStatus ?? 0, code: error.data?.code, message: error.message });
          subscription.unsubscribe();
        },
        onComplete: () => resolve({ status: 0, message: 'completed without an event' }),
      });
    });
  }

  const outcomeOf = (path: string, input: unknown, caller: TestUser, organizationId: string) =>
    procedureType(path) === 'subscription'
      ? subscriptionOutcome(path, input, caller)
      : outcomeOverTrpc(path, input, caller, organizationId);

  beforeAll(async () => {
    owner = await registerUser(server(), 'owner');
    application = { id: 'application', email: '', token: await createApplicationKey(server()) };
    people = {
      colleague: await registerUser(server(), 'colleague'),
      newcomer: await registerUser(server(), 'newcomer'),
      candidate: await registerUser(server(), 'candidate'),
    };
    fixtures = await setUpOrganization();
    const admin = await registerUser(server(), 'admin');
    await addMember(server(), owner, fixtures.organizationId, admin, 'admin');
    actors.set(ANY_MEMBER, await registerUser(server(), 'outsider'));
    for (const [, { permission }] of ORGANIZATION_PROCEDURES) {
      if (actors.has(requirementName(permission))) continue;
      const accepted = acceptedBy(permission);
      actors.set(
        requirementName(permission),
        accepted.every(isGrantable) ? await memberLacking(fixtures.organizationId, accepted) : admin,
      );
    }
  });

  describe('refused to an actor lacking what it declares, 403, changing nothing', () => {
    it.each(ORGANIZATION_PROCEDURES)('%s', async (path, meta) => {
      const input = sampleOf(path).input(fixtures);
      const actor = actors.get(requirementName(meta.permission))!;
      if (meta.orSelf !== undefined) {
        // On another user: acting on oneself would need membership only.
        const actedOn = (input as Record<string, unknown>)[meta.orSelf];
        expect(actedOn, `${path}'s sample must name another user in ${meta.orSelf}`).toEqual(expect.any(String));
        expect(actedOn).not.toBe(actor.id);
      }
      const before = await snapshot(fixtures.organizationId);
      const refused = await outcomeOf(path, input, actor, fixtures.organizationId);
      expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(refused.message).toContain(
        meta.permission === ANY_MEMBER
          ? 'You are not a member of this organization'
          : `(${requirementName(meta.permission)})`,
      );
      expect(await snapshot(fixtures.organizationId)).toEqual(before);
    });
  });

  describe("carried out for the owner with the same input (the 403 above was the permission's)", () => {
    // In the router's order, after every refusal: those that use a fixture up get fixtures of their own.
    it.each(ORGANIZATION_PROCEDURES)('%s', async (path, meta) => {
      const sample = sampleOf(path);
      const on = sample.destructive ? await setUpOrganization() : fixtures;
      // No role holds an application permission: the application's key carries it out instead.
      const caller = acceptedBy(meta.permission).some((permission) => APPLICATION_ONLY.includes(permission))
        ? application
        : owner;
      const outcome = await outcomeOf(path, sample.input(on), caller, on.organizationId);
      expect([200, 201, 202], JSON.stringify(outcome)).toContain(outcome.status);
    });
  });
});
