/**
 * PUBLIC_URL with a path (`https://example.com/orgs`, the proxy stripping `/orgs` before the
 * service): what the service hands a client leads under it. The list `Link` is a path under it
 * (behaviour §6), which a client that reached the service through the proxy follows to the next
 * page; the OpenAPI document's servers start with it, and the reference page names its files under
 * it (§5); the console's page names its files under it and carries it (§14). Without a path the
 * `Link` stays as without PUBLIC_URL. The proxy is simulated: each followed URL must be under
 * PUBLIC_URL, and is asked of the service with the path stripped. SCIM's URLs:
 * tests/scim-public-url.test.ts; the console in Chromium: tests/console-public-url.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_URL_META } from '../server/http/console.ts';
import { databaseTarget, describeOnEachDatabase } from './support/databases.ts';
import {
  addMember,
  createOrganization,
  organizationOfMembers,
  registerUser,
  type TestUser,
} from './support/fixtures.ts';
import { useServer, type TestServer } from './support/server.ts';

const PUBLIC_URL = 'https://example.com/orgs';
const PREFIX = '/orgs';
const MEMBERS = 5;

const linkOf = (headers: Headers) => /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '')?.[1];

/** The paths a page's `src` and `href` attributes name, as they are written. */
const attributePaths = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);

/**
 * The pages of a list as a client of the proxy reads them: it asks for PUBLIC_URL's path with
 * `first` after it, resolves each `Link` against the URL it asked for (RFC 8288), which must be
 * under PUBLIC_URL, and the proxy hands the service that URL without PUBLIC_URL's path.
 */
async function pagesThroughProxy(server: TestServer, first: string, caller: TestUser, organizationId?: string) {
  const pages: Array<{ asked: string; link: string | undefined; items: unknown[] }> = [];
  let asked: URL | undefined = new URL(`${PUBLIC_URL}${first}`);
  while (asked) {
    expect(asked.href.startsWith(`${PUBLIC_URL}/`), asked.href).toBe(true);
    const page = await server.call('GET', asked.pathname.slice(PREFIX.length) + asked.search, {
      token: caller.token,
      organizationId,
    });
    expect(page.status, asked.href).toBe(200);
    const link = linkOf(page.headers);
    pages.push({ asked: asked.href, link, items: page.body as unknown[] });
    asked = link === undefined ? undefined : new URL(link, asked);
    expect(pages.length).toBeLessThan(20);
  }
  return pages;
}

describeOnEachDatabase('PUBLIC_URL with a path (behaviour §5, §6, §14)', (target) => {
  const server = useServer(target, { PUBLIC_URL: `${PUBLIC_URL}/` });
  let owner: TestUser;
  let organizationId: string;
  let everyone: string[];

  beforeAll(async () => {
    ({ owner, organizationId, memberIds: everyone } = await organizationOfMembers(server(), MEMBERS));
  });

  const userIds = (pages: Array<{ items: unknown[] }>) =>
    pages.flatMap((page) => page.items.map((item) => (item as { user_id: string }).user_id));

  it("gives each list's Link under PUBLIC_URL's path, which a client of the proxy follows to the next page", async () => {
    const members = await pagesThroughProxy(server(), '/organization-user?limit=2', owner, organizationId);
    expect(members.map((page) => page.link)).toEqual([
      expect.stringMatching(/^\/orgs\/organization-user\?limit=2&cursor=[\w-]+$/),
      expect.stringMatching(/^\/orgs\/organization-user\?limit=2&cursor=[\w-]+$/),
      undefined,
    ]);
    expect(userIds(members)).toEqual(everyone);

    // A list with an order (restSortedList), its Link repeating it.
    const sorted = await pagesThroughProxy(
      server(),
      '/organization-user?sort=-created_at&limit=3',
      owner,
      organizationId,
    );
    expect(sorted[0]!.link).toMatch(/^\/orgs\/organization-user\?sort=-created_at&limit=3&cursor=[\w-]+$/);
    expect(userIds(sorted)).toEqual([...everyone].reverse());

    // Under the /api alias, and the events' own Link (after the last event_id).
    const events = await pagesThroughProxy(server(), `/api/organizations/${organizationId}/events?limit=2`, owner);
    expect(events[0]!.link).toMatch(
      new RegExp(`^/orgs/api/organizations/${organizationId}/events\\?after=[\\w-]+&limit=2$`),
    );
    expect(events.length).toBeGreaterThan(2);
    const whole = await server().call('GET', `/organizations/${organizationId}/events`, { token: owner.token });
    expect(events.flatMap((page) => page.items)).toEqual(whole.body);
  });

  it("names PUBLIC_URL as the OpenAPI document's server, with /api after it where an operation is served there too", async () => {
    const document = (await server().call('GET', '/openapi.json')).body as {
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, { servers?: Array<{ url: string }> }>>;
    };
    expect(document.servers).toEqual([{ url: PUBLIC_URL }]);
    expect(document.paths['/users']!.get!.servers!.map((entry) => entry.url)).toEqual([
      PUBLIC_URL,
      `${PUBLIC_URL}/api`,
    ]);
    expect(document.paths['/organization-user']!.get!.servers).toBeUndefined();
  });

  it("names the console's files under PUBLIC_URL's path and hands the console PUBLIC_URL", async () => {
    const answer = await server().request('GET', '/console/organizations/x/directory');
    expect(answer.status).toBe(200);
    const html = await answer.text();
    const paths = attributePaths(html);
    expect(paths).toHaveLength(3);
    for (const path of paths) {
      expect(path).toMatch(/^\/orgs\/console\/(assets\/[\w-]+\.(js|css)|favicon\.svg)$/);
      // Through the proxy: the service has it at the path without PUBLIC_URL's.
      expect((await server().request('GET', path.slice(PREFIX.length))).status, path).toBe(200);
    }
    expect(html).toContain(`<meta name="${PUBLIC_URL_META}" content="${PUBLIC_URL}" />`);
    // The compressed copies are of this page, not of the one built.
    const brotli = await server().request('GET', '/console', { headers: { 'accept-encoding': 'br' } });
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect(await brotli.text()).toBe(html);
  });

  it("names the reference page's files under PUBLIC_URL's path", async () => {
    const html = await (await server().request('GET', '/docs')).text();
    const paths = attributePaths(html);
    expect(paths.length).toBeGreaterThan(3);
    for (const path of paths) {
      expect(path).toMatch(/^\/orgs\/docs\/static\//);
      expect((await server().request('GET', path.slice(PREFIX.length))).status, path).toBe(200);
    }
  });
});

describe('PUBLIC_URL without a path', () => {
  const server = useServer(databaseTarget('embedded'), { PUBLIC_URL: 'https://orgs.example.com' });

  it("leaves the Link a path from the root, as without PUBLIC_URL, and the console's files where they were", async () => {
    const owner = await registerUser(server(), 'owner');
    const organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, await registerUser(server(), 'member'), 'member');
    const first = await server().call('GET', '/organization-user?limit=1', { token: owner.token, organizationId });
    expect(linkOf(first.headers)).toMatch(/^\/organization-user\?limit=1&cursor=[\w-]+$/);

    const html = await (await server().request('GET', '/console')).text();
    for (const path of attributePaths(html)) expect(path).toMatch(/^\/console\//);
    expect(html).toContain(`<meta name="${PUBLIC_URL_META}" content="https://orgs.example.com" />`);
  });
});

describe('PUBLIC_URL with characters HTML reads otherwise', () => {
  // URL keeps `'` and `&` in a path; in an attribute, `&copy` followed by `/` reads as ©.
  const server = useServer(databaseTarget('embedded'), { PUBLIC_URL: "https://example.com/it's&copy" });

  it("writes them into the console's and the reference page's attributes as character references", async () => {
    const escaped = '/it&#39;s&amp;copy';
    const consolePage = await (await server().request('GET', '/console')).text();
    for (const path of attributePaths(consolePage)) expect(path.startsWith(`${escaped}/console/`), path).toBe(true);
    expect(consolePage).toContain(`content="https://example.com${escaped}"`);
    const reference = await (await server().request('GET', '/docs')).text();
    for (const path of attributePaths(reference)) expect(path.startsWith(`${escaped}/docs/`), path).toBe(true);
  });
});
