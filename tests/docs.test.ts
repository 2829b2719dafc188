/**
 * The API reference page in a real browser (Debian's Chromium driven by playwright-core): the
 * service's own page (its name, no Fastify branding, no box that loads other URLs), every endpoint
 * listed, and "Try it out" sending real requests with the token and organization set once under
 * "Authorize". Nothing is loaded from elsewhere.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from './support/databases.ts';
import { createOrganization, registerUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`The browser test must run in CI, but ${CHROMIUM} is missing`);
if (!haveChromium)
  console.warn(`\n!! ${CHROMIUM} is missing (apt-get install -y chromium): the browser test is skipped.\n`);

const embedded = databaseTargets().find((target) => target.name === 'embedded')!;

describe.skipIf(!haveChromium)('API reference page in Chromium', () => {
  const server = useServer(embedded);
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(() => browser?.close());
  // Chromium on a shared two-core machine takes seconds to lay out Swagger UI: room to do it.
  const BROWSER_TEST = { timeout: 90_000 };

  it(
    "is the service's own page: its name, no Fastify branding, no box that loads other URLs",
    BROWSER_TEST,
    async () => {
      const document = (await server().call('GET', '/openapi.json')).body as { info: { title: string } };
      const page = await browser.newPage();
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
    'lists every endpoint and runs real requests from the page with the token and organization set once',
    BROWSER_TEST,
    async () => {
      const user = await registerUser(server());
      const organizationId = await createOrganization(server(), user);
      const document = (await server().call('GET', '/openapi.json')).body as { paths: Record<string, object> };
      const expected = Object.entries(document.paths)
        .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
        .sort();

      const page = await browser.newPage();
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
      const me = await tryItOut('users-me-api');
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
