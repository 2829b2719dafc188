/**
 * The console (behaviour §14) as its users get it: served by the bundle (`npm start`'s), driven in
 * Debian's Chromium by playwright-core, on the embedded database (`npm start`'s default).
 *
 * The walk: an owner signs in through the URL fragment, creates their profile and an organization,
 * invites a colleague, who signs in by pasting a token in a second browser context and accepts;
 * the owner creates a role and a team, gives the colleague the team, and the colleague's console
 * shows what the team's role gives them; the owner creates a webhook (its secret shown once) and
 * sees a delivery, and watches the events page take a new event live. A member sees no management
 * controls; an organization the user is not in, or a malformed organization id, is said to be
 * unavailable at once; an expired or refused token lands on the sign-in page; and a task done with
 * the keyboard alone (Tab, Enter, Space, Escape), each control found by tabbing to it.
 *
 * Every page is checked with axe-core (no serious or critical violation), every console message is
 * checked for Content-Security-Policy refusals. `UPDATE_SCREENSHOTS=true npx vitest run
 * tests/console.test.ts` also writes a screenshot of each page to docs/console/ (the README shows
 * two).
 */
import { gunzipSync } from 'node:zlib';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../server/http/console.ts';
import { SCRIPT_BUDGET_BYTES } from '../console/build.ts';
import {
  expectAccessible,
  navigation,
  newConsoleContext,
  openConsole,
  saveScreenshot,
  startConsoleService,
} from './support/console.ts';
import { databaseTarget, describeOnDatabase, type TestDatabase } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';
import { setMaxMembers } from './support/limits.ts';
import { closeContexts, launchChromium } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { tokenFor } from './support/tokens.ts';
import { SHOWN_WITHIN } from './support/timing.ts';
import { startReceiver, type Receiver } from './support/webhooks.ts';

const embedded = databaseTarget('embedded');

describe('the console as the bundle serves it', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  beforeAll(async () => {
    database = await embedded.create();
    service = await startConsoleService(database.url);
  });
  afterAll(async () => {
    service?.kill();
    await database?.drop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${service.baseUrl}${path}`, { headers: { 'accept-encoding': 'identity', ...headers } });

  it('serves the console from the bundle by default, under its Content-Security-Policy', async () => {
    const page = await get('/console');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    // The page loads only its own files, by absolute paths under /console.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBe(3);
    for (const asset of assets) expect(asset).toMatch(/^\/console\/(assets\/[\w-]+\.(js|css)|favicon\.svg)$/);
    expect(html).not.toMatch(/<script>|<style|style=/);
    // The same page on every path under /console: the page's own router reads the path.
    for (const path of ['/console/', '/console/profile', '/console/organizations/abc/members']) {
      const other = await get(path);
      expect(other.status, path).toBe(200);
      expect(await other.text(), path).toBe(html);
    }
    // Revalidated with its ETag.
    const again = await get('/console', { 'if-none-match': page.headers.get('etag')! });
    expect(again.status).toBe(304);

    for (const asset of assets.filter((path) => path.includes('/assets/'))) {
      const plain = await get(asset);
      expect(plain.status, asset).toBe(200);
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(plain.headers.get('content-type')).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      const bytes = Buffer.from(await plain.arrayBuffer());
      const gzipped = await get(asset, { 'accept-encoding': 'gzip' });
      expect(gzipped.headers.get('content-encoding')).toBe('gzip');
      expect(gzipped.headers.get('vary')).toBe('accept-encoding');
      // fetch decodes it: the same bytes as the plain answer.
      expect(Buffer.from(await gzipped.arrayBuffer()).equals(bytes)).toBe(true);
      const brotli = await get(asset, { 'accept-encoding': 'gzip, deflate, br' });
      expect(brotli.headers.get('content-encoding')).toBe('br');
      expect(Buffer.from(await brotli.arrayBuffer()).equals(bytes)).toBe(true);
      // Weights: q=0 refuses a coding, and the heavier of two accepted ones is sent.
      const codingFor = async (accepted: string) =>
        (await get(asset, { 'accept-encoding': accepted })).headers.get('content-encoding');
      expect(await codingFor('br;q=0, gzip')).toBe('gzip');
      expect(await codingFor('gzip;q=0.5, br;q=0.1')).toBe('gzip');
      expect(await codingFor('br;q=0, gzip;q=0')).toBeNull();
    }
    const missing = await get('/console/assets/missing-0000.js');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it(`keeps the console's script within its budget of ${SCRIPT_BUDGET_BYTES / 1024} KB gzipped`, async () => {
    const html = await (await get('/console')).text();
    const script = /src="(\/console\/assets\/[\w-]+\.js)"/.exec(html)![1]!;
    const gzipped = await fetch(`${service.baseUrl}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    // What travels: the gzip copy as sent (fetch would decode it).
    const sent = await restRawLength(service.baseUrl, script);
    expect(gzipped.status).toBe(200);
    console.info(
      `console: the script is ${(sent / 1024).toFixed(1)} KB gzipped (budget ${SCRIPT_BUDGET_BYTES / 1024} KB)`,
    );
    expect(sent).toBeLessThanOrEqual(SCRIPT_BUDGET_BYTES);
    expect(sent).toBeGreaterThan(10_000);
  });
});

/** The length of a gzip answer's body as sent (Node's fetch decodes it), by decoding it ourselves. */
async function restRawLength(baseUrl: string, path: string): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(`${baseUrl}${path}`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        // It is gzip indeed: it decodes.
        gunzipSync(body);
        resolve(body.length);
      });
    })
      .on('error', reject)
      .end();
  });
}

/** How many of `locator` the delivery log shows after its Refresh button is pressed: for expect.poll. */
const afterRefresh = (page: Page, locator: Locator) => async () => {
  await page.getByRole('button', { name: 'Refresh' }).click();
  return locator.count();
};

/** Changes the organization's description through the API, as `token`'s holder: an `organization.updated`. */
const describeOrganization = async (baseUrl: string, token: string, organizationId: string, description: string) => {
  const changed = await restCall(baseUrl, 'PUT', `/organizations/${organizationId}`, token, {
    organization_description: description,
  });
  expect(changed.status).toBe(200);
};

const openSection = async (page: Page, section: string) => {
  await navigation(page).getByRole('link', { name: section, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: section }).waitFor();
};

describeOnDatabase('embedded', 'the console in Chromium (behaviour §14)', (target) => {
  failWithout(chromiumMissing());
  let database: TestDatabase;
  let service: ServiceProcess;
  let browser: Browser;
  let receiver: Receiver;
  const run = uniqueId('walk');

  /** Checks the page with axe-core, and keeps its screenshot for the docs (`saveScreenshot`). */
  const checkPage = async (page: Page, name: string) => {
    await expectAccessible(page, name);
    await saveScreenshot(page, name);
  };

  /** A user `id` with a profile made through the API (`<id>@example.com`): their token. */
  const userWithProfile = async (id: string, firstName: string, lastName: string) => {
    const token = await tokenFor(id, { role: 'owner' });
    const created = await restCall(service.baseUrl, 'POST', '/users', token, {
      first_name: firstName,
      last_name: lastName,
      email: `${id}@example.com`,
    });
    expect(created.status).toBe(201);
    return token;
  };
  /** An organization named `name`, created through the API by the holder of `token`: its id. */
  const organizationBy = async (token: string, name: string) => {
    const created = await restCall(service.baseUrl, 'POST', '/organizations', token, {
      organization_name: name,
      organization_description: '',
    });
    expect(created.status).toBe(201);
    return created.body.organization_id as string;
  };

  beforeAll(async () => {
    database = await target.create();
    service = await startConsoleService(database.url);
    receiver = await startReceiver();
    browser = await launchChromium();
  }, 60_000);
  afterEach(() => closeContexts(browser));
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    service?.kill();
    await database?.drop();
  });

  const newContext = () => newConsoleContext(browser);

  it(
    'walks an owner and a colleague through every page: profile, organization, invitation, role, team, webhook, live events',
    { timeout: 240_000 },
    async () => {
      const ownerId = `${run}-owner`;
      const colleagueId = `${run}-colleague`;
      const colleagueEmail = `${colleagueId}@example.com`;
      const owner = await openConsole(await newContext());
      const { page } = owner;

      // Signed in by a host application through the fragment, which leaves the address bar at once.
      const started = performance.now();
      await page.goto(`${service.baseUrl}/console#token=${await tokenFor(ownerId, { role: 'owner' })}`);
      await page.getByRole('button', { name: 'Create profile' }).waitFor();
      const usableMs = performance.now() - started;
      console.info(`console on ${target.name}: first page usable ${usableMs.toFixed(0)} ms after navigation`);
      expect(page.url()).toBe(`${service.baseUrl}/console`);
      await checkPage(page, 'profile-new');

      // The profile, then the organization, by keyboard as much as by mouse.
      await page.getByLabel('First name').fill('Ada');
      await page.getByLabel('Last name').fill('Owner');
      await page.getByLabel('Email').fill(`${ownerId}@example.com`);
      await page.getByLabel('Email').press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Your organizations' }).waitFor();
      await page.getByLabel('Organization name').fill('Acme Robotics');
      await page.getByRole('button', { name: 'Create organization' }).click();
      await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      const organizationId = /\/console\/organizations\/([^/]+)\/members$/.exec(page.url())![1]!;

      // A field the service refuses shows its message next to the field, and changes nothing.
      await openSection(page, 'Invitations');
      await page.getByLabel('Email').fill('not an address');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await expect.poll(() => page.locator('.osc-field__error').count(), SHOWN_WITHIN).toBeGreaterThan(0);
      await page.getByLabel('Email').fill(colleagueEmail);
      await page.getByRole('button', { name: 'Send invitation' }).click();
      const invitations = page.getByRole('table', { name: 'Invitations' });
      await invitations.getByRole('row').filter({ hasText: colleagueEmail }).first().waitFor();
      await checkPage(page, 'invitations');

      // The colleague signs in by pasting a token, in a second browser context, and accepts.
      const colleague = await openConsole(await newContext());
      await colleague.page.goto(`${service.baseUrl}/console`);
      await colleague.page.getByLabel('Bearer token').waitFor();
      await checkPage(colleague.page, 'sign-in');
      await colleague.page.getByLabel('Bearer token').fill(await tokenFor(colleagueId, { role: 'owner' }));
      await colleague.page.getByRole('button', { name: 'Sign in' }).click();
      await colleague.page.getByLabel('First name').fill('Grace');
      await colleague.page.getByLabel('Last name').fill('Colleague');
      await colleague.page.getByLabel('Email').fill(colleagueEmail);
      await colleague.page.getByRole('button', { name: 'Create profile' }).click();
      const mine = colleague.page.getByRole('table', { name: 'Your invitations' });
      await mine.getByRole('row').filter({ hasText: 'Acme Robotics' }).first().waitFor();
      await checkPage(colleague.page, 'home-invited');
      await mine.getByRole('button', { name: 'Accept' }).click();
      await colleague.page.getByRole('link', { name: 'Acme Robotics' }).click();
      await colleague.page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      // A member reads the members, roles and teams, and has no events section.
      await expect
        .poll(() => navigation(colleague.page).getByRole('link').allTextContents(), SHOWN_WITHIN)
        .toEqual(['Settings', 'Members', 'Roles', 'Teams']);

      // The owner makes a role that reads the events, and a team that gives it to the colleague.
      await openSection(page, 'Roles');
      await page.getByLabel('Role name').fill('auditor');
      await page.getByRole('checkbox', { name: 'events:read' }).check();
      await page.getByRole('button', { name: 'Create role' }).click();
      await page
        .getByRole('table', { name: 'Roles' })
        .getByRole('row')
        .filter({ hasText: 'auditor' })
        .first()
        .waitFor();
      await checkPage(page, 'roles');

      await openSection(page, 'Teams');
      await page.getByLabel('Team name').fill('Auditors');
      await page.getByRole('checkbox', { name: 'auditor' }).check();
      await page.getByRole('button', { name: 'Create team' }).click();
      const teams = page.getByRole('table', { name: 'Teams' });
      await teams.getByRole('row').filter({ hasText: 'Auditors' }).first().waitFor();
      await teams
        .getByRole('row', { name: /Auditors/ })
        .getByRole('button', { name: 'Members' })
        .click();
      await page.getByRole('combobox', { name: 'Member', exact: true }).fill('gra');
      await page.getByRole('option', { name: /Grace/ }).click();
      await page.getByRole('button', { name: 'Add to team' }).click();
      await page
        .getByRole('table', { name: 'Members of Auditors' })
        .getByRole('row')
        .filter({ hasText: /Grace/ })
        .first()
        .waitFor();
      await checkPage(page, 'teams');

      // The colleague's console shows what the team gives them, at the next look.
      await colleague.page.reload();
      await expect
        .poll(() => navigation(colleague.page).getByRole('link').allTextContents(), SHOWN_WITHIN)
        .toContain('Events');
      await openSection(colleague.page, 'Events');
      await colleague.page.getByRole('table', { name: 'Events' }).waitFor();

      // A webhook: its secret shown once, then a delivery in its log.
      await openSection(page, 'Webhooks');
      await page.getByLabel('Endpoint URL').fill(receiver.url('/console-hook'));
      await page.getByRole('button', { name: 'Create webhook' }).click();
      const secret = page.locator('.osc-secret');
      await expect.poll(() => secret.textContent(), SHOWN_WITHIN).toMatch(/^whsec_/);
      await checkPage(page, 'webhook-secret');
      await page.getByRole('button', { name: 'I have copied it' }).click();
      expect(await secret.count()).toBe(0);
      await describeOrganization(service.baseUrl, await tokenFor(ownerId), organizationId, 'Makes robots');
      await expect.poll(() => receiver.at('/console-hook').length, { timeout: 15_000 }).toBeGreaterThan(0);
      await page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('button', { name: 'Deliveries' }).click();
      await expect.poll(afterRefresh(page, page.getByText('succeeded')), { timeout: 15_000 }).toBeGreaterThan(0);
      await checkPage(page, 'webhooks');

      // Rotating the secret shows the new one once too.
      const endpoints = page.getByRole('table', { name: 'Webhook endpoints' });
      await endpoints.getByRole('button', { name: 'Rotate secret' }).click();
      await endpoints.getByRole('button', { name: 'Confirm' }).click();
      await expect.poll(() => secret.textContent(), SHOWN_WITHIN).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      // A delivery the receiver refuses at each attempt has failed; retried from the log once the
      // receiver takes it, it is delivered. Refused by its content, not as the next two requests:
      // the rotation's own event (webhook.updated) may be under way too, and would take one.
      receiver.respond((request) => (request.body.includes('Makes more robots') ? 500 : 200));
      await describeOrganization(service.baseUrl, await tokenFor(ownerId), organizationId, 'Makes more robots');
      const retryButton = page.getByRole('button', { name: 'Retry' });
      await expect.poll(afterRefresh(page, retryButton), { timeout: 15_000 }).toBe(1);
      receiver.respond([]);
      await retryButton.click();
      await expect.poll(afterRefresh(page, retryButton), { timeout: 15_000 }).toBe(0);
      const webhooks = await restCall(
        service.baseUrl,
        'GET',
        `/organizations/${organizationId}/webhooks`,
        await tokenFor(ownerId),
      );
      const deliveryStatuses = async () => {
        const log = await restCall(
          service.baseUrl,
          'GET',
          `/organizations/${organizationId}/webhooks/${webhooks.body[0].webhook_id}/deliveries`,
          await tokenFor(ownerId),
        );
        return log.body.map((delivery: { status: string }) => delivery.status);
      };
      // The rename, the rotation (a webhook.updated) and the retried change: all delivered (the
      // retried one is pending until its new attempt has been answered).
      await expect.poll(deliveryStatuses, { timeout: 15_000 }).toEqual(['succeeded', 'succeeded', 'succeeded']);

      // The events page takes a new event live, without a reload.
      await openSection(page, 'Events');
      const events = page.getByRole('table', { name: 'Events' });
      await events.getByText('organization.updated').first().waitFor();
      await page.getByText('Live', { exact: true }).waitFor();
      const shown = await events.getByText('team.updated').count();
      const changed = await restCall(
        service.baseUrl,
        'PUT',
        `/organizations/${organizationId}/teams/${await teamId(service.baseUrl, ownerId, organizationId, 'Auditors')}`,
        await tokenFor(ownerId),
        { description: 'Read the events' },
      );
      expect(changed.status).toBe(200);
      await expect.poll(() => events.getByText('team.updated').count(), { timeout: 15_000 }).toBe(shown + 1);
      // The colleague's events page, open all along, took it too.
      await expect
        .poll(() => colleague.page.getByRole('table', { name: 'Events' }).getByText('team.updated').count(), {
          timeout: 15_000,
        })
        .toBe(shown + 1);
      await checkPage(page, 'events');

      // The colleague's membership gets an expiry, then loses it again.
      await openSection(page, 'Members');
      // This page read the member list before the colleague joined, from their own browser; when
      // the walk is quick that was less than the console's staleTime (5 s) ago, and the list is shown
      // from the cache (docs/development.md, "Cached reads"). A reload reads it afresh.
      await page.reload();
      const members = page.getByRole('table', { name: 'Members' });
      const graceRow = members.getByRole('row').filter({ hasText: colleagueEmail });
      await graceRow.getByRole('button', { name: 'Edit' }).click();
      const editForm = page.getByRole('form', { name: /Edit the membership of/ });
      await editForm.getByLabel('Expires').fill('2031-05-04T12:30');
      await editForm.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => graceRow.textContent(), SHOWN_WITHIN).toContain('2031');
      const stored = await restCall(
        service.baseUrl,
        'GET',
        `/organization-user/${colleagueId}`,
        await tokenFor(ownerId),
        undefined,
        organizationId,
      );
      expect(stored.body.expires_at).toMatch(/^2031-05-04T/);
      await graceRow.getByRole('button', { name: 'Edit' }).click();
      await editForm.getByRole('button', { name: 'Clear expiry' }).click();
      await editForm.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => graceRow.textContent(), SHOWN_WITHIN).not.toContain('2031');
      await page
        .getByRole('table', { name: 'Members' })
        .getByRole('row')
        .filter({ hasText: colleagueEmail })
        .first()
        .waitFor();
      await checkPage(page, 'members');
      await openSection(page, 'Settings');
      await page.getByRole('heading', { name: 'Edit organization' }).waitFor();
      await checkPage(page, 'settings');
      // Renamed here, the switcher in the header says so too.
      const editOrganization = page.getByRole('form', { name: 'Edit organization' });
      await editOrganization.getByLabel('Organization name').fill('Acme Robots');
      await editOrganization.getByRole('button', { name: 'Save changes' }).click();
      await expect
        .poll(
          () => page.getByLabel('Organization', { exact: true }).locator('option:checked').textContent(),
          SHOWN_WITHIN,
        )
        .toBe('Acme Robots');
      await page.getByRole('link', { name: 'Profile' }).click();
      await page.getByRole('button', { name: 'Save profile' }).waitFor();
      await checkPage(page, 'profile');
      await page.getByRole('link', { name: 'Organizations console' }).click();
      await page.getByRole('link', { name: 'Acme Robots' }).waitFor();
      await checkPage(page, 'home');

      expect(owner.problems).toEqual([]);
      expect(colleague.problems).toEqual([]);
    },
  );

  it('shows a member no management controls', { timeout: 120_000 }, async () => {
    const ownerId = `${run}-boss`;
    const memberId = `${run}-member`;
    const ownerToken = await userWithProfile(ownerId, 'Some', ownerId);
    const memberToken = await userWithProfile(memberId, 'Some', memberId);
    const organizationId = await organizationBy(ownerToken, 'Members only');
    const added = await restCall(
      service.baseUrl,
      'POST',
      '/organization-user',
      ownerToken,
      { email: `${memberId}@example.com`, role: 'member' },
      organizationId,
    );
    expect(added.status).toBe(201);

    const member = await openConsole(await newContext());
    const { page } = member;
    await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/members#token=${memberToken}`);
    await page
      .getByRole('table', { name: 'Members' })
      .getByRole('row')
      .filter({ hasText: `${ownerId}@example.com` })
      .first()
      .waitFor();
    await expect
      .poll(() => navigation(page).getByRole('link').allTextContents(), SHOWN_WITHIN)
      .toEqual(['Settings', 'Members', 'Roles', 'Teams']);
    const main = page.getByRole('main');
    // Their own row offers leaving; nothing else changes anything.
    expect(await main.getByRole('button', { name: 'Leave organization' }).count()).toBe(1);
    for (const name of ['Edit', 'Remove', 'Add member', 'Delete', 'Revoke']) {
      expect(await main.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    await checkPage(page, 'members-as-member');
    await openSection(page, 'Roles');
    await page.getByRole('table', { name: 'Roles' }).waitFor();
    expect(await main.getByRole('button').count()).toBe(0);
    await openSection(page, 'Teams');
    await page.getByRole('heading', { name: 'Teams' }).nth(1).waitFor();
    expect(await main.getByRole('button', { name: 'Create team' }).count()).toBe(0);
    await openSection(page, 'Settings');
    await page.getByRole('table', { name: 'Organization details' }).waitFor();
    expect(await main.getByRole('button').count()).toBe(0);
    // A section its role does not show, asked for by its address.
    await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/webhooks`);
    await page.getByText('Your role in this organization does not let you see this.').waitFor();
    expect(member.problems).toEqual([]);
  });

  it(
    'manages API keys: the secret shown once with a copy button, the last use, revoking; the seat limit in the settings',
    { timeout: 120_000 },
    async () => {
      const ownerId = `${run}-api-keys`;
      const ownerToken = await userWithProfile(ownerId, 'Kim', 'Keys');
      const organizationId = await organizationBy(ownerToken, 'Keyed');
      await setMaxMembers({ databaseUrl: database.url }, organizationId, 25);
      const context = await newContext();
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.baseUrl });
      const owner = await openConsole(context);
      const { page } = owner;
      await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/api-keys#token=${ownerToken}`);
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.getByText('This organization has no API keys yet.').waitFor();
      await checkPage(page, 'api-keys-empty');

      await page.getByLabel('Name').fill('Reporting job');
      await page.getByLabel('Role').selectOption('admin');
      expect(await page.getByLabel('Role').locator('option[value="owner"]').count()).toBe(0);
      await page.getByRole('button', { name: 'Create API key' }).click();
      const secret = page.locator('.osc-secret');
      await expect.poll(() => secret.textContent(), SHOWN_WITHIN).toMatch(/^oak_[A-Za-z0-9_-]{43}$/);
      const shown = (await secret.textContent())!;
      await checkPage(page, 'api-key-secret');
      await page.getByRole('button', { name: 'Copy secret' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      expect(await secret.count()).toBe(0);
      const keys = page.getByRole('table', { name: 'API keys' });
      const row = keys.getByRole('row').filter({ hasText: 'Reporting job' });
      await expect.poll(() => row.textContent(), SHOWN_WITHIN).toContain(shown.slice(0, 12));
      expect(await row.textContent()).not.toContain(shown.slice(12));
      expect(await row.getByRole('cell').nth(2).textContent()).toBe('Never');

      // Used once, the key shows its last use at the next look.
      expect((await restCall(service.baseUrl, 'GET', `/organizations/${organizationId}`, shown)).status).toBe(200);
      await expect
        .poll(
          async () => {
            await page.reload();
            return row.getByRole('cell').nth(2).textContent();
          },
          { timeout: 30_000 },
        )
        .not.toBe('Never');
      await checkPage(page, 'api-keys');

      await row.getByRole('button', { name: 'Revoke' }).click();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText('API key Reporting job revoked.').waitFor();
      await page.getByText('This organization has no API keys yet.').waitFor();
      expect((await restCall(service.baseUrl, 'GET', `/organizations/${organizationId}`, shown)).status).toBe(401);

      await openSection(page, 'Settings');
      const details = page.getByRole('table', { name: 'Organization details' });
      await details.waitFor();
      expect(await details.getByRole('row', { name: /Member limit/ }).textContent()).toContain('25');
      expect(await details.getByRole('row', { name: /^Members/ }).textContent()).toContain('1');
      await checkPage(page, 'settings-with-limit');
      expect(owner.problems).toEqual([]);
    },
  );

  it(
    'says at once that an organization is not available: one the user is not in, and a malformed id, with a way back',
    { timeout: 60_000 },
    async () => {
      const ownerToken = await userWithProfile(`${run}-keeper`, 'Some', 'Keeper');
      const strangerToken = await userWithProfile(`${run}-stranger`, 'Some', 'Stranger');
      const organizationId = await organizationBy(ownerToken, 'Not yours');
      const { page, problems } = await openConsole(await newContext());
      const main = page.getByRole('main');
      // The service refuses at once (403, 400); the bound is a loaded machine's, not a wait for a timeout.

      await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/members#token=${strangerToken}`);
      await main.getByText('This organization does not exist, or you are not a member of it.').waitFor(SHOWN_WITHIN);
      expect(await main.getByRole('heading', { level: 1 }).textContent()).toBe('Organization not available');
      expect(await main.getByText(/Loading/).count()).toBe(0);
      // No sections to offer for an organization that is not theirs.
      expect(await navigation(page).count()).toBe(0);
      await checkPage(page, 'organization-not-available');
      await main.getByRole('link', { name: 'Back to your organizations' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your organizations' }).waitFor();

      await page.goto(`${service.baseUrl}/console/organizations/not-an-id/settings`);
      await main.getByText('“not-an-id” is not an organization id.').waitFor(SHOWN_WITHIN);
      expect(await main.getByText(/Loading/).count()).toBe(0);
      await main.getByRole('link', { name: 'Back to your organizations' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your organizations' }).waitFor();
      expect(problems).toEqual([]);
    },
  );

  it('hands the ownership over to a member, who then deletes the organization', { timeout: 120_000 }, async () => {
    const ownerId = `${run}-founder`;
    const heirId = `${run}-heir`;
    const ownerToken = await userWithProfile(ownerId, 'Founder', 'Person');
    const heirToken = await userWithProfile(heirId, 'Heir', 'Person');
    const organizationId = await organizationBy(ownerToken, 'Heirloom');
    expect(
      (
        await restCall(
          service.baseUrl,
          'POST',
          '/organization-user',
          ownerToken,
          { email: `${heirId}@example.com`, role: 'admin' },
          organizationId,
        )
      ).status,
    ).toBe(201);

    const founder = await openConsole(await newContext());
    await founder.page.goto(`${service.baseUrl}/console/organizations/${organizationId}/settings#token=${ownerToken}`);
    // Typed and then clicked: a field that takes the focus as the page settles closes the list.
    await founder.page.getByRole('combobox', { name: 'New owner' }).fill('heir');
    await founder.page.getByRole('combobox', { name: 'New owner' }).click();
    await founder.page.getByRole('listbox', { name: 'New owner' }).getByRole('option', { name: /Heir/ }).click();
    await founder.page.getByRole('button', { name: 'Transfer ownership' }).click();
    await founder.page.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(
        async () =>
          (
            await restCall(
              service.baseUrl,
              'GET',
              `/organization-user/${heirId}`,
              ownerToken,
              undefined,
              organizationId,
            )
          ).body.role,
        SHOWN_WITHIN,
      )
      .toBe('owner');
    // The founder, an admin now, has no deletion to offer.
    await founder.page.reload();
    await founder.page.getByRole('heading', { name: 'Edit organization' }).waitFor();
    expect(await founder.page.getByRole('button', { name: 'Delete organization' }).count()).toBe(0);

    const heir = await openConsole(await newContext());
    await heir.page.goto(`${service.baseUrl}/console/organizations/${organizationId}/settings#token=${heirToken}`);
    await heir.page.getByRole('button', { name: 'Delete organization' }).click();
    await heir.page.getByRole('button', { name: 'Confirm' }).click();
    await heir.page.getByRole('heading', { level: 1, name: 'Your organizations' }).waitFor();
    expect((await restCall(service.baseUrl, 'GET', '/organizations', heirToken)).body).toEqual([]);
    expect(founder.problems).toEqual([]);
    expect(heir.problems).toEqual([]);
  });

  it(
    'is enough with the keyboard alone: signing in, moving between sections, creating and deleting a team',
    { timeout: 120_000 },
    async () => {
      const ownerId = `${run}-keys`;
      const token = await userWithProfile(ownerId, 'Key', 'Board');
      const organizationId = await organizationBy(token, 'Keyboard only');
      const { page, problems } = await openConsole(await newContext());
      const keys = page.keyboard;
      /** Presses Tab until the focus is on the control `name` (by its accessible name): it is reachable. */
      const tabTo = async (role: string, name: string) => {
        for (let presses = 0; presses < 80; presses++) {
          await keys.press('Tab');
          const focused = await page.evaluate(() => {
            const element = document.activeElement as HTMLElement | null;
            const label = element?.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : undefined;
            return {
              tag: element?.tagName.toLowerCase() ?? '',
              type: element?.getAttribute('type') ?? '',
              name: (element?.getAttribute('aria-label') ?? label ?? element?.textContent ?? '').trim(),
            };
          });
          const roleOf =
            focused.tag === 'a'
              ? 'link'
              : focused.tag === 'input' && focused.type === 'checkbox'
                ? 'checkbox'
                : focused.tag === 'input' || focused.tag === 'textarea'
                  ? 'textbox'
                  : focused.tag;
          if (roleOf === role && focused.name === name) return;
        }
        throw new Error(`Tab never reached the ${role} "${name}"`);
      };

      await page.goto(`${service.baseUrl}/console`);
      await page.getByLabel('Bearer token').waitFor();
      await tabTo('textbox', 'Bearer token');
      await keys.insertText(token);
      await tabTo('button', 'Sign in');
      await keys.press('Enter');
      await page.getByRole('link', { name: 'Keyboard only' }).waitFor();
      await tabTo('link', 'Keyboard only');
      await keys.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
      // After a navigation the focus is on the new page, as after a page load.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
      await tabTo('link', 'Teams');
      await keys.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Teams' }).waitFor();
      await tabTo('textbox', 'Team name');
      await keys.insertText('Typists');
      await tabTo('checkbox', 'admin');
      await keys.press('Space');
      await tabTo('button', 'Create team');
      await keys.press('Enter');
      const teams = page.getByRole('table', { name: 'Teams' });
      await teams.getByRole('row').filter({ hasText: 'Typists' }).first().waitFor();
      // A deletion asks first, with the focus on Cancel; Escape keeps the team, Confirm deletes it.
      await tabTo('button', 'Delete');
      await keys.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      await keys.press('Escape');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Delete');
      await keys.press('Enter');
      await keys.press('Shift+Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Confirm');
      await keys.press('Enter');
      await expect.poll(() => teams.getByRole('row').filter({ hasText: 'Typists' }).count(), SHOWN_WITHIN).toBe(0);
      const listed = await restCall(service.baseUrl, 'GET', `/organizations/${organizationId}/teams`, token);
      expect(listed.body).toEqual([]);
      expect(problems).toEqual([]);
    },
  );

  it(
    'lands on the sign-in page with an expired token, and with one the service refuses',
    { timeout: 60_000 },
    async () => {
      const { page, problems } = await openConsole(await newContext());
      const expired = await tokenFor(`${run}-late`, { expiresIn: Math.floor(Date.now() / 1000) - 60 });
      await page.goto(`${service.baseUrl}/console#token=${expired}`);
      await page.getByText('Your token has expired').waitFor();
      expect(await page.getByLabel('Bearer token').isVisible()).toBe(true);
      await page.getByText('npm run -s token').waitFor();
      await checkPage(page, 'sign-in-expired');
      // Signed with another key: only the service can tell, and its 401 signs the tab out.
      const forged = await tokenFor(`${run}-forged`, {
        key: new TextEncoder().encode('another-secret-of-at-least-32-bytes!!'),
      });
      // Handed over to the console already open, as a host application would with a new fragment.
      await page.goto(`${service.baseUrl}/console#token=${forged}`);
      await page.getByText('The service did not accept that token').waitFor();
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expect(problems).toEqual([]);
    },
  );

  // Last: it replaces the service the others use.
  it(
    'resumes the live events after the service comes back, from the last event it showed',
    { timeout: 120_000 },
    async () => {
      const ownerId = `${run}-watcher`;
      const token = await userWithProfile(ownerId, 'Wat', 'Cher');
      const organizationId = await organizationBy(token, 'Watched');
      const { page, problems } = await openConsole(await newContext());
      await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/events#token=${token}`);
      const events = page.getByRole('table', { name: 'Events' });
      await events.getByText('organization.created').waitFor();
      await page.getByText('Live', { exact: true }).waitFor();

      // The service dies and comes back on the same address; a change commits before the page is back.
      const port = new URL(service.baseUrl).port;
      service.kill();
      service = await startConsoleService(database.url, port);
      await describeOrganization(service.baseUrl, token, organizationId, 'Changed while the page was away');
      await expect.poll(() => events.getByText('organization.updated').count(), { timeout: 30_000 }).toBe(1);
      await page.getByText('Live', { exact: true }).waitFor();
      // Nothing twice: the one creation, the one change.
      expect(await events.getByText('organization.created').count()).toBe(1);
      // Requests refused while the service was down are the browser's, not the page's.
      expect(problems.filter((problem) => !/Failed to fetch|network/i.test(problem))).toEqual([]);
    },
  );
});

async function teamId(baseUrl: string, ownerId: string, organizationId: string, name: string): Promise<string> {
  const teams = await restCall(baseUrl, 'GET', `/organizations/${organizationId}/teams`, await tokenFor(ownerId));
  return (teams.body as Array<{ team_id: string; name: string }>).find((team) => team.name === name)!.team_id;
}
