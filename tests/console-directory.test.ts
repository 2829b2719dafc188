/**
 * The console's Directory page (behaviour §14, §18), in Chromium on MariaDB: the SCIM base
 * URL, a key for the identity provider made and shown once (copied, then gone), the default role
 * changed, and what that key pushed over SCIM listed, a page at a time when there are more than a
 * page of users and groups; axe-core clean at 1280 px and at 390 px, where nothing is wider than
 * the screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DIRECTORY_PAGE_SIZE } from '../client/src/react/directory/directory.ts';
import {
  DESKTOP,
  expectAccessible,
  openConsoleAt,
  PHONE,
  saveScreenshot,
  SMALL_PHONE,
  startConsoleService,
} from './support/console.ts';
import { describeOnDatabase, type TestDatabase } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';
import { closeContexts, launchChromium } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import { pooled } from './support/pooled.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { GROUP_SCHEMA, oktaUser, scimClient } from './support/scim.ts';
import { SHOWN_WITHIN } from './support/timing.ts';
import { tokenFor } from './support/tokens.ts';

/** A page and a bit of each: two pages in the console. */
const PAGED_USERS = DIRECTORY_PAGE_SIZE + 20;
const PAGED_GROUPS = DIRECTORY_PAGE_SIZE + 1;
/** The identity provider's requests at once while seeding. */
const SEEDING_CONCURRENCY = 8;

describeOnDatabase('mariadb', 'the console: Directory (behaviour §14, §18)', (target) => {
  failWithout(chromiumMissing());
  let database: TestDatabase;
  let service: ServiceProcess;
  let browser: Browser;
  let ownerToken: string;
  let organizationId: string;
  const run = uniqueId('directory');

  const api = (method: string, path: string, body?: object) =>
    restCall(service.baseUrl, method, path, ownerToken, body);

  beforeAll(async () => {
    database = await target.create();
    service = await startConsoleService(database.url);
    browser = await launchChromium();
    ownerToken = await tokenFor(`${run}-owner`, { role: 'owner' });
    const profile = { first_name: 'Dana', last_name: 'Directory', email: `${run}-owner@example.com` };
    expect((await api('POST', '/users', profile)).status).toBe(201);
    const created = await api('POST', '/organizations', { organization_name: 'Synced', organization_description: '' });
    expect(created.status).toBe(201);
    organizationId = created.body.organization_id as string;
    const role = await api('POST', `/organizations/${organizationId}/roles`, {
      role: 'support',
      description: 'Reads the organization',
      permissions: ['organization:read'],
    });
    expect(role.status).toBe(201);
  }, 120_000);
  afterEach(() => closeContexts(browser));
  afterAll(async () => {
    await browser?.close();
    service?.kill();
    await database?.drop();
  });

  const openAt = async (viewport: typeof DESKTOP, organization = organizationId) => {
    const opened = await openConsoleAt(browser, service.baseUrl, {
      path: `/organizations/${organization}/directory`,
      token: ownerToken,
      viewport,
      clipboard: true,
    });
    await opened.page.getByRole('heading', { level: 1, name: 'Directory' }).waitFor();
    return opened;
  };

  const settled = (page: Page) => expect.poll(() => page.locator('.osc-busy').count(), { timeout: 30_000 }).toBe(0);

  it(
    'makes a key for the identity provider shown once, sets the default role, and lists what SCIM pushed',
    { timeout: 180_000 },
    async () => {
      const { page, problems } = await openAt(DESKTOP);
      await page.getByText(`${service.baseUrl}/scim/v2`, { exact: true }).waitFor();
      await page.getByText('Your identity provider has provisioned no one yet.').waitFor();
      await settled(page);
      await expectAccessible(page, 'directory empty');

      await page.getByRole('button', { name: 'Create a key for your identity provider' }).click();
      const secret = page.locator('.osc-secret');
      await expect.poll(() => secret.textContent(), SHOWN_WITHIN).toMatch(/^oak_[A-Za-z0-9_-]{43}$/);
      const key = (await secret.textContent())!;
      await page.getByRole('button', { name: 'Copy secret' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await expectAccessible(page, 'directory with the key shown');
      await page.getByRole('button', { name: 'I have copied it' }).click();
      expect(await secret.count()).toBe(0);
      // The focus the secret took goes back to the button that made it, not to the page.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
        'Create a key for your identity provider',
      );

      await page.getByLabel('Role of new directory members').selectOption('support');
      expect(await page.getByLabel('Role of new directory members').locator('option[value="owner"]').count()).toBe(0);
      await page.getByRole('button', { name: 'Save default role' }).click();
      await page.getByText('New directory members get the role support.').waitFor(SHOWN_WITHIN);
      expect((await api('GET', `/organizations/${organizationId}/directory`)).body.default_role).toBe('support');

      // The identity provider, with the key the page made.
      const scim = scimClient(service, key);
      // Unbroken and longer than its column: it wraps, and the table does not scroll sideways.
      const email = `${run.replaceAll('-', '')}${'pushed'.repeat(7)}@example.com`;
      const user = await scim.send('POST', '/Users', oktaUser(email));
      expect(user.status, JSON.stringify(user.body)).toBe(201);
      const group = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: 'Pushed engineers',
        members: [{ value: user.body.id }],
      });
      expect(group.status, JSON.stringify(group.body)).toBe(201);

      // Pushed from elsewhere: seen at once after a reload (the console caches reads for 5 s).
      await page.reload();
      const users = page.getByRole('table', { name: 'Directory users' });
      const userRow = users.getByRole('row').filter({ hasText: email });
      await expect.poll(() => userRow.textContent(), SHOWN_WITHIN).toContain('Pending: no profile yet');
      const groups = page.getByRole('table', { name: 'Directory groups' });
      const groupRow = groups.getByRole('row').filter({ hasText: 'Pushed engineers' });
      await expect.poll(() => groupRow.getByRole('cell').first().textContent(), SHOWN_WITHIN).toBe('1');
      const changes = page.getByRole('table', { name: 'Last directory changes' });
      await expect.poll(() => changes.textContent(), SHOWN_WITHIN).toContain('team.created');
      expect(await page.getByLabel('Role of new directory members').inputValue()).toBe('support');
      await settled(page);
      expect(await users.evaluate((table) => table.parentElement!.scrollWidth - table.parentElement!.clientWidth)).toBe(
        0,
      );
      await expectAccessible(page, 'directory with users and groups');
      await saveScreenshot(page, 'directory');
      expect(problems).toEqual([]);

      const phone = await openAt(PHONE);
      await phone.page.getByRole('table', { name: 'Directory users' }).getByText(email).waitFor(SHOWN_WITHIN);
      await settled(phone.page);
      await expectAccessible(phone.page, 'directory at 390 px');
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await saveScreenshot(phone.page, 'phone-directory');
      expect(phone.problems).toEqual([]);

      // At 375 px the longest button's label wraps within its card rather than stick out of it.
      const small = await openAt(SMALL_PHONE);
      await small.page.getByRole('button', { name: 'Create a key for your identity provider' }).waitFor(SHOWN_WITHIN);
      const outside = await small.page.evaluate(() =>
        Array.from(document.querySelectorAll('.osc-section .osc-button'))
          .filter(
            (button) =>
              button.getBoundingClientRect().right > button.closest('.osc-section')!.getBoundingClientRect().right,
          )
          .map((button) => button.textContent),
      );
      expect(outside).toEqual([]);
      expect(small.problems).toEqual([]);
    },
  );

  it(
    'walks a directory of more than a page of users and groups a page at a time, and back',
    { timeout: 240_000 },
    async () => {
      const created = await api('POST', '/organizations', {
        organization_name: 'Big directory',
        organization_description: '',
      });
      expect(created.status).toBe(201);
      const bigId = created.body.organization_id as string;
      const key = await api('POST', `/organizations/${bigId}/api-keys`, { name: 'Identity provider', role: 'admin' });
      expect(key.status).toBe(201);
      const scim = scimClient(service, key.body.secret as string);
      const emails = Array.from({ length: PAGED_USERS }, (_, n) => `${run}-p${String(n).padStart(3, '0')}@example.com`);
      const groupNames = Array.from({ length: PAGED_GROUPS }, (_, n) => `Group ${String(n).padStart(3, '0')}`);
      await pooled(PAGED_USERS, SEEDING_CONCURRENCY, async (n) => {
        const pushed = await scim.send('POST', '/Users', oktaUser(emails[n]!, 'Person', `Seed${n}`));
        expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
      });
      await pooled(PAGED_GROUPS, SEEDING_CONCURRENCY, async (n) => {
        const pushed = await scim.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: groupNames[n] });
        expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
      });

      const { page, problems } = await openAt(DESKTOP, bigId);
      /** Walks the table's two pages: each row once, the second page's none of the first's, and back. */
      const walk = async (tableName: string, pagerName: string, all: string[]) => {
        const table = page.getByRole('table', { name: tableName });
        const pager = page.getByRole('navigation', { name: pagerName });
        const shown = () => table.locator('tbody th').allTextContents();
        await pager.getByText('Page 1 of 2').waitFor(SHOWN_WITHIN);
        await expect.poll(async () => (await shown()).length, SHOWN_WITHIN).toBe(DIRECTORY_PAGE_SIZE);
        const first = await shown();
        expect(await pager.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);

        await pager.getByRole('button', { name: 'Next page' }).click();
        await pager.getByText('Page 2 of 2').waitFor(SHOWN_WITHIN);
        // The first page stays while the second loads.
        await expect.poll(async () => (await shown()).length, SHOWN_WITHIN).toBe(all.length - DIRECTORY_PAGE_SIZE);
        const second = await shown();
        expect(second.filter((name) => first.includes(name))).toEqual([]);
        expect([...first, ...second].sort()).toEqual([...all].sort());
        // Next is disabled on the last page: the focus went to Previous, not to nobody.
        expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
        await expect
          .poll(() => page.evaluate(() => document.activeElement?.textContent), SHOWN_WITHIN)
          .toBe('Previous page');
        await settled(page);
        await expectAccessible(page, `${tableName}, page 2`);

        await pager.getByRole('button', { name: 'Previous page' }).click();
        await pager.getByText('Page 1 of 2').waitFor(SHOWN_WITHIN);
        await expect.poll(shown, SHOWN_WITHIN).toEqual(first);
      };
      await walk('Directory users', 'Directory user pages', emails);
      await walk('Directory groups', 'Directory group pages', groupNames);
      expect(problems).toEqual([]);

      const phone = await openAt(PHONE, bigId);
      const pager = phone.page.getByRole('navigation', { name: 'Directory user pages' });
      await pager.getByRole('button', { name: 'Next page' }).click();
      await pager.getByText('Page 2 of 2').waitFor(SHOWN_WITHIN);
      await expect
        .poll(
          () => phone.page.getByRole('table', { name: 'Directory users' }).locator('tbody tr').count(),
          SHOWN_WITHIN,
        )
        .toBe(PAGED_USERS - DIRECTORY_PAGE_SIZE);
      await settled(phone.page);
      await expectAccessible(phone.page, 'directory users, page 2, at 390 px');
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      expect(phone.problems).toEqual([]);
    },
  );
});
