/**
 * The API reference page in a real browser (Debian's Chromium driven by playwright-core): the
 * service's own page (its name, no Fastify branding, no box that loads other URLs), every endpoint
 * listed, and "Try it out" sending real requests with the token and organization set once under
 * "Authorize". Nothing is loaded from elsewhere, and nothing is upgraded to HTTPS, which the
 * service does not speak: the page also shows under a name other than loopback.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTarget } from './support/databases.ts';
import { launchChromium, newDrawingPage } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import { createOrganization, registerUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';

const embedded = databaseTarget('embedded');
/** Browsers never upgrade loopback to HTTPS; under any other name they obey the page's policy. */
const LAN_NAME = 'orgs-service.test';

/** A Content-Security-Policy as its directives: name → sources. */
const directivesOf = (policy: string | null) =>
  new Map(
    (policy ?? '')
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
  );

const server = useServer(embedded);

describe('API reference page over plain HTTP', () => {
  it("its policy never asks for HTTPS (the service speaks HTTP) and allows the page's own scripts", async () => {
    const pageUrl = `${server().baseUrl}/docs/`;
    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((match) => new URL(match[1]!, pageUrl));
    const links = [...html.matchAll(/<link\b[^>]*\bhref="([^"]+)"/g)].map((match) => new URL(match[1]!, pageUrl));
    expect(scripts.length).toBeGreaterThan(0);
    // Every script is the page's own: same origin, allowed by script-src 'self'.
    expect(scripts.filter((url) => url.origin !== new URL(pageUrl).origin)).toEqual([]);

    for (const url of [new URL(pageUrl), ...scripts, ...links]) {
      const response = await fetch(url);
      expect(response.status, url.pathname).toBe(200);
      const directives = directivesOf(response.headers.get('content-security-policy'));
      expect(directives.has('upgrade-insecure-requests'), url.pathname).toBe(false);
      expect(directives.get('script-src'), url.pathname).toContain("'self'");
      expect(directives.get('default-src'), url.pathname).toEqual(["'self'"]);
    }
  });
});

describe('API reference page in Chromium', () => {
  failWithout(chromiumMissing());
  let browser: Browser;

  beforeAll(async () => {
    // A name that is not loopback, as on a LAN or in a container, that still reaches this machine only.
    browser = await launchChromium([`--host-resolver-rules=MAP ${LAN_NAME} 127.0.0.1`]);
  });
  afterAll(() => browser?.close());
  // Chromium on a shared two-core machine takes seconds to lay out Swagger UI: room to do it.
  const BROWSER_TEST = { timeout: 90_000 };

  it(
    "is the service's own page: its name, no Fastify branding, no box that loads other URLs",
    BROWSER_TEST,
    async () => {
      const document = (await server().call('GET', '/openapi.json')).body as { info: { title: string } };
      const page = await newDrawingPage(browser);
      await page.goto(`${server().baseUrl}/docs/`);
      await page.locator('.opblock').first().waitFor();

      expect(await page.title()).toContain(document.info.title);
      expect(await page.locator('.info .title').textContent()).toContain(document.info.title);
      // Swagger UI's top bar holds Fastify's logo and the "Explore" box; the page has no top bar.
      expect(await page.locator('.topbar, .download-url-input, .download-url-button').count()).toBe(0);
      expect(await page.content()).not.toMatch(/fastify/i);
      const icons = await page
        .locator('link[rel="icon"]')
        .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
      expect(icons).toEqual([expect.stringMatching(/theme\/favicon\.svg$/)]);
      await page.close();
    },
  );

  it(
    'shows the page under a name other than loopback: none of its requests is upgraded to HTTPS',
    BROWSER_TEST,
    async () => {
      const origin = `http://${LAN_NAME}:${new URL(server().baseUrl).port}`;
      const page = await newDrawingPage(browser);
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(`${origin}/`) && !request.url().startsWith('data:'))
          elsewhere.push(request.url());
      });
      // By 'load' the page's scripts and styles have been fetched: over HTTPS they failed, and the page stays blank.
      await page.goto(`${origin}/docs/`);
      expect(elsewhere).toEqual([]);
      await page.locator('.opblock').first().waitFor();
      expect(elsewhere).toEqual([]);
      await page.close();
    },
  );

  it(
    'lists every endpoint and runs real requests from the page with the token and organization set once',
    BROWSER_TEST,
    async () => {
      const user = await registerUser(server());
      const organizationId = await createOrganization(server(), user);
      const document = (await server().call('GET', '/openapi.json')).body as { paths: Record<string, object> };
      const expected = Object.entries(document.paths)
        .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
        .sort();

      const page = await newDrawingPage(browser);
      const offsite: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(server().baseUrl) && !request.url().startsWith('data:'))
          offsite.push(request.url());
      });
      await page.goto(`${server().baseUrl}/docs/`);
      await page.locator('.opblock').first().waitFor();

      const listed = await page
        .locator('.opblock')
        .evaluateAll((blocks) =>
          blocks.map(
            (block) =>
              `${block.querySelector('.opblock-summary-method')?.textContent?.trim()} ${block
                .querySelector('.opblock-summary-path')
                ?.getAttribute('data-path')}`,
          ),
        );
      expect(listed.sort()).toEqual(expected);

      // "Authorize": the bearer token, then the organization, each once for every operation.
      await page.locator('.btn.authorize').first().click();
      const schemes = page.locator('.modal-ux .auth-container');
      for (const [index, value] of [user.token, organizationId].entries()) {
        await schemes.nth(index).locator('input').fill(value);
        await schemes.nth(index).locator('button.authorize').click();
      }
      await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();

      const tryItOut = async (operationId: string) => {
        // Swagger UI's id for an operation: operations-<tag>-<operationId>.
        const operation = page.locator(`.opblock[id$="-${operationId}"]`);
        await operation.locator('.opblock-summary').click();
        await operation.locator('.try-out__btn').click();
        await operation.locator('.execute').click();
        const status = operation.locator('.live-responses-table tbody .response-col_status').first();
        await status.waitFor();
        return {
          status: (await status.textContent())?.trim(),
          body: await operation.locator('.live-responses-table .microlight').first().textContent(),
        };
      };
      const me = await tryItOut('users-me');
      expect(me.status).toBe('200');
      expect(me.body).toContain(user.id);
      // The member list needs the organization_id header: it comes from "Authorize".
      const members = await tryItOut('members-list');
      expect(members.status).toBe('200');
      expect(JSON.parse(members.body!)).toEqual([expect.objectContaining({ user_id: user.id, role: 'owner' })]);
      expect(offsite).toEqual([]);
    },
  );
});
