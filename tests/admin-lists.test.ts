/**
 * The application's lists (behaviour §16: GET /admin/organizations, /admin/users and
 * /admin/users/{user_id}/memberships, with an application key alone) and the search of the
 * caller's organizations (behaviour §15), on both databases.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { createClient } from '../client/src/index.ts';
import { newKeySecret } from '../server/modules/api-keys/api-keys.service.ts';
import { secretHashOf } from '../server/platform/auth/tokens.ts';
import { locateDatabase } from '../server/platform/database/engine.ts';
import { newId } from '../server/platform/database/ids.ts';
import { toDbTimestamp, type Database } from '../server/platform/database/schema.ts';
import { rejection } from './support/api-errors.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { useServer, type TestServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

describeOnEachDatabase(
  'the application lists (behaviour §16) and the search of organizations (behaviour §15)',
  (target) => {
    const server = useServer(target);

    /** An application key, written as `npm run app-key -- create` writes it. */
    async function applicationKey(): Promise<string> {
      const secret = newKeySecret('application_key');
      const dialect = locateDatabase(server().databaseUrl).dialect;
      await server()
        .service.orm.em.getKysely<Database>()
        .insertInto('application_keys')
        .values({
          id: newId(),
          name: 'tests',
          prefix: secret.slice(0, 12),
          secret_hash: secretHashOf(secret),
          created_at: toDbTimestamp(dialect, new Date()),
          revoked_at: null,
          last_used_at: null,
        })
        .execute();
      return secret;
    }

    async function person(first: string, last: string, email: string): Promise<TestUser> {
      const id = uniqueId('p');
      const token = await tokenFor(id, { role: 'owner' });
      const created = await server().call('POST', '/users', {
        token,
        body: { first_name: first, last_name: last, email },
      });
      expect(created.status).toBe(201);
      return { id, email, token };
    }

    async function organization(owner: TestUser, name: string): Promise<{ id: string; slug: string }> {
      const created = await server().call('POST', '/organizations', {
        token: owner.token,
        body: { organization_name: name, organization_description: '' },
      });
      expect(created.status).toBe(201);
      const id: string = created.body.organization_id;
      // Read behind the API: the slug the service gave it.
      const { slug } = await server()
        .service.orm.em.getKysely<Database>()
        .selectFrom('organizations')
        .select('slug')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { id, slug };
    }

    /** Every item of a list, page by page through its Link header. */
    async function walk<Item>(path: string, token: string): Promise<Item[]> {
      const items: Item[] = [];
      let next: string | undefined = path;
      while (next) {
        const page: { status: number; body: Item[]; headers: Headers } = await server().call<Item[]>('GET', next, {
          token,
        });
        expect(page.status).toBe(200);
        items.push(...page.body);
        const link: string | null = page.headers.get('link');
        next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
      }
      return items;
    }

    it('lists every user, oldest first, a page at a time, searched by the words of their names and e-mail', async () => {
      const key = await applicationKey();
      const tag = uniqueId('u').replace('-', '');
      const people = [
        await person('Anna', 'Berg', `anna@${tag}.example`),
        await person('Ånnika', 'Lind', `al@${tag}.example`),
        await person('Joanne', 'Berg', `jo@${tag}.example`),
      ];
      const found = await walk<{ id: string; email: string }>(`/admin/users?search=${tag}&limit=2`, key);
      expect(found.map((user) => user.id)).toEqual(people.map((user) => user.id));
      expect(Object.keys(found[0]!).sort()).toEqual([
        'created_at',
        'email',
        'first_name',
        'id',
        'last_name',
        'updated_at',
      ]);
      const ann = await walk<{ id: string }>(`/admin/users?search=${encodeURIComponent(`ANN ${tag}`)}`, key);
      expect(ann.map((user) => user.id)).toEqual([people[0]!.id, people[1]!.id]);
      const all = await server().call('GET', '/admin/users', { token: key });
      expect(all.status).toBe(200);
      expect(all.body.length).toBeLessThanOrEqual(100);
    });

    it("lists every organization, searched by its name's and slug's words, and a user's memberships", async () => {
      const key = await applicationKey();
      const tag = uniqueId('o').replace('-', '');
      const owner = await registerUser(server(), 'admin-owner');
      const first = await organization(owner, `Acme ${tag}`);
      const second = await organization(owner, `Büro ${tag} Nord`);
      const found = await walk<{ id: string; slug: string; member_count: number }>(
        `/admin/organizations?search=${tag}&limit=1`,
        key,
      );
      expect(found.map((item) => item.id)).toEqual([first.id, second.id]);
      expect(found[0]).toMatchObject({ slug: first.slug, member_count: 1 });
      expect(
        (await walk<{ id: string }>(`/admin/organizations?search=${encodeURIComponent(`buro ${tag}`)}`, key)).map(
          (o) => o.id,
        ),
      ).toEqual([second.id]);
      expect((await walk<{ id: string }>(`/admin/organizations?search=${second.slug}`, key)).map((o) => o.id)).toEqual([
        second.id,
      ]);

      const member = await registerUser(server(), 'admin-member');
      await addMember(server(), owner, second.id, member, 'admin');
      await addMember(server(), owner, first.id, member, 'member');
      const memberships = await walk<{ organization_id: string; role: string; organization_slug: string }>(
        `/admin/users/${encodeURIComponent(member.id)}/memberships?limit=1`,
        key,
      );
      expect(memberships.map((item) => [item.organization_id, item.role, item.organization_slug])).toEqual([
        [second.id, 'admin', second.slug],
        [first.id, 'member', first.slug],
      ]);
      const unknown = await server().call('GET', '/admin/users/nobody-at-all/memberships', { token: key });
      expect(unknown.status).toBe(404);
    });

    it('pages the same lists over tRPC, {items, nextCursor}, and refuses a person there too', async () => {
      const key = await applicationKey();
      const tag = uniqueId('t').replace('-', '');
      const owner = await person('Tess', 'Paging', `tess@${tag}.example`);
      const member = await person('Theo', 'Paging', `theo@${tag}.example`);
      const organizations = [await organization(owner, `Alpha ${tag}`), await organization(owner, `Beta ${tag}`)];
      for (const { id } of organizations) await addMember(server(), owner, id, member, 'member');
      const api = createClient({ url: server().baseUrl, token: key });

      /** Every item, a page of one at a time, following nextCursor. */
      async function pages<Item>(
        page: (cursor: string | null) => Promise<{ items: Item[]; nextCursor: string | null }>,
      ): Promise<Item[]> {
        const items: Item[] = [];
        let cursor: string | null = null;
        do {
          const answer: { items: Item[]; nextCursor: string | null } = await page(cursor);
          expect(answer.items.length).toBeLessThanOrEqual(1);
          items.push(...answer.items);
          cursor = answer.nextCursor;
        } while (cursor !== null);
        return items;
      }
      const paged = {
        organizations: await pages((cursor) => api.admin.organizationsPage.query({ search: tag, limit: 1, cursor })),
        users: await pages((cursor) => api.admin.usersPage.query({ search: tag, limit: 1, cursor })),
        memberships: await pages((cursor) =>
          api.admin.userMembershipsPage.query({ user_id: member.id, limit: 1, cursor }),
        ),
      };
      expect(paged.organizations.map((item) => item.id)).toEqual(organizations.map(({ id }) => id));
      expect(paged.organizations).toEqual(await walk(`/admin/organizations?search=${tag}`, key));
      expect(paged.users.map((user) => user.id)).toEqual([owner.id, member.id]);
      expect(paged.users).toEqual(await walk(`/admin/users?search=${tag}`, key));
      expect(paged.memberships.map((item) => item.organization_id)).toEqual(organizations.map(({ id }) => id));
      expect(paged.memberships).toEqual(await walk(`/admin/users/${member.id}/memberships`, key));

      const asPerson = createClient({ url: server().baseUrl, token: owner.token });
      expect((await rejection(asPerson.admin.usersPage.query({}))).code).toBe('FORBIDDEN');
    });

    /** The key's `last_used_at` as `npm run app-key -- list` reads it, once written (after the answer), or null. */
    async function lastUseOf(secret: string): Promise<unknown> {
      for (let tries = 0; tries < 100; tries++) {
        const { last_used_at } = await server()
          .service.orm.em.getKysely<Database>()
          .selectFrom('application_keys')
          .select('last_used_at')
          .where('secret_hash', '=', secretHashOf(secret))
          .executeTakeFirstOrThrow();
        if (last_used_at !== null) return last_used_at;
        await sleep(50);
      }
      return null;
    }

    it('records the last use of a key used outside any organization (behaviour §16)', async () => {
      const owner = await registerUser(server(), 'made-by-app');
      const uses: Array<[string, (key: string) => ReturnType<TestServer['call']>]> = [
        ['GET /admin/users', (token) => server().call('GET', '/admin/users?limit=1', { token })],
        ['GET /admin/organizations', (token) => server().call('GET', '/admin/organizations?limit=1', { token })],
        [
          'POST /organizations',
          (token) =>
            server().call('POST', '/organizations', {
              token,
              body: { organization_name: 'Made by the app', organization_description: '', owner_user_id: owner.id },
            }),
        ],
      ];
      for (const [operation, use] of uses) {
        const key = await applicationKey();
        expect((await use(key)).status, operation).toBeLessThan(300);
        expect(await lastUseOf(key), operation).not.toBeNull();
      }
    });

    it('makes a member an owner with transfer-ownership, nobody stepping down: the key holds what it is told it holds', async () => {
      const key = await applicationKey();
      const owner = await registerUser(server(), 'first-owner');
      const organizationId = await createOrganization(server(), owner);
      const member = await registerUser(server(), 'next-owner');
      await addMember(server(), owner, organizationId, member, 'member');
      const check = await server().call('POST', `/organizations/${organizationId}/permissions/check`, {
        token: key,
        body: { permissions: ['ownership:transfer'] },
      });
      expect(check.body.results).toEqual({ 'ownership:transfer': true });
      const transferred = await server().call('POST', `/organizations/${organizationId}/transfer-ownership`, {
        token: key,
        body: { user_id: member.id },
      });
      expect(transferred.status, JSON.stringify(transferred.body)).toBe(200);
      const roles = await server().call('GET', `/organization-user?limit=10`, { token: owner.token, organizationId });
      const roleOf = (id: string) =>
        (roles.body as Array<{ user_id: string; role: string }>).find((row) => row.user_id === id)?.role;
      expect([roleOf(owner.id), roleOf(member.id)]).toEqual(['owner', 'owner']);
      const events = await server().call('GET', `/organizations/${organizationId}/events?limit=100`, {
        token: owner.token,
      });
      expect(events.body.at(-1)).toMatchObject({
        type: 'ownership.transferred',
        actor_user_id: null,
        subject_user_id: member.id,
        data: { previous_owner_user_id: null, new_owner_previous_role: 'member' },
      });
    });

    it('refuses a person and bad input', async () => {
      const key = await applicationKey();
      const someone = await registerUser(server(), 'not-the-app');
      for (const path of ['/admin/users', '/admin/organizations', `/admin/users/${someone.id}/memberships`]) {
        expect((await server().call('GET', path, { token: someone.token })).status).toBe(403);
      }
      for (const path of [
        '/admin/users?search=%20',
        `/admin/organizations?search=${'x'.repeat(101)}`,
        '/admin/users?cursor=nonsense',
        '/admin/organizations?limit=0',
      ]) {
        expect({ path, status: (await server().call('GET', path, { token: key })).status }).toEqual({
          path,
          status: 400,
        });
      }
    });

    it("searches the caller's organizations by the words of their names and slugs, a page at a time", async () => {
      const tag = uniqueId('c').replace('-', '');
      const caller = await person('Caller', 'Person', `caller@${tag}.example`);
      const alpha = await organization(caller, `Alpha ${tag}`);
      const beta = await organization(caller, `Beta Ärzte ${tag}`);
      const stranger = await registerUser(server(), 'stranger');
      await organization(stranger, `Alpha ${tag} elsewhere`);
      const mine = (search: string) =>
        walk<{ id: string }>(`/organizations?search=${encodeURIComponent(search)}&limit=1`, caller.token).then(
          (items) => items.map((item) => item.id),
        );
      expect(await mine(tag)).toEqual([alpha.id, beta.id]);
      expect(await mine('ALP')).toEqual([alpha.id]);
      expect(await mine('arz')).toEqual([beta.id]);
      expect(await mine(beta.slug)).toEqual([beta.id]);
      expect(await mine('gamma')).toEqual([]);
      const page = await server().call('GET', `/organizations?search=${tag}`, { token: caller.token });
      expect(Object.keys(page.body[0]).sort()).toEqual(['created_at', 'created_by', 'description', 'id', 'name']);
      expect((await server().call('GET', '/organizations?search=%20', { token: caller.token })).status).toBe(400);
    });
  },
);
