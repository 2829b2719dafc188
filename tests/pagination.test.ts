/** behaviour §6: whole lists by default, pages with ?limit=N and a Link header, cursor pages on tRPC. */
import { beforeAll, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import {
  addMember,
  createOrganization,
  organizationOfMembers,
  registerUser,
  type TestUser,
} from './support/fixtures.ts';
import { useServer } from './support/server.ts';

const MEMBERS = 7;

describeOnEachDatabase('list pagination', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let organizationId: string;
  let everyone: string[];

  beforeAll(async () => {
    ({ owner, organizationId, memberIds: everyone } = await organizationOfMembers(server(), MEMBERS));
  });

  const nextLink = (headers: Headers) => /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '')?.[1];

  it('returns the whole array without parameters, and no Link', async () => {
    const whole = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
    expect(whole.body).toHaveLength(MEMBERS);
    expect(whole.headers.get('link')).toBeNull();
    // One page of the stream's (server/http/streamed-list.ts): sent in one piece, with its length.
    expect(whole.headers.get('content-length')).toBe(String(Buffer.byteLength(JSON.stringify(whole.body))));
    expect(whole.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('walks the member list with ?limit and the Link header, in order, without gaps or repeats', async () => {
    const seen: string[] = [];
    let path: string | undefined = '/organization-user?limit=3';
    let pages = 0;
    while (path) {
      const page = await server().call('GET', path, { token: owner.token, organizationId });
      expect(page.status).toBe(200);
      expect(page.body.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.map((member: { user_id: string }) => member.user_id));
      path = nextLink(page.headers);
      pages++;
    }
    expect(pages).toBe(Math.ceil(MEMBERS / 3));
    expect(seen).toEqual(everyone);
  });

  it('pages the organizations list under /api too', async () => {
    for (let index = 0; index < 2; index++) await createOrganization(server(), owner);
    const first = await server().call('GET', '/api/organizations?limit=2', { token: owner.token });
    expect(first.body).toHaveLength(2);
    const link = nextLink(first.headers);
    expect(link).toMatch(/^\/api\/organizations\?limit=2&cursor=/);
    const second = await server().call('GET', link!, { token: owner.token });
    expect(second.body).toHaveLength(1);
    expect(nextLink(second.headers)).toBeUndefined();
    const all = await server().call('GET', '/api/organizations', { token: owner.token });
    expect([...first.body, ...second.body]).toEqual(all.body);
  });

  it('answers 400 to a bad limit or cursor', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'limit=2.5', 'cursor=not-a-cursor']) {
      const response = await server().call('GET', `/organization-user?${query}`, {
        token: owner.token,
        organizationId,
      });
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('BAD_REQUEST');
    }
  });

  it('answers 400 to a cursor whose time no stored row can have, on the plain and the sorted lists', async () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const latest = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    // Past a Date's range, past MySQL's datetime, not whole: each once reached the statement as an invalid date.
    const outOfRange = [9e15, 1e300, latest + 1, 1.5, -1];
    for (const milliseconds of outOfRange) {
      const plain = await server().call('GET', `/organizations?limit=1&cursor=${encode([milliseconds, 'x'])}`, {
        token: owner.token,
      });
      expect(plain.status, String(milliseconds)).toBe(400);
      expect(plain.body.code).toBe('BAD_REQUEST');
    }
    const atTheEnd = await server().call('GET', `/organizations?limit=1&cursor=${encode([latest, 'x'])}`, {
      token: owner.token,
    });
    expect([atTheEnd.status, atTheEnd.body]).toEqual([200, []]);

    const first = await server().call('GET', '/organization-user?sort=created_at&limit=1', {
      token: owner.token,
      organizationId,
    });
    const issued = new URL(nextLink(first.headers)!, 'http://localhost').searchParams.get('cursor')!;
    const [print, , id] = JSON.parse(Buffer.from(issued, 'base64url').toString('utf8')) as [string, number, string];
    for (const milliseconds of outOfRange) {
      const sorted = await server().call(
        'GET',
        `/organization-user?sort=created_at&limit=1&cursor=${encode([print, milliseconds, id])}`,
        { token: owner.token, organizationId },
      );
      expect(sorted.status, String(milliseconds)).toBe(400);
      expect(sorted.body.code).toBe('BAD_REQUEST');
    }
    const sortedAtTheEnd = await server().call(
      'GET',
      `/organization-user?sort=created_at&limit=1&cursor=${encode([print, latest, id])}`,
      { token: owner.token, organizationId },
    );
    expect([sortedAtTheEnd.status, sortedAtTheEnd.body]).toEqual([200, []]);
  });

  it('tells a non-member 403 before anything about the request, and a member an empty page past the end', async () => {
    const outsider = await registerUser(server(), 'outsider');
    for (const query of ['', '?limit=2', '?cursor=not-a-cursor', '?limit=0']) {
      const response = await server().call('GET', `/organization-user${query}`, {
        token: outsider.token,
        organizationId,
      });
      expect(response.status, query).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
    }
    // A cursor whose rows after it are gone by the time it is used: the page is empty, not a refusal.
    const small = await createOrganization(server(), owner);
    // Listed after the owner: joined later, or in the same second with a greater id.
    const member = await registerUser(server(), 'zz-leaving');
    await addMember(server(), owner, small, member, 'member');
    const first = await server().call('GET', '/organization-user?limit=1', {
      token: owner.token,
      organizationId: small,
    });
    expect(first.body.map((row: { user_id: string }) => row.user_id)).toEqual([owner.id]);
    const removed = await server().call('DELETE', '/organization-user', {
      token: owner.token,
      organizationId: small,
      body: { user_id: member.id },
    });
    expect(removed.status).toBe(200);
    const past = await server().call('GET', nextLink(first.headers)!, { token: owner.token, organizationId: small });
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    expect(past.headers.get('link')).toBeNull();
  });

  it('gives tRPC callers {items, nextCursor} pages, each with the total (behaviour §15)', async () => {
    const seen: string[] = [];
    const totals: Array<number | undefined> = [];
    let cursor: string | null = null;
    do {
      const input = encodeURIComponent(JSON.stringify({ limit: 4, cursor }));
      const response = await server().call('GET', `/trpc/members.page?input=${input}`, {
        token: owner.token,
        organizationId,
      });
      expect(response.status).toBe(200);
      const page: { items: Array<{ user_id: string }>; nextCursor: string | null; total?: number } =
        response.body.result.data;
      seen.push(...page.items.map((member) => member.user_id));
      totals.push(page.total);
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(everyone);
    expect(totals).toEqual(totals.map(() => everyone.length));
    expect(totals.length).toBeGreaterThan(1);
    // In another order still the whole list, counted; searched or filtered, not.
    const totalOf = async (query: object) => {
      const input = encodeURIComponent(JSON.stringify({ limit: 2, ...query }));
      const response = await server().call('GET', `/trpc/members.page?input=${input}`, {
        token: owner.token,
        organizationId,
      });
      expect(response.status).toBe(200);
      return (response.body.result.data as { total?: number }).total;
    };
    expect(await totalOf({ sort: '-name' })).toBe(everyone.length);
    expect(await totalOf({ search: 'm1' })).toBeUndefined();
    expect(await totalOf({ role: 'member' })).toBeUndefined();
  });
});
