/**
 * The permission endpoints (behaviour §11) for the built-in roles, over REST (with and without /api)
 * and tRPC: a caller's own permissions, and the check of the caller's or another user's, answered
 * from the role in the database at that moment, on any instance. Behaviour §3.2's table, written
 * out in tests/support/permissions.ts, is what every answer is compared with.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createClient } from '../client/src/index.ts';
import {
  isGrantable,
  SERVICE_PERMISSIONS,
  type ServicePermission as Permission,
} from '../server/platform/role-catalogue.ts';
import { ROLES, type BuiltInRole as Role } from '../shared/fields.ts';
import { answersAroundChange } from './support/answers-around-change.ts';
import { rejection } from './support/api-errors.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { organizationWithRoles } from './support/lifecycle.ts';
import { EXPECTED } from './support/permissions.ts';
import { QUIET_WEBHOOKS, startTestServer, useServer, type TestServer } from './support/server.ts';

const ALL = Object.keys(SERVICE_PERMISSIONS) as Permission[];
const UNKNOWN_ORGANIZATION = '01900000-0000-7000-8000-000000000000';
/** Checks kept under way while the role they answer about is changed. */
const CHECKS_IN_FLIGHT = 20;

/** What a check of `permissions` answers for a user with `role` (none: not a member). */
function expectedCheck(userId: string, role: Role | undefined, permissions: readonly Permission[]) {
  const results = Object.fromEntries(permissions.map((name) => [name, role ? EXPECTED[role].includes(name) : false]));
  return { user_id: userId, allowed: Object.values(results).every(Boolean), results };
}

const badRequest = (...fields: string[]) => ({
  code: 'BAD_REQUEST',
  message: expect.any(String),
  issues: expect.arrayContaining(fields.map((field) => expect.objectContaining({ field }))),
});

describeOnEachDatabase('permission endpoints (behaviour §11)', (target) => {
  const server = useServer(target, { METRICS_PORT: '0', WEBHOOK_POLL_INTERVAL_MS: QUIET_WEBHOOKS });

  const permissionsPath = (organizationId: string, prefix = '') =>
    `${prefix}/organizations/${organizationId}/permissions`;
  const mine = (user: TestUser, organizationId: string, prefix = '', on: TestServer = server()) =>
    on.call('GET', permissionsPath(organizationId, prefix), { token: user.token });
  const check = (user: TestUser, organizationId: string, body: unknown, prefix = '', on: TestServer = server()) =>
    on.call('POST', `${permissionsPath(organizationId, prefix)}/check`, { token: user.token, body });
  const trpc = (user: TestUser, on: TestServer = server()) => createClient({ url: on.baseUrl, token: user.token });

  it(`answers no check with a role taken away after the change's answer, ${CHECKS_IN_FLIGHT} checks under way`, async () => {
    const owner = await registerUser(server(), 'demoting-owner');
    const organizationId = await createOrganization(server(), owner);
    const admin = await registerUser(server(), 'demoted-admin');
    await addMember(server(), owner, organizationId, admin, 'admin');
    const { before, change, after } = await answersAroundChange(server(), {
      inFlight: CHECKS_IN_FLIGHT,
      request: [
        'POST',
        `${permissionsPath(organizationId)}/check`,
        { token: admin.token, body: { permissions: ['members:add'] } },
      ],
      change: [
        'PUT',
        '/organization-user',
        { token: owner.token, organizationId, body: { user_id: admin.id, role: 'member' } },
      ],
    });
    expect(change.status).toBe(200);
    expect(after.length).toBeGreaterThanOrEqual(CHECKS_IN_FLIGHT);
    expect(after.filter((entry) => entry.body?.allowed !== false)).toEqual([]);
    expect(before.some((entry) => entry.body?.allowed === true)).toBe(true);
  });

  it("GET …/permissions answers each built-in role with behaviour §3.2's permissions, sorted, on REST and tRPC", async () => {
    const users = await organizationWithRoles(server());
    for (const role of ROLES) {
      const user = users[role];
      const expected = { user_id: user.id, role, teams: [], permissions: [...EXPECTED[role]].sort() };
      for (const prefix of ['', '/api']) {
        const answer = await mine(user, users.organizationId, prefix);
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual(expected);
      }
      expect(await trpc(user).permissions.mine.query({ organization_id: users.organizationId })).toEqual(expected);
    }
  });

  it('GET …/permissions: 403 to a non-member and for an unknown organization, 400 for a malformed id', async () => {
    const { owner, outsider, organizationId } = await organizationWithRoles(server());
    const denied = await mine(outsider, organizationId);
    expect(denied).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', message: expect.any(String) } });
    expect((await mine(owner, UNKNOWN_ORGANIZATION, '/api')).status).toBe(403);
    const malformed = await mine(owner, 'not-a-uuid');
    expect(malformed).toMatchObject({ status: 400, body: badRequest('organization_id') });
    const overTrpc = await rejection(trpc(outsider).permissions.mine.query({ organization_id: organizationId }));
    expect({ code: overTrpc.code, status: overTrpc.status }).toEqual({ code: 'FORBIDDEN', status: 403 });
  });

  it("checks the caller's own permissions, on REST and tRPC", async () => {
    const users = await organizationWithRoles(server());
    for (const role of ROLES) {
      const user = users[role];
      for (const permissions of [ALL, EXPECTED[role], ['organization:delete', 'members:read'] as Permission[]]) {
        const expected = expectedCheck(user.id, role, permissions);
        for (const prefix of ['', '/api']) {
          const answer = await check(user, users.organizationId, { permissions }, prefix);
          expect(answer.status).toBe(200);
          expect(answer.body).toEqual(expected);
        }
        const overTrpc = await trpc(user).permissions.check.query({
          organization_id: users.organizationId,
          permissions,
        });
        expect(overTrpc).toEqual(expected);
        // Naming themselves is the same as naming no one.
        expect((await check(user, users.organizationId, { permissions, user_id: user.id })).body).toEqual(expected);
      }
      expect(expectedCheck(user.id, role, EXPECTED[role]).allowed).toBe(true);
    }
  });

  it("checks another member's permissions for any member, since every role holds members:read", async () => {
    const users = await organizationWithRoles(server());
    for (const asker of ROLES) {
      for (const subject of ROLES) {
        const body = { permissions: ALL, user_id: users[subject].id };
        const answer = await check(users[asker], users.organizationId, body);
        expect(answer.status, `${asker} asks about ${subject}`).toBe(200);
        expect(answer.body).toEqual(expectedCheck(users[subject].id, subject, ALL));
        const overTrpc = await trpc(users[asker]).permissions.check.query({
          organization_id: users.organizationId,
          ...body,
        });
        expect(overTrpc).toEqual(answer.body);
      }
    }
  });

  it('answers all false, not an error, for a user_id who is not a member', async () => {
    const { member, outsider, organizationId } = await organizationWithRoles(server());
    for (const userId of [outsider.id, uniqueId('never-registered')]) {
      const answer = await check(member, organizationId, { permissions: ALL, user_id: userId });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(expectedCheck(userId, undefined, ALL));
      expect(Object.values(answer.body.results)).not.toContain(true);
    }
  });

  it('refuses a caller who is not a member with 403, whatever the body, and an unknown organization alike', async () => {
    const { owner, outsider, organizationId } = await organizationWithRoles(server());
    for (const body of [
      { permissions: ['members:read'] },
      { permissions: ['members:read'], user_id: owner.id },
      { permissions: ['not:known'] },
      { permissions: [] },
      {},
    ]) {
      const denied = await check(outsider, organizationId, body);
      expect(denied.status, JSON.stringify(body)).toBe(403);
      expect(denied.body).toEqual({ code: 'FORBIDDEN', message: expect.any(String) });
    }
    expect((await check(owner, UNKNOWN_ORGANIZATION, { permissions: ['members:read'] })).status).toBe(403);
    const overTrpc = await rejection(
      trpc(outsider).permissions.check.query({ organization_id: organizationId, permissions: ['members:read'] }),
    );
    expect(overTrpc.code).toBe('FORBIDDEN');
  });

  it('refuses with 400 an unknown permission (named), a malformed one, none, over 100, and one named twice', async () => {
    const { admin, organizationId } = await organizationWithRoles(server());
    const unknown = await check(admin, organizationId, { permissions: ['members:read', 'reports:export'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      code: 'BAD_REQUEST',
      message: expect.any(String),
      issues: [{ field: 'permissions.1', problem: expect.stringContaining('reports:export') }],
    });

    const refused: Array<[string, unknown, string]> = [
      ['no resource', { permissions: ['read'] }, 'permissions.0'],
      ['upper case', { permissions: ['Members:read'] }, 'permissions.0'],
      ['three parts', { permissions: ['members:read:all'] }, 'permissions.0'],
      ['a part over 40 characters', { permissions: [`${'m'.repeat(41)}:read`] }, 'permissions.0'],
      ['a part starting with a digit', { permissions: ['members:1read'] }, 'permissions.0'],
      ['not a string', { permissions: [12] }, 'permissions.0'],
      ['none', { permissions: [] }, 'permissions'],
      [
        'over 100',
        { permissions: Array.from({ length: 101 }, (_, index) => `resource:action-${index}`) },
        'permissions',
      ],
      ['named twice', { permissions: ['members:read', 'events:read', 'members:read'] }, 'permissions'],
      ['no list', {}, 'permissions'],
      ['a list that is not one', { permissions: 'members:read' }, 'permissions'],
      ['a user_id that is empty', { permissions: ['members:read'], user_id: '' }, 'user_id'],
      ['a user_id with a control character', { permissions: ['members:read'], user_id: 'a\u0000b' }, 'user_id'],
    ];
    for (const [why, body, field] of refused) {
      const answer = await check(admin, organizationId, body, '/api');
      expect(answer.status, why).toBe(400);
      expect(answer.body, why).toEqual(badRequest(field));
    }
    const repeated = await check(admin, organizationId, { permissions: ['members:read', 'members:read'] });
    expect(repeated.body.issues).toEqual([{ field: 'permissions', problem: expect.stringContaining('members:read') }]);

    const overTrpc = await rejection(
      trpc(admin).permissions.check.query({ organization_id: organizationId, permissions: ['reports:export'] }),
    );
    expect({ code: overTrpc.code, status: overTrpc.status, issues: overTrpc.issues }).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      issues: [{ field: 'permissions.0', problem: expect.stringContaining('reports:export') }],
    });
  });

  it('answers each request with one database statement and no transaction', async () => {
    const { owner, member, organizationId } = await organizationWithRoles(server());
    /** The statements the service has sent, by first SQL word (`select`, `begin`, …). */
    const statements = async (): Promise<Record<string, number>> => {
      const metrics = await server().service.metrics!.registry.getMetricsAsJSON();
      // A histogram's samples are named `_bucket`, `_sum` and `_count`.
      const samples = metrics.find((metric) => metric.name === 'db_query_duration_seconds')!.values as Array<{
        metricName?: string;
        labels: { operation?: string };
        value: number;
      }>;
      return Object.fromEntries(
        samples
          .filter((sample) => sample.metricName === 'db_query_duration_seconds_count')
          .map((sample) => [sample.labels.operation, sample.value]),
      );
    };
    const requests: Array<[string, () => Promise<{ status: number }>]> = [
      ['GET', () => mine(member, organizationId)],
      ['the check of the caller', () => check(member, organizationId, { permissions: ALL })],
      ['the check of another user', () => check(member, organizationId, { permissions: ALL, user_id: owner.id })],
    ];
    for (const [what, request] of requests) {
      const before = await statements();
      expect((await request()).status, what).toBe(200);
      const after = await statements();
      const moved = Object.fromEntries(
        Object.entries(after)
          .map(([operation, count]) => [operation, count - (before[operation] ?? 0)])
          .filter(([, count]) => count !== 0),
      );
      expect(moved, what).toEqual({ select: 1 });
    }
  });

  /** Sets `user`'s role in the organization through the owner (none: removed), as any client would. */
  async function setRole(on: TestServer, owner: TestUser, organizationId: string, user: TestUser, role: string | null) {
    const members = await on.call('GET', '/organization-user', { token: owner.token, organizationId });
    const current = (members.body as Array<{ user_id: string; role: string }>).find((row) => row.user_id === user.id);
    if (role === null) {
      if (current) {
        const removed = await on.call('DELETE', '/organization-user', {
          token: owner.token,
          organizationId,
          body: { user_id: user.id },
        });
        expect(removed.status).toBe(200);
      }
    } else if (!current) {
      await addMember(on, owner, organizationId, user, role);
    } else {
      const changed = await on.call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: user.id, role },
      });
      expect(changed.status).toBe(200);
    }
  }

  /** Each change made on `changes`, then at once checked on `checks`: the check sees it. */
  async function changeThenCheck(changes: TestServer, checks: TestServer) {
    const { owner, member: subject, organizationId } = await organizationWithRoles(changes);
    for (const role of ['admin', 'owner', 'member', null, 'owner', null, 'admin'] as const) {
      await setRole(changes, owner, organizationId, subject, role);
      const byOwner = await check(owner, organizationId, { permissions: ALL, user_id: subject.id }, '', checks);
      expect(byOwner.body, `after the change to ${role}`).toEqual(expectedCheck(subject.id, role ?? undefined, ALL));
      const ownCheck = await check(subject, organizationId, { permissions: ALL }, '', checks);
      if (role === null) expect(ownCheck.status).toBe(403);
      else expect(ownCheck.body).toEqual(expectedCheck(subject.id, role, ALL));
      const own = await mine(subject, organizationId, '', checks);
      expect(own.status).toBe(role === null ? 403 : 200);
      if (role !== null) expect(own.body.permissions).toEqual([...EXPECTED[role]].sort());
    }
  }

  it('answers a check made right after a role change with the new role', async () => {
    await changeThenCheck(server(), server());
  });

  // Several instances share a MySQL or MariaDB database; the embedded one belongs to one process.
  if (target.name === 'mariadb')
    it('answers a check made right after a role change on another instance with the new role', async () => {
      const other = await startTestServer(server().databaseUrl);
      try {
        await changeThenCheck(server(), other);
        await changeThenCheck(other, server());
      } finally {
        await other.service.close();
      }
    });

  it('answers as behaviour §3.2 says for any assignment of roles, whoever asks and however', async () => {
    const owner = await registerUser(server(), 'property-owner');
    const organizationId = (
      await server().call('POST', '/organizations', {
        token: owner.token,
        body: { organization_name: 'Property', organization_description: '' },
      })
    ).body.organization_id as string;
    const subjects = [
      await registerUser(server(), 'subject'),
      await registerUser(server(), 'subject'),
      await registerUser(server(), 'subject'),
    ];
    const roles = new Map<string, Role | null>(subjects.map((subject) => [subject.id, null]));
    const assignment = fc.tuple(...subjects.map(() => fc.constantFrom<Role | null>('owner', 'admin', 'member', null)));
    const question = fc.record({
      subject: fc.integer({ min: 0, max: subjects.length - 1 }),
      asker: fc.constantFrom('owner' as const, 'themselves' as const),
      over: fc.constantFrom('rest' as const, 'trpc' as const),
      permissions: fc.shuffledSubarray(ALL, { minLength: 1 }),
    });
    await fc.assert(
      fc.asyncProperty(assignment, fc.array(question, { minLength: 1, maxLength: 3 }), async (next, questions) => {
        for (const [index, subject] of subjects.entries()) {
          if (roles.get(subject.id) === next[index]) continue;
          await setRole(server(), owner, organizationId, subject, next[index]!);
          roles.set(subject.id, next[index]!);
        }
        for (const { subject: index, asker, over, permissions } of questions) {
          const subject = subjects[index]!;
          const role = roles.get(subject.id) ?? undefined;
          const caller = asker === 'owner' ? owner : subject;
          const body = { permissions, ...(asker === 'owner' && { user_id: subject.id }) };
          const answer =
            over === 'rest'
              ? await check(caller, organizationId, body)
              : await trpc(caller)
                  .permissions.check.query({ organization_id: organizationId, ...body })
                  .then(
                    (result) => ({ status: 200, body: result }),
                    (error: { status: number }) => ({ status: error.status, body: undefined }),
                  );
          if (asker === 'themselves' && role === undefined) expect(answer.status).toBe(403);
          else expect(answer.body).toEqual(expectedCheck(subject.id, role, permissions));
        }
      }),
      { numRuns: 20 },
    );
  });

  it("answers from an organization's own roles, as they are at the moment, for any roles and assignment", async () => {
    const owner = await registerUser(server(), 'property-owner');
    const organizationId = (
      await server().call('POST', '/organizations', {
        token: owner.token,
        body: { organization_name: 'Custom roles', organization_description: '' },
      })
    ).body.organization_id as string;
    const grantable = ALL.filter(isGrantable);
    const customRoles = ['auditor', 'helper', 'gatekeeper'];
    const held = new Map<string, readonly string[]>();
    for (const role of customRoles) {
      const created = await server().call('POST', `/organizations/${organizationId}/roles`, {
        token: owner.token,
        body: { role, permissions: ['organization:read'] },
      });
      expect(created.status).toBe(201);
      held.set(role, ['organization:read']);
    }
    const subjects = [await registerUser(server(), 'subject'), await registerUser(server(), 'subject')];
    const roles = new Map<string, string | null>(subjects.map((subject) => [subject.id, null]));
    const roleSets = fc.tuple(...customRoles.map(() => fc.subarray(grantable, { minLength: 1 })));
    const assignment = fc.tuple(...subjects.map(() => fc.constantFrom<string | null>(...customRoles, 'member', null)));
    const question = fc.record({
      subject: fc.integer({ min: 0, max: subjects.length - 1 }),
      permissions: fc.shuffledSubarray(ALL, { minLength: 1 }),
    });
    await fc.assert(
      fc.asyncProperty(
        roleSets,
        assignment,
        fc.array(question, { minLength: 1, maxLength: 3 }),
        async (sets, next, questions) => {
          for (const [index, role] of customRoles.entries()) {
            const permissions = sets[index]!;
            const updated = await server().call('PUT', `/organizations/${organizationId}/roles/${role}`, {
              token: owner.token,
              body: { permissions },
            });
            expect(updated.status).toBe(200);
            held.set(role, permissions);
          }
          for (const [index, subject] of subjects.entries()) {
            if (roles.get(subject.id) === next[index]) continue;
            await setRole(server(), owner, organizationId, subject, next[index]!);
            roles.set(subject.id, next[index]!);
          }
          for (const { subject: index, permissions } of questions) {
            const subject = subjects[index]!;
            const role = roles.get(subject.id);
            const holds = (permission: string) =>
              role === null || role === undefined
                ? false
                : (held.get(role) ?? EXPECTED[role as Role]).includes(permission);
            const results = Object.fromEntries(permissions.map((permission) => [permission, holds(permission)]));
            const answer = await check(owner, organizationId, { permissions, user_id: subject.id });
            expect(answer.status).toBe(200);
            expect(answer.body).toEqual({
              user_id: subject.id,
              allowed: Object.values(results).every(Boolean),
              results,
            });
          }
        },
      ),
      { numRuns: 20 },
    );
  });
});
