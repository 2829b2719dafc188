/**
 * The console's verified domains and joining (behaviour §14, §17), in Chromium on the bundle, on
 * the embedded database, against a DNS server of the test's own on 127.0.0.1 (DNS_SERVERS): an
 * admin adds a domain, copies its TXT record, is told what was found while the record is missing,
 * and verifies it once it is there, lets its people ask to join, and removes another domain; a
 * person whose verified e-mail is at the domain sees the organization among those they may join
 * and asks, the admin approves with a role, another person withdraws their request, and where the
 * domain's enrollment is automatic a person joins at once. The pages are axe-core clean at 1280 px
 * and at 390 px, where nothing is wider than the screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DESKTOP,
  expectAccessible,
  openConsoleAt,
  PHONE,
  saveScreenshot,
  SMALL_PHONE,
  startConsoleService,
} from './support/console.ts';
import { databaseTarget, type TestDatabase } from './support/databases.ts';
import { startDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { uniqueDomain } from './support/domains.ts';
import { uniqueId } from './support/fixtures.ts';
import { closeContexts, launchChromium } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { SHOWN_WITHIN } from './support/timing.ts';
import { tokenFor } from './support/tokens.ts';

const embedded = databaseTarget('embedded');

interface Person {
  token: string;
  email: string;
  name: string;
}

describe('the console: verified domains and joining (behaviour §14, §17)', () => {
  failWithout(chromiumMissing());
  let database: TestDatabase;
  let dns: TestDnsServer;
  let service: ServiceProcess;
  let browser: Browser;
  let admin: Person;
  let organizationId: string;
  const run = uniqueId('domains');
  const domain = uniqueDomain('console');
  const organizationName = `Acme ${run}`;

  /** A person with a profile whose token says their e-mail is verified. */
  async function person(id: string, firstName: string, email: string): Promise<Person> {
    const token = await tokenFor(id, {
      role: 'owner',
      expiresIn: '30m',
      claims: { email, email_verified: true },
    });
    const created = await restCall(service.baseUrl, 'POST', '/users', token, {
      first_name: firstName,
      last_name: 'Tester',
      email,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { token, email, name: `${firstName} Tester` };
  }
  const api = (who: Person, method: string, path: string, body?: object, inOrganization?: string) =>
    restCall(service.baseUrl, method, path, who.token, body, inOrganization);
  const domainsPath = () => `/organizations/${organizationId}/domains`;

  beforeAll(async () => {
    dns = await startDnsServer();
    database = await embedded.create();
    service = await startConsoleService(database.url, '0', { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '1000' });
    browser = await launchChromium();
    // The admin's own e-mail is elsewhere: the domain is not verified by it, only by DNS.
    admin = await person(`${run}-admin`, 'Ada', `${run}-admin@example.com`);
    const created = await api(admin, 'POST', '/organizations', {
      organization_name: organizationName,
      organization_description: '',
    });
    expect(created.status).toBe(201);
    organizationId = created.body.organization_id as string;
  }, 120_000);
  afterEach(() => closeContexts(browser));
  afterAll(async () => {
    await browser?.close();
    service?.kill();
    await dns?.close();
    await database?.drop();
  });

  const openAs = (who: Person, path: string, viewport = DESKTOP) =>
    openConsoleAt(browser, service.baseUrl, { path, token: who.token, viewport, clipboard: true });
  const domainItem = (page: Page, name: string) => page.getByRole('article', { name });

  it(
    'adds a domain, shows its TXT record, tells what was found while the record is missing, verifies it by DNS, sets its enrollment, and removes another',
    { timeout: 120_000 },
    async () => {
      const { page, problems } = await openAs(admin, `/organizations/${organizationId}/domains`);
      await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();
      await page.getByText('This organization has no domains yet.').waitFor();
      await page.getByLabel('Domain', { exact: true }).fill(domain);
      await page.getByRole('button', { name: 'Add domain' }).click();
      const item = domainItem(page, domain);
      await item.waitFor(SHOWN_WITHIN);
      expect(await item.textContent()).toContain('pending');

      // The record shown is the service's, and its copy button copies it.
      const [stored] = (await api(admin, 'GET', domainsPath())).body as Array<{
        verification: { name: string; value: string };
      }>;
      expect(stored!.verification.name).toBe(`_org-verification.${domain}`);
      const shown = await item.locator('.osc-secret').allTextContents();
      expect(shown).toEqual([stored!.verification.name, stored!.verification.value]);
      await item.getByRole('button', { name: 'Copy value' }).click();
      await item.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(stored!.verification.value);
      await expectAccessible(page, 'a pending domain');
      await saveScreenshot(page, 'domains-pending');

      // No record yet: the service's message says what it found.
      await item.getByRole('button', { name: 'Verify' }).click();
      const failure = item.getByRole('alert');
      await failure.waitFor(SHOWN_WITHIN);
      expect(await failure.textContent()).toBe(
        `No TXT record at ${stored!.verification.name} holds ${stored!.verification.value}: found no TXT record`,
      );
      // On a small phone the message, with its long unbroken value, wraps within the domain's card.
      const phone = await openAs(admin, `/organizations/${organizationId}/domains`, SMALL_PHONE);
      await domainItem(phone.page, domain).getByRole('button', { name: 'Verify' }).click();
      await domainItem(phone.page, domain).getByRole('alert').waitFor(SHOWN_WITHIN);
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        SMALL_PHONE.width,
      );
      expect(phone.problems).toEqual([]);
      // Another record: named.
      dns.names.set(stored!.verification.name, { txt: ['v=spf1 -all'] });
      await item.getByRole('button', { name: 'Verify' }).click();
      await expect.poll(() => failure.textContent(), SHOWN_WITHIN).toContain('found the TXT record "v=spf1 -all"');
      await expectAccessible(page, 'a failed verification');
      await saveScreenshot(page, 'domains-verify-failed');

      dns.names.set(stored!.verification.name, { txt: ['v=spf1 -all', stored!.verification.value] });
      await item.getByRole('button', { name: 'Verify' }).click();
      await item.getByText(`${domain} is verified.`).waitFor(SHOWN_WITHIN);
      expect(await item.getByText('verified', { exact: true }).count()).toBe(1);
      expect(await item.locator('.osc-secret').count()).toBe(0);
      expect(dns.asked).toContain(stored!.verification.name);

      // Enrollment: the values the service allows; its people may ask to join.
      const enrollment = item.getByLabel('Enrollment');
      expect(
        await enrollment.locator('option').evaluateAll((all) => all.map((each) => each.getAttribute('value'))),
      ).toEqual(['manual', 'suggestion', 'automatic_invitation', 'automatic']);
      expect(await item.getByLabel('Default role').locator('option[value="owner"]').count()).toBe(0);
      await enrollment.selectOption('suggestion');
      await item.getByRole('button', { name: 'Save' }).click();
      await item.getByText('Saved.').waitFor(SHOWN_WITHIN);
      const [saved] = (await api(admin, 'GET', domainsPath())).body as Array<Record<string, unknown>>;
      expect(saved).toMatchObject({ domain, status: 'verified', enrollment: 'suggestion', default_role: 'member' });
      await expectAccessible(page, 'a verified domain');
      await saveScreenshot(page, 'domains-verified');

      // Another domain, removed after a confirmation.
      const other = uniqueDomain('gone');
      await page.getByLabel('Domain', { exact: true }).fill(other);
      await page.getByRole('button', { name: 'Add domain' }).click();
      await domainItem(page, other).waitFor(SHOWN_WITHIN);
      await domainItem(page, other).getByRole('button', { name: 'Remove' }).click();
      await page.getByRole('group', { name: new RegExp(`^Remove ${other.replaceAll('.', '\\.')}\\?`) }).waitFor();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText(`${other} removed.`).waitFor(SHOWN_WITHIN);
      expect(await domainItem(page, other).count()).toBe(0);
      const left = (await api(admin, 'GET', domainsPath())).body as Array<{ domain: string }>;
      expect(left.map((each) => each.domain)).toEqual([domain]);
      expect(problems).toEqual([]);
    },
  );

  it(
    'shows a person at the domain the organization they may join; they ask, and the admin approves with a role',
    { timeout: 120_000 },
    async () => {
      const joiner = await person(`${run}-joiner`, 'Jo', `${run}-joiner@${domain}`);
      const { page, problems } = await openAs(joiner, '');
      const suggestions = page.getByRole('table', { name: 'Organizations you may join' });
      const row = suggestions.getByRole('row').filter({ hasText: organizationName });
      await row.waitFor(SHOWN_WITHIN);
      expect(await row.textContent()).toContain('An administrator approves');
      await row.getByRole('button', { name: 'Ask to join' }).click();
      await page.getByText(`You asked to join ${organizationName}: its administrators decide.`).waitFor(SHOWN_WITHIN);
      const mine = page.getByRole('table', { name: 'Your join requests' }).getByRole('row').filter({
        hasText: organizationName,
      });
      await expect.poll(() => mine.textContent(), SHOWN_WITHIN).toContain('pending');
      await expectAccessible(page, 'home with a join request');
      await saveScreenshot(page, 'joining-asked');

      const adminPage = (await openAs(admin, `/organizations/${organizationId}/join-requests`)).page;
      const request = adminPage
        .getByRole('table', { name: 'Join requests' })
        .getByRole('row')
        .filter({ hasText: joiner.email });
      await request.waitFor(SHOWN_WITHIN);
      expect(await request.textContent()).toContain('pending');
      await expectAccessible(adminPage, 'join requests');
      await saveScreenshot(adminPage, 'join-requests');
      await request.getByLabel(`Role for ${joiner.name}`).selectOption('admin');
      await request.getByRole('button', { name: 'Approve' }).click();
      await adminPage.getByText(`${joiner.name} joined as admin.`).waitFor(SHOWN_WITHIN);
      await expect.poll(() => request.textContent(), SHOWN_WITHIN).toContain('approved');
      expect(await request.getByRole('button').count()).toBe(0);
      const members = (await api(admin, 'GET', '/organization-user', undefined, organizationId)).body as Array<{
        email: string;
        role: string;
      }>;
      expect(members.find((member) => member.email === joiner.email)?.role).toBe('admin');

      // The person is now a member: the organization is theirs, no longer one they may join.
      await page.reload();
      await page.getByRole('link', { name: organizationName }).waitFor(SHOWN_WITHIN);
      await page.getByText('No organization lets you join by your e-mail address.').waitFor(SHOWN_WITHIN);
      await expect.poll(() => mine.textContent(), SHOWN_WITHIN).toContain('approved');
      expect(problems).toEqual([]);
    },
  );

  it('lets a person withdraw their pending request', { timeout: 60_000 }, async () => {
    const asker = await person(`${run}-asker`, 'Max', `${run}-asker@${domain}`);
    const asked = await api(asker, 'POST', `/organizations/${organizationId}/join`);
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const { page, problems } = await openAs(asker, '');
    const mine = page.getByRole('table', { name: 'Your join requests' }).getByRole('row').filter({
      hasText: organizationName,
    });
    await mine.getByRole('button', { name: 'Withdraw' }).click({ timeout: 30_000 });
    await page.getByText(`Your request to join ${organizationName} was withdrawn.`).waitFor(SHOWN_WITHIN);
    await expect.poll(() => mine.textContent(), SHOWN_WITHIN).toContain('withdrawn');
    const requests = (await api(admin, 'GET', `/organizations/${organizationId}/join-requests`)).body as Array<{
      email: string;
      status: string;
    }>;
    expect(requests.find((request) => request.email === asker.email)?.status).toBe('withdrawn');
    expect(problems).toEqual([]);
  });

  it(
    'is usable at 390 px: nothing wider than the screen, axe-core clean at both widths',
    { timeout: 120_000 },
    async () => {
      // A pending domain (its record) and a pending request (its answers) on the pages walked.
      expect((await api(admin, 'POST', domainsPath(), { domain: uniqueDomain('pending') })).status).toBe(201);
      const waiting = await person(`${run}-waiting`, 'Wanda', `${run}-waiting@${domain}`);
      expect((await api(waiting, 'POST', `/organizations/${organizationId}/join`)).status).toBe(202);
      const walks = [
        [admin, 'domains', `/organizations/${organizationId}/domains`],
        [admin, 'join-requests', `/organizations/${organizationId}/join-requests`],
        [waiting, 'home-joining', ''],
      ] as const;
      for (const viewport of [DESKTOP, PHONE]) {
        for (const [who, name, path] of walks) {
          const { page, problems } = await openAs(who, path, viewport);
          await page.getByRole('heading', { level: 1 }).waitFor();
          await expect.poll(() => page.locator('.osc-busy').count(), { timeout: 30_000 }).toBe(0);
          await expectAccessible(page, `${name} at ${viewport.width} px`);
          if (viewport === PHONE) {
            expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(
              PHONE.width,
            );
            await saveScreenshot(page, `phone-${name}`);
          }
          expect(problems).toEqual([]);
          await page.context().close();
        }
      }
    },
  );

  it('lets a person join at once where the enrollment is automatic', { timeout: 60_000 }, async () => {
    const [listed] = (await api(admin, 'GET', domainsPath())).body as Array<{ domain_id: string }>;
    const automatic = await api(admin, 'PUT', `${domainsPath()}/${listed!.domain_id}`, { enrollment: 'automatic' });
    expect(automatic.status, JSON.stringify(automatic.body)).toBe(200);
    const newcomer = await person(`${run}-newcomer`, 'Nia', `${run}-newcomer@${domain}`);
    const { page, problems } = await openAs(newcomer, '');
    const row = page
      .getByRole('table', { name: 'Organizations you may join' })
      .getByRole('row')
      .filter({ hasText: organizationName });
    await row.waitFor(SHOWN_WITHIN);
    expect(await row.textContent()).toContain('At once');
    await row.getByRole('button', { name: 'Join' }).click();
    await page.getByText(`You joined ${organizationName} as member.`).waitFor(SHOWN_WITHIN);
    await page.getByRole('link', { name: organizationName }).waitFor(SHOWN_WITHIN);
    const members = (await api(admin, 'GET', '/organization-user', undefined, organizationId)).body as Array<{
      email: string;
      role: string;
    }>;
    expect(members.find((member) => member.email === newcomer.email)?.role).toBe('member');
    expect(problems).toEqual([]);
  });
});
