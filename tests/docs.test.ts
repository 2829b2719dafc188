/**
 * The API reference page in a real browser (Debian's Chromium driven by playwright-core): every
 * endpoint is listed, and "Try it out" sends a real request with a token and shows the answer.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from './support/databases.ts';
import { registerUser } from './support/fixtures.ts';
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

  it('lists every endpoint and runs one real request from the page', async () => {
    const user = await registerUser(server());
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

    // Authorize with the bearer token, then "Try it out" on GET /api/users.
    await page.locator('.btn.authorize').first().click();
    await page.locator('.modal-ux input').first().fill(user.token);
    await page.locator('.modal-ux button.authorize').first().click();
    await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();

    const operation = page.locator('#operations-users-users-me-api');
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await operation.locator('.live-responses-table .microlight').first().textContent()).toContain(user.id);
    expect(offsite).toEqual([]);
  });
});
