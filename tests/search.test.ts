/**
 * Member search, role filter and sort on GET /organization-user and the tRPC member page
 * (behaviour §15), and search on the caller's organizations, on both databases. The reference
 * filter and order are written out plainly here, apart from the service's own word code.
 */
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { locateDatabase } from '../server/platform/database/engine.ts';
import { toDbTimestamp, type Database, type Sql } from '../server/platform/database/schema.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import {
  addMember,
  createOrganization,
  insertUsersAsMembers,
  registerUser,
  uniqueId,
  type SeededUser,
  type TestUser,
} from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

interface Item {
  user_id: string;
  first_name: string;
  last_name: string;
  role: string;
  email: string;
  created_at: string;
}

/**
 * Plain reference: lower case, accents (combining marks after decomposition) removed, and the
 * letters of these tests whose case Unicode folds further than lower case: "ß" (and "ẞ", whose
 * lower case it is) is "ss", "ſ" is "s", a word-final "ς" is "σ".
 */
const plain = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replaceAll('ß', 'ss')
    .replaceAll('ſ', 's')
    .replaceAll('ς', 'σ');

/** Does the person match the search, as behaviour §15 says it. */
function referenceMatch(person: { first_name: string; last_name: string; email: string }, search: string): boolean {
  const words = [
    ...plain(person.first_name).split(/\s+/),
    ...plain(person.last_name).split(/\s+/),
    ...plain(person.email).split(/[@._+-]/),
    plain(person.email),
  ].filter((word) => word !== '');
  const wanted = plain(search)
    .split(/\s+/)
    .filter((word) => word !== '');
  return wanted.every((w) => words.some((word) => word.startsWith(w)));
}

const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The reference order of behaviour §15's sorts. */
function referenceOrder(sort: string): (a: Item & { at: number }, b: Item & { at: number }) => number {
  const key = sort.replace(/^-/, '');
  const sign = sort.startsWith('-') ? -1 : 1;
  return (a, b) => {
    const byKey =
      key === 'name'
        ? bytes(a.last_name, b.last_name) || bytes(a.first_name, b.first_name)
        : key === 'email'
          ? bytes(a.email, b.email)
          : a.at - b.at;
    return sign * (byKey || bytes(a.user_id, b.user_id));
  };
}

const SORTS = ['created_at', '-created_at', 'name', '-name', 'email', '-email'];

describeOnEachDatabase('member search (behaviour §15)', (target) => {
  const server = useServer(target);
  const sql = (): Sql => server().service.orm.em.getKysely<Database>();
  const dialect = () => locateDatabase(server().databaseUrl).dialect;

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

  /** Every item of the member list under the query, page by page through the Link header. */
  async function walk(
    reader: TestUser,
    organizationId: string,
    query: Record<string, string>,
    between?: () => Promise<unknown>,
  ) {
    const items: Item[] = [];
    let path: string | undefined = `/organization-user?${new URLSearchParams(query).toString()}`;
    while (path) {
      const answers = await Promise.all([
        server().call<Item[]>('GET', path, { token: reader.token, organizationId }),
        between?.(),
      ]);
      const page: { status: number; body: Item[]; headers: Headers } = answers[0];
      expect(page.status).toBe(200);
      items.push(...page.body);
      const link: string | null = page.headers.get('link');
      path = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
    }
    return items;
  }

  const search = (reader: TestUser, organizationId: string, text: string) =>
    walk(reader, organizationId, { search: text, limit: '1000' }).then((items) =>
      items.map((item) => item.email).sort(),
    );

  it("finds by the beginnings of names' and e-mail addresses' words, ignoring case and accents", async () => {
    const tag = uniqueId('t').replace('-', '');
    const anna = await person('Anna', 'Berg', `anna.berg@${tag}.example`);
    const annika = await person('Xavier', 'Nilsson', `x.annika@corp${tag}.example`);
    const joanne = await person('Joanne', 'Smith', `js@corp${tag}.example`);
    const orjan = await person('Örjan', 'Ångström', `orjan+work@${tag}.example`);
    const organizationId = await createOrganization(server(), anna);
    for (const member of [annika, joanne, orjan]) await addMember(server(), anna, organizationId, member, 'member');

    expect(await search(anna, organizationId, 'ann')).toEqual([anna.email, annika.email].sort());
    expect(await search(anna, organizationId, 'ber ann')).toEqual([anna.email]);
    expect(await search(anna, organizationId, `corp${tag}`)).toEqual([annika.email, joanne.email].sort());
    expect(await search(anna, organizationId, 'oann')).toEqual([]);
    expect(await search(anna, organizationId, '  ANN  ')).toEqual([anna.email, annika.email].sort());
    expect(await search(anna, organizationId, 'ORJAN ang')).toEqual([orjan.email]);
    expect(await search(anna, organizationId, 'Ängström')).toEqual([orjan.email]);
    expect(await search(anna, organizationId, 'work')).toEqual([orjan.email]);
    expect(await search(anna, organizationId, annika.email.toUpperCase())).toEqual([annika.email]);
    expect(await search(anna, organizationId, 'x.annika')).toEqual([annika.email]);
    expect(await search(anna, organizationId, 'ann%')).toEqual([]);

    // A renamed person is found by the new name only, in every organization they belong to.
    const renamed = await server().call('PUT', '/users', { token: joanne.token, body: { first_name: 'Zoë' } });
    expect(renamed.status).toBe(200);
    expect(await search(anna, organizationId, 'zoe')).toEqual([joanne.email]);
    expect(await search(anna, organizationId, 'joanne')).toEqual([]);
    // A member who leaves is found no more.
    const removed = await server().call('DELETE', '/organization-user', {
      body: { user_id: annika.id },
      token: anna.token,
      organizationId,
    });
    expect(removed.status).toBe(200);
    expect(await search(anna, organizationId, 'ann')).toEqual([anna.email]);
  });

  it('folds case as Unicode\'s full case folding does, in the member search and the caller\'s organizations: `ΚΑΣ` finds "Κασσάνδρα", `strasse` "Straße" and `straße` "Strasse"', async () => {
    const tag = uniqueId('t').replace('-', '');
    const kassandra = await person('Κασσάνδρα', 'Παπαδοπούλου', `kassandra@${tag}.example`);
    const anna = await person('Anna', 'Straße', `anna@${tag}.example`);
    const bob = await person('Bob', 'Strasse', `bob@${tag}.example`);
    const organizationId = await createOrganization(server(), kassandra);
    for (const member of [anna, bob]) await addMember(server(), kassandra, organizationId, member, 'member');

    expect(await search(kassandra, organizationId, 'ΚΑΣ')).toEqual([kassandra.email]);
    expect(await search(kassandra, organizationId, 'κας παπαδοπουλου')).toEqual([kassandra.email]);
    for (const text of ['strasse', 'STRASSE', 'straße', 'STRAẞE', 'ſtraſſe']) {
      expect({ text, found: await search(kassandra, organizationId, text) }).toEqual({
        text,
        found: [anna.email, bob.email].sort(),
      });
    }

    const names = ['Κασσάνδρα Films', 'Straße AG', 'Strasse Bau'];
    for (const name of names) {
      const created = await server().call('POST', '/api/organizations', {
        token: anna.token,
        body: { organization_name: name, organization_description: '' },
      });
      expect(created.status).toBe(201);
    }
    const organizations = async (text: string) => {
      const page = await server().call<Array<{ name: string }>>(
        'GET',
        `/organizations?search=${encodeURIComponent(text)}&limit=100`,
        { token: anna.token },
      );
      expect(page.status).toBe(200);
      return page.body.map((organization) => organization.name).sort();
    };
    expect(await organizations('ΚΑΣ')).toEqual(['Κασσάνδρα Films']);
    for (const text of ['strasse', 'STRASSE', 'straße']) {
      expect({ text, found: await organizations(text) }).toEqual({ text, found: ['Strasse Bau', 'Straße AG'] });
    }
  });

  it('answers a page in the legacy item shape, and the whole legacy list without search, role or sort', async () => {
    const owner = await registerUser(server(), 'shape');
    const organizationId = await createOrganization(server(), owner);
    const whole = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
    expect(whole.headers.get('link')).toBeNull();
    const searched = await server().call('GET', `/organization-user?search=${owner.id}`, {
      token: owner.token,
      organizationId,
    });
    expect(searched.status).toBe(200);
    expect(searched.body).toEqual(whole.body);
    expect(Object.keys(searched.body[0]).sort()).toEqual([
      'created_at',
      'email',
      'first_name',
      'last_name',
      'role',
      'user_id',
    ]);
  });

  it('refuses a search empty after trimming, over 100 characters or with a lone surrogate, an unknown sort or role, and a cursor not its own (400)', async () => {
    const owner = await registerUser(server(), 'bad');
    const organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, await registerUser(server(), 'bad'), 'member');
    const first = await server().call('GET', '/organization-user?sort=name&limit=1', {
      token: owner.token,
      organizationId,
    });
    const cursor = new URLSearchParams(/<[^?]*\?([^>]*)>/.exec(first.headers.get('link')!)![1]).get('cursor')!;
    for (const query of [
      'search=%20%20',
      `search=${'a'.repeat(101)}`,
      'sort=age',
      'sort=--name',
      'role=Admin',
      'role=admin,,member',
      'sort=name&cursor=not-a-cursor',
      `sort=email&cursor=${cursor}`,
      `sort=name&search=x&cursor=${cursor}`,
      `sort=name&cursor=${Buffer.from(JSON.stringify(['x', 1, 2, 3])).toString('base64url')}`,
    ]) {
      const answer = await server().call('GET', `/organization-user?${query}`, { token: owner.token, organizationId });
      expect({ query, status: answer.status }).toEqual({ query, status: 400 });
    }
    const ok = await server().call('GET', `/organization-user?sort=name&cursor=${cursor}`, {
      token: owner.token,
      organizationId,
    });
    expect(ok.status).toBe(200);
    // A lone surrogate, which JSON can spell and a query string cannot, is refused, not replaced.
    const input = encodeURIComponent('{"search":"an\\ud800"}');
    const lone = await server().call('GET', `/trpc/members.page?input=${input}`, {
      token: owner.token,
      organizationId,
    });
    expect(lone.status).toBe(400);
  });

  describe1000();

  function describe1000() {
    const MEMBERS = 1000;
    let owner: TestUser;
    let organizationId: string;
    let stable: Array<Item & { at: number }>;

    beforeAll(async () => {
      owner = await registerUser(server(), 'walk');
      organizationId = await createOrganization(server(), owner);
      const firstNames = ['Anna', 'Ann', 'Bo', 'Émile', 'anne', 'Zoe', 'Κασσάνδρα'];
      const lastNames = ['Berg', 'Andersson', 'Berg', 'Åberg', 'Nilsson', 'Straße'];
      const base = Date.parse('2026-01-01T00:00:00.000Z');
      stable = [];
      for (let batch = 0; batch < 10; batch++) {
        // Each batch of 100 joins at one instant: every sort meets ties, broken by the user id.
        const at = base + batch * 1000;
        const users: SeededUser[] = Array.from({ length: MEMBERS / 10 }, (_, index) => {
          const n = batch * 100 + index;
          const id = `walk-${(n * 7919) % 10007}-${uniqueId('w')}`;
          return {
            user_id: id,
            first_name: firstNames[n % firstNames.length]!,
            last_name: lastNames[(n >> 1) % lastNames.length]!,
            email: `${['ann', 'bo', 'x.anders', 'zed'][n % 4]}${n % 3}@${['corp', 'an-co'][n % 2]}.example.${id}`,
          };
        });
        await insertUsersAsMembers(sql(), organizationId, users, toDbTimestamp(dialect(), new Date(at)));
        for (const user of users) stable.push({ ...user, role: 'member', created_at: '', at });
      }
      const admins = stable.filter((_, index) => index % 7 === 0);
      await sql()
        .updateTable('organization_users')
        .set({ role: 'admin' })
        .where('organization_id', '=', organizationId)
        .where(
          'user_id',
          'in',
          admins.map((admin) => admin.user_id),
        )
        .execute();
      for (const admin of admins) admin.role = 'admin';
    });

    const selections: Array<Record<string, string>> = [
      {},
      { search: 'an' },
      { role: 'admin' },
      { search: 'ber ann', role: 'admin,member' },
      { search: 'ΚΑΣ STRASS' },
    ];

    it('walks 1,000 members under each search, filter and order by cursor: every match once, in order, while members join and leave', async () => {
      const churn = await Promise.all(
        Array.from({ length: 6 }, () => person('Anna', 'Churn', `${uniqueId('churn')}@an.example`)),
      );
      const churnIds = new Set(churn.map((user) => user.id));
      let step = 0;
      const joinOrLeave = async () => {
        const user = churn[step % churn.length]!;
        const joining = Math.floor(step / churn.length) % 2 === 0;
        step++;
        if (joining) await addMember(server(), owner, organizationId, user, 'admin');
        else {
          const left = await server().call('DELETE', '/organization-user', {
            token: owner.token,
            organizationId,
            body: { user_id: user.id },
          });
          expect(left.status).toBe(200);
        }
      };
      for (const selection of selections) {
        for (const sort of SORTS) {
          const query = { ...selection, sort, limit: '37' };
          const walked = await walk(owner, organizationId, query, joinOrLeave);
          const ids = walked.map((item) => item.user_id);
          expect(new Set(ids).size).toBe(ids.length);
          const roles = selection.role?.split(',');
          const expected = stable
            .filter((item) => item.user_id !== owner.id)
            .filter((item) => !selection.search || referenceMatch(item, selection.search))
            .filter((item) => !roles || roles.includes(item.role))
            .sort(referenceOrder(sort))
            .map((item) => item.user_id);
          const seeded = ids.filter((id) => !churnIds.has(id) && id !== owner.id);
          expect({ query, seeded: seeded.length }).toEqual({ query, seeded: expected.length });
          expect(seeded).toEqual(expected);
        }
      }
    }, 600_000);

    it('pages the tRPC member page under the same search, filter and order', async () => {
      const input = encodeURIComponent(JSON.stringify({ search: 'an', role: 'admin', sort: '-name', limit: 1000 }));
      const answer = await server().call('GET', `/trpc/members.page?input=${input}`, {
        token: owner.token,
        organizationId,
      });
      expect(answer.status).toBe(200);
      const items = answer.body.result.data.items as Array<Item & { expires_at: string | null }>;
      const expected = stable
        .filter((item) => referenceMatch(item, 'an') && item.role === 'admin')
        .sort(referenceOrder('-name'))
        .map((item) => item.user_id);
      expect(items.map((item) => item.user_id).filter((id) => expected.includes(id))).toEqual(expected);
      expect(items.every((item) => item.expires_at === null)).toBe(true);
    });

    it('answers any search string without error, exactly as the reference filter (fast-check)', async () => {
      const letters = [...'anbergoxzd ÅÉéöÖAN.@-_+%\\sStßẞſκΚΣσς'];
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.string({ unit: fc.constantFrom(...letters), maxLength: 12 }),
            fc.string({ unit: 'grapheme', maxLength: 110 }),
          ),
          async (text) => {
            const trimmed = text.trim();
            if (trimmed.length === 0 || trimmed.length > 100) {
              const answer = await server().call('GET', `/organization-user?search=${encodeURIComponent(text)}`, {
                token: owner.token,
                organizationId,
              });
              expect(answer.status).toBe(400);
              return;
            }
            const items = await walk(owner, organizationId, { search: text, limit: '1000' });
            if (![...text].every((character) => letters.includes(character))) return;
            const found = items.map((item) => item.user_id).filter((id) => id.startsWith('walk-') && id !== owner.id);
            expect(new Set(found).size).toBe(found.length);
            const expected = stable.filter((item) => referenceMatch(item, text)).map((item) => item.user_id);
            expect(found.sort()).toEqual(expected.sort());
          },
        ),
        { numRuns: 60 },
      );
    }, 300_000);
  }
});
