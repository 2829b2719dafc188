/**
 * The audit trail without streaming, on both databases: every committed change has exactly one
 * event and a change that fails after its event was written leaves none; the REST list pages,
 * filters and refuses as behaviour §9 says; the tRPC page returns the same events.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, type RouterOutputs } from '../client/src/index.ts';
import { toDbTimestamp, type Database } from '../server/platform/database/schema.ts';
import type { AuditEvent } from '../shared/events.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { useServer, type TestServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const eventsPath = (organizationId: string) => `/organizations/${organizationId}/events`;

async function events(server: TestServer, user: TestUser, organizationId: string, query = ''): Promise<AuditEvent[]> {
  const listed = await server.call('GET', `${eventsPath(organizationId)}${query}`, { token: user.token });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body;
}

const setRole = (server: TestServer, actor: TestUser, organizationId: string, userId: string, role: string) =>
  server.call('PUT', '/organization-user', { token: actor.token, organizationId, body: { user_id: userId, role } });

describeOnEachDatabase('audit events', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let organizationId: string;

  beforeAll(async () => {
    owner = await registerUser(server(), 'owner');
    admin = await registerUser(server(), 'admin');
    member = await registerUser(server(), 'member');
    outsider = await registerUser(server(), 'outsider');
    organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, admin, 'admin');
    await addMember(server(), owner, organizationId, member, 'member');
  });

  describe('consistency', () => {
    it('records each committed change as exactly one event, with the contract shape', async () => {
      const subject = await registerUser(server(), 'subject');
      const before = await events(server(), owner, organizationId);

      await addMember(server(), admin, organizationId, subject, 'member');
      expect((await setRole(server(), admin, organizationId, subject.id, 'admin')).status).toBe(200);
      // Setting the role a member already has changes nothing and records nothing.
      expect((await setRole(server(), admin, organizationId, subject.id, 'admin')).status).toBe(200);
      const removed = await server().call('DELETE', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: subject.id },
      });
      expect(removed.status).toBe(200);

      const after = await events(server(), owner, organizationId, `?after=${before.at(-1)!.event_id}`);
      expect(
        after.map(({ type, actor_user_id, subject_user_id, data }) => ({ type, actor_user_id, subject_user_id, data })),
      ).toEqual([
        { type: 'member.added', actor_user_id: admin.id, subject_user_id: subject.id, data: { role: 'member' } },
        {
          type: 'member.role_changed',
          actor_user_id: admin.id,
          subject_user_id: subject.id,
          data: { from: 'member', to: 'admin' },
        },
        { type: 'member.removed', actor_user_id: owner.id, subject_user_id: subject.id, data: { role: 'admin' } },
      ]);
      for (const event of after) {
        expect(event.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(event.organization_id).toBe(organizationId);
        expect(event.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
    });

    it('records the creation of an organization', async () => {
      const created = await createOrganization(server(), owner);
      expect(await events(server(), owner, created)).toMatchObject([
        {
          type: 'organization.created',
          organization_id: created,
          actor_user_id: owner.id,
          subject_user_id: owner.id,
          data: { organization_name: 'Test organization', organization_description: 'for tests' },
        },
      ]);
    });

    it('leaves no event when the change fails after its event was written', async () => {
      const subject = await registerUser(server(), 'rollback');
      await addMember(server(), owner, organizationId, subject, 'member');
      const before = await events(server(), owner, organizationId);

      // The answer of a change with an Idempotency-Key is stored by the last statement of its
      // transaction, after the event. A unique index on stored answers, and another caller's key
      // already holding the answer this change will store (`null`: a role change's data function
      // returns nothing), make that statement fail. Were the answer another, the change would
      // succeed and this test fail.
      const db = server().service.orm.em.getKysely<Database>();
      const mysql = target.name === 'mariadb';
      await sql
        .raw(`create unique index test_unique_answer on idempotency_keys (response_body${mysql ? '(64)' : ''})`)
        .execute(db);
      await db
        .insertInto('idempotency_keys')
        .values({
          caller_id: 'provoker',
          idempotency_key: 'taken',
          fingerprint: 'x'.repeat(64),
          response_body: 'null',
          created_at: toDbTimestamp(mysql ? 'mysql' : 'sqlite', new Date()),
        })
        .execute();
      try {
        const failed = await server().call('PUT', '/organization-user', {
          token: owner.token,
          organizationId,
          body: { user_id: subject.id, role: 'admin' },
          headers: { 'idempotency-key': 'fails-after-the-event' },
        });
        expect(failed.status).toBeGreaterThanOrEqual(400);
        const unchanged = await server().call('GET', `/organization-user/${subject.id}`, {
          token: owner.token,
          organizationId,
        });
        expect(unchanged.body.role).toBe('member');
        expect(await events(server(), owner, organizationId)).toEqual(before);
      } finally {
        await sql.raw('drop index test_unique_answer' + (mysql ? ' on idempotency_keys' : '')).execute(db);
      }

      const retried = await server().call('PUT', '/organization-user', {
        token: owner.token,
        organizationId,
        body: { user_id: subject.id, role: 'admin' },
        headers: { 'idempotency-key': 'fails-after-the-event' },
      });
      expect(retried.status).toBe(200);
      const after = await events(server(), owner, organizationId, `?after=${before.at(-1)!.event_id}`);
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ type: 'member.role_changed', data: { from: 'member', to: 'admin' } });
    });
  });

  describe('GET /organizations/{organization_id}/events', () => {
    it('pages oldest first with after, limit and a Link to the next page while pages are full', async () => {
      const all = await events(server(), owner, organizationId, '?limit=1000');
      expect(all.length).toBeGreaterThanOrEqual(4);
      const ids = all.map((event) => event.event_id);
      expect(ids).toEqual([...ids].sort());

      const collected: AuditEvent[] = [];
      let next: string | null = `${eventsPath(organizationId)}?limit=2`;
      while (next) {
        const page: { status: number; body: AuditEvent[]; headers: Headers } = await server().call('GET', next, {
          token: admin.token,
        });
        expect(page.status).toBe(200);
        expect(page.body.length).toBeLessThanOrEqual(2);
        collected.push(...page.body);
        const link = page.headers.get('link');
        if (page.body.length === 2) expect(link).toMatch(/^<\/organizations\/[^>]+\?after=[^>]+&limit=2>; rel="next"$/);
        else expect(link).toBeNull();
        next = link?.match(/^<([^>]+)>/)?.[1] ?? null;
      }
      expect(collected).toEqual(all);
    });

    it('returns 100 events by default, and is served under /api too', async () => {
      const subject = await registerUser(server(), 'many');
      await addMember(server(), owner, organizationId, subject, 'member');
      for (let flip = 0; flip < 100; flip++) {
        const role = flip % 2 === 0 ? 'admin' : 'member';
        expect((await setRole(server(), owner, organizationId, subject.id, role)).status).toBe(200);
      }
      const page = await server().call('GET', `/api${eventsPath(organizationId)}`, { token: owner.token });
      expect(page.status).toBe(200);
      expect(page.body).toHaveLength(100);
      expect(page.headers.get('link')).toBe(
        `</api${eventsPath(organizationId)}?after=${page.body[99].event_id}&limit=100>; rel="next"`,
      );
    });

    it('filters by type, keeping the type in the Link', async () => {
      const added = await events(server(), owner, organizationId, '?type=member.added');
      expect(added.length).toBeGreaterThanOrEqual(3);
      expect(new Set(added.map((event) => event.type))).toEqual(new Set(['member.added']));
      const first = await server().call('GET', `${eventsPath(organizationId)}?type=member.added&limit=1`, {
        token: owner.token,
      });
      expect(first.body).toEqual([added[0]]);
      expect(first.headers.get('link')).toContain(`after=${added[0]!.event_id}&limit=1&type=member.added`);
    });

    it('returns nothing after the newest event, and accepts an upper-case event id', async () => {
      const all = await events(server(), owner, organizationId, '?limit=1000');
      const newest = all.at(-1)!.event_id;
      expect(await events(server(), owner, organizationId, `?after=${newest.toUpperCase()}`)).toEqual([]);
    });

    it('is for owners and admins only: 401, 403 for members, outsiders and unknown organizations', async () => {
      expect((await server().call('GET', eventsPath(organizationId))).status).toBe(401);
      for (const caller of [member, outsider]) {
        const refused = await server().call('GET', eventsPath(organizationId), { token: caller.token });
        expect(refused.status).toBe(403);
        expect(refused.body.code).toBe('FORBIDDEN');
      }
      const unknown = await server().call('GET', eventsPath(crypto.randomUUID()), { token: owner.token });
      expect(unknown.status).toBe(403);
      // The role is checked before the query: a member with a bad query is told 403.
      const memberBadQuery = await server().call('GET', `${eventsPath(organizationId)}?after=x`, {
        token: member.token,
      });
      expect(memberBadQuery.status).toBe(403);
    });

    it('refuses a malformed after, an unknown type, a limit out of range and a bad organization id with 400', async () => {
      for (const query of ['?after=not-a-uuid', '?type=member.promoted', '?limit=0', '?limit=1001', '?limit=ten']) {
        const refused = await server().call('GET', `${eventsPath(organizationId)}${query}`, { token: owner.token });
        expect(refused.status, query).toBe(400);
        expect(refused.body.code).toBe('BAD_REQUEST');
        expect(refused.body.issues?.length).toBeGreaterThan(0);
      }
      const badId = await server().call('GET', eventsPath('not-a-uuid'), { token: owner.token });
      expect(badId.status).toBe(400);
    });
  });

  describe('tRPC events.page', () => {
    it('returns the same events as REST, typed, a page at a time', async () => {
      const api = createClient({ url: server().baseUrl, token: await tokenFor(admin.id) });
      const all = await events(server(), owner, organizationId, '?limit=1000');
      const pages: AuditEvent[] = [];
      let cursor: string | null = null;
      do {
        const page: RouterOutputs['events']['page'] = await api.events.page.query({
          organization_id: organizationId,
          limit: 7,
          cursor,
        });
        pages.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages).toEqual(all);

      const roleChanges = await api.events.page.query({ organization_id: organizationId, type: 'member.role_changed' });
      const first = roleChanges.items[0]!;
      if (first.type === 'member.role_changed') expectTypeOf(first.data.to).toEqualTypeOf<string>();
      expect(roleChanges.items.every((event) => event.type === 'member.role_changed')).toBe(true);
    });

    it('pages newest first with newest_first, each page older than the one before', async () => {
      const api = createClient({ url: server().baseUrl, token: await tokenFor(admin.id) });
      const all = await events(server(), owner, organizationId, '?limit=1000');
      const pages: AuditEvent[][] = [];
      let cursor: string | null = null;
      do {
        const page: RouterOutputs['events']['page'] = await api.events.page.query({
          organization_id: organizationId,
          limit: 3,
          cursor,
          newest_first: true,
        });
        pages.push(page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages.length).toBeGreaterThan(1);
      expect(pages.flat()).toEqual([...all].reverse());
      const newestRoleChange = await api.events.page.query({
        organization_id: organizationId,
        type: 'member.role_changed',
        newest_first: true,
        limit: 1,
      });
      expect(newestRoleChange.items).toEqual(all.filter((event) => event.type === 'member.role_changed').slice(-1));
    });

    it('refuses members with FORBIDDEN', async () => {
      const api = createClient({ url: server().baseUrl, token: await tokenFor(member.id) });
      await expect(api.events.page.query({ organization_id: organizationId })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        status: 403,
      });
    });
  });
});
