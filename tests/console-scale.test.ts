/**
 * The console for an organization of 300 members (behaviour §14, §15), in Chromium on MariaDB: finding a member by a part of their e-mail, changing 20 roles at once (the last
 * owner's refusal told on their row), a member's page with a permission a team gives, the event
 * history walked back three pages, a failed delivery's answer, every page axe-core clean at
 * 1280 px and at 390 px (where the navigation folds and nothing is wider than the screen), and
 * the member picker with the keyboard alone, and the member count after a removal on a later page.
 *
 * The phone screenshots go to docs/console/ with `UPDATE_SCREENSHOTS=true`.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { toDbTimestamp, type Database } from '../server/platform/database/schema.ts';
import {
  DESKTOP,
  expectAccessible,
  navigation,
  openConsoleAt,
  PHONE,
  saveScreenshot,
  startConsoleService,
} from './support/console.ts';
import { describeOnDatabase, openBesideService, type TestDatabase } from './support/databases.ts';
import { insertUsersAsMembers, uniqueId } from './support/fixtures.ts';
import { closeContexts, launchChromium } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { tokenFor } from './support/tokens.ts';
import { SHOWN_WITHIN } from './support/timing.ts';
import { startReceiver, type Receiver } from './support/webhooks.ts';

const SEEDED = 300;

describeOnDatabase('mariadb', 'the console at scale (behaviour §14, §15)', (target) => {
  failWithout(chromiumMissing());
  let database: TestDatabase;
  let service: ServiceProcess;
  let browser: Browser;
  let receiver: Receiver;
  let ownerToken: string;
  let organizationId: string;
  const run = uniqueId('scale');
  /** The seeded member `n` (0-based): ids, and so their order, padded. */
  const seeded = (n: number) => `${run}-m${String(n).padStart(3, '0')}`;

  const api = (method: string, path: string, body?: object, inOrganization?: string) =>
    restCall(service.baseUrl, method, path, ownerToken, body, inOrganization);

  beforeAll(async () => {
    database = await target.create();
    service = await startConsoleService(database.url);
    receiver = await startReceiver();
    browser = await launchChromium();
    ownerToken = await tokenFor(`${run}-owner`, { role: 'owner' });
    expect(
      (await api('POST', '/users', { first_name: 'Olga', last_name: 'Owner', email: `${run}-owner@example.com` }))
        .status,
    ).toBe(201);
    const created = await api('POST', '/organizations', {
      organization_name: 'Big Corp',
      organization_description: '',
    });
    expect(created.status).toBe(201);
    organizationId = created.body.organization_id as string;
    // 300 members straight into the database, beside the running service.
    const orm = await openBesideService(database.url);
    try {
      const users = Array.from({ length: SEEDED }, (_, n) => ({
        user_id: seeded(n),
        first_name: `Person${n}`,
        last_name: `Seed${String(n).padStart(3, '0')}`,
        email: `${seeded(n)}@corp.example`,
      }));
      await insertUsersAsMembers(
        orm.em.getKysely<Database>(),
        organizationId,
        users,
        toDbTimestamp(target.name === 'embedded' ? 'sqlite' : 'mariadb', new Date()),
      );
    } finally {
      await orm.close();
    }
  }, 120_000);
  afterEach(() => closeContexts(browser));
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    service?.kill();
    await database?.drop();
  });

  const openAt = (path: string, viewport = DESKTOP) =>
    openConsoleAt(browser, service.baseUrl, { path, token: ownerToken, viewport });
  const membersTable = (page: Page) => page.getByRole('table', { name: 'Members', exact: true });

  it(
    'finds a member by a part of their e-mail, changes 20 roles at once, and tells the one refusal on its row',
    {
      timeout: 180_000,
    },
    async () => {
      const { page, problems } = await openAt(`/organizations/${organizationId}/members`);
      await membersTable(page).waitFor();
      await page.getByLabel('Search members').fill('m007');
      await expect.poll(() => membersTable(page).locator('tbody tr').count(), SHOWN_WITHIN).toBe(1);
      expect(await membersTable(page).locator('tbody tr').textContent()).toContain(`${seeded(7)}@corp.example`);
      await page.getByLabel('Search members').fill('');
      await expect.poll(() => membersTable(page).locator('tbody tr').count(), SHOWN_WITHIN).toBe(50);

      // Twenty seeded members and the owner, the organization's last: 20 changed, 1 refused.
      await page.getByRole('checkbox', { name: 'Select Olga Owner' }).check();
      for (let n = 0; n < 20; n++)
        await page.getByRole('checkbox', { name: `Select Person${n} Seed${String(n).padStart(3, '0')}` }).check();
      await page.getByText('21 members selected').waitFor();
      await page.getByLabel('New role').selectOption('admin');
      await page.getByRole('button', { name: 'Change role' }).click();
      await page
        .getByText('Role changed to admin: 20 done, 1 failed (said on their rows).')
        .waitFor({ timeout: 30_000 });
      const ownerRow = membersTable(page).getByRole('row').filter({ hasText: 'Olga Owner' });
      expect(await ownerRow.textContent()).toMatch(/Failed: .+/);
      const list = await api('GET', '/organization-user', undefined, organizationId);
      const roles = (list.body as Array<{ user_id: string; role: string }>).filter((member) => member.role === 'admin');
      expect(roles.map((member) => member.user_id).sort()).toEqual(Array.from({ length: 20 }, (_, n) => seeded(n)));
      await expectAccessible(page, 'members after a bulk change');

      // The roles page counts each role's holders, a link to the member list filtered by it.
      await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/roles`);
      const roleRow = (role: string) =>
        page
          .getByRole('table', { name: 'Roles' })
          .getByRole('row')
          .filter({ has: page.getByRole('cell', { name: role, exact: true }) });
      await roleRow('member')
        .getByRole('link', { name: `${SEEDED - 20} members` })
        .waitFor(SHOWN_WITHIN);
      expect(await roleRow('owner').getByRole('link').textContent()).toBe('1 member');
      await roleRow('admin').getByRole('link', { name: '20 members' }).click();
      await expect.poll(() => membersTable(page).locator('tbody tr').count(), SHOWN_WITHIN).toBe(20);
      expect(await page.getByRole('search', { name: 'Members' }).getByLabel('Role').inputValue()).toBe('admin');
      expect(new URL(page.url()).searchParams.get('role')).toBe('admin');
      expect(problems).toEqual([]);
    },
  );

  it('shows on a member page the permission a team gives them', { timeout: 120_000 }, async () => {
    expect(
      (
        await api('POST', `/organizations/${organizationId}/roles`, {
          role: 'auditor',
          description: 'Reads the audit trail',
          permissions: ['events:read'],
        })
      ).status,
    ).toBe(201);
    const team = await api('POST', `/organizations/${organizationId}/teams`, { name: 'Auditors', roles: ['auditor'] });
    expect(team.status).toBe(201);
    const added = await api('POST', `/organizations/${organizationId}/teams/${team.body.team_id}/members`, {
      user_id: seeded(30),
    });
    expect(added.status).toBe(201);
    const metadata = await api('PATCH', `/organizations/${organizationId}/members/${seeded(30)}/metadata`, {
      public_metadata: { desk: 'B-12' },
    });
    expect(metadata.status).toBe(200);

    const { page, problems } = await openAt(`/organizations/${organizationId}/members`);
    await page.getByRole('link', { name: 'Person30 Seed030' }).click({ timeout: 30_000 });
    await page.getByRole('heading', { level: 2, name: 'Person30 Seed030' }).waitFor();
    const permissions = page.getByRole('table', { name: 'Effective permissions' });
    const events = permissions.getByRole('row').filter({ hasText: 'events:read' });
    await events.waitFor({ timeout: 30_000 });
    expect(await events.textContent()).toContain('team Auditors');
    // What their role gives is said to be their role's.
    expect(await permissions.getByRole('row').filter({ hasText: 'members:read' }).textContent()).toContain(
      'role member',
    );
    await page.getByText('Auditors').first().waitFor();
    expect(await page.locator('pre').textContent()).toContain('"desk": "B-12"');
    await expectAccessible(page, 'member page');
    expect(problems).toEqual([]);
  });

  it('walks the event history back three pages, and filters it by type', { timeout: 180_000 }, async () => {
    // 200 more events than there were: the history has more than three pages of 50.
    for (let batch = 0; batch < 25; batch++) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, n) =>
          expect(
            (
              await api('PUT', `/organizations/${organizationId}`, {
                organization_description: `Change ${batch * 8 + n}`,
              })
            ).status,
          ).toBe(200),
        ),
      );
    }
    const { page, problems } = await openAt(`/organizations/${organizationId}/events`);
    const history = page.getByRole('table', { name: 'Event history' });
    await history.waitFor();
    const pager = page.getByRole('navigation', { name: 'Event pages' });
    const seen = new Set<string>();
    for (let pageNumber = 1; pageNumber <= 4; pageNumber++) {
      await pager.getByText(`Page ${pageNumber}`).waitFor();
      // The page number changes as the older page is asked for; its rows replace the shown ones when they come.
      const firstRow = async () => (await history.locator('tbody tr').first().textContent())!;
      await expect.poll(async () => seen.has(await firstRow()), SHOWN_WITHIN).toBe(false);
      await expect.poll(() => history.locator('tbody tr').count(), SHOWN_WITHIN).toBe(50);
      const times = await history
        .locator('tbody time')
        .evaluateAll((all) => all.map((each) => each.getAttribute('title')!));
      // Each page is older than the one before, and the exact instant is on hover.
      for (const time of times) expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      seen.add(await firstRow());
      if (pageNumber < 4) await pager.getByRole('button', { name: 'Older events' }).click();
    }
    // An event in full.
    await history.getByText('Full event').first().click();
    await history.locator('pre').first().waitFor();
    expect(JSON.parse((await history.locator('pre').first().textContent())!)).toMatchObject({
      organization_id: organizationId,
    });
    await page.getByLabel('Type').selectOption('member.role_changed');
    await pager.getByText('Page 1').waitFor();
    await expect.poll(() => history.locator('tbody tr').count(), SHOWN_WITHIN).toBe(20);
    await expectAccessible(page, 'events');
    expect(problems).toEqual([]);
  });

  it("shows a failed delivery's answer from the receiver", { timeout: 120_000 }, async () => {
    receiver.respond(() => ({ status: 500, body: 'The receiver says no: quota exceeded' }));
    const webhook = await api('POST', `/organizations/${organizationId}/webhooks`, {
      url: receiver.url('/scale-hook'),
      event_types: ['member.role_changed'],
    });
    expect(webhook.status).toBe(201);
    expect(
      (await api('PUT', '/organization-user', { user_id: seeded(299), role: 'admin' }, organizationId)).status,
    ).toBe(200);
    const { page, problems } = await openAt(`/organizations/${organizationId}/webhooks`);
    await page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('button', { name: 'Deliveries' }).click();
    const answer = page.getByText('HTTP 500: The receiver says no: quota exceeded');
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return (await page.getByText('failed', { exact: true }).count()) > 0 && (await answer.count()) > 0;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    await expectAccessible(page, 'webhooks');
    expect(problems).toEqual([]);
  });

  it(
    'is usable at 390 px: the navigation folds, nothing is wider than the screen, every page axe-core clean at both widths',
    {
      timeout: 240_000,
    },
    async () => {
      const sections = ['settings', 'members', 'invitations', 'roles', 'teams', 'webhooks', 'events', 'api-keys'];
      const paths = [
        ['home', ''],
        ['profile', '/profile'],
        ['your-invitations', '/invitations'],
        ...sections.map((section) => [section, `/organizations/${organizationId}/${section}`]),
        ['member', `/organizations/${organizationId}/members/${seeded(30)}`],
      ] as const;
      for (const viewport of [DESKTOP, PHONE]) {
        const { page, problems } = await openAt('', viewport);
        for (const [name, path] of paths) {
          await page.goto(`${service.baseUrl}/console${path}`);
          await page.getByRole('heading', { level: 1 }).waitFor();
          await expect.poll(() => page.locator('.osc-busy').count(), { timeout: 30_000 }).toBe(0);
          await expectAccessible(page, `${name} at ${viewport.width} px`);
          if (viewport === PHONE) {
            expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(
              PHONE.width,
            );
            await saveScreenshot(page, `phone-${name}`);
          }
        }
        if (viewport === PHONE) {
          // The sections are behind the Menu button, which opens them, and a new page folds them again.
          await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/members`);
          await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
          expect(await navigation(page).isVisible()).toBe(false);
          await page.getByRole('button', { name: 'Menu' }).click();
          await navigation(page).getByRole('link', { name: 'Teams' }).click();
          await page.getByRole('heading', { level: 1, name: 'Teams' }).waitFor();
          expect(await navigation(page).isVisible()).toBe(false);
          // The member list is a list of cards: every field of a member is on the screen.
          await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/members`);
          const row = membersTable(page).locator('tbody tr').first();
          await row.waitFor();
          const email = await row.locator('td[data-label="Email"]').boundingBox();
          expect(email!.x + email!.width).toBeLessThanOrEqual(PHONE.width);
        }
        expect(problems).toEqual([]);
      }
    },
  );

  it('chooses a member with the keyboard alone in the picker', { timeout: 120_000 }, async () => {
    const { page, problems } = await openAt(`/organizations/${organizationId}/settings`);
    const picker = page.getByRole('combobox', { name: 'New owner' });
    await picker.waitFor({ timeout: 60_000 });
    await page.locator('input[role="combobox"]').focus({ timeout: 60_000 });
    await page.keyboard.type('person5');
    const listbox = page.getByRole('listbox', { name: 'New owner' });
    // Person5 and Person50 to Person59: the word begins one of theirs.
    await expect.poll(() => listbox.getByRole('option').count(), SHOWN_WITHIN).toBe(11);
    expect(await picker.getAttribute('aria-expanded')).toBe('true');
    const active = () => picker.getAttribute('aria-activedescendant');
    const first = await active();
    await page.keyboard.press('ArrowDown');
    expect(await active()).not.toBe(first);
    await page.keyboard.press('ArrowUp');
    expect(await active()).toBe(first);
    const chosen = await page.locator(`[id="${first}"]`).textContent();
    await page.keyboard.press('Enter');
    expect(await picker.getAttribute('aria-expanded')).toBe('false');
    expect(chosen).toContain(await picker.inputValue());
    // Tab reaches the transfer, which asks first; Escape changes nothing.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Transfer ownership');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    // Escape on a closed list empties the field.
    await picker.focus();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    expect(await picker.inputValue()).toBe('');
    await expectAccessible(page, 'settings with the picker');
    expect(problems).toEqual([]);
  });

  it('counts the members again after a removal on a later page', { timeout: 120_000 }, async () => {
    const count = async () => (await api('GET', `/organizations/${organizationId}`)).body.member_count as number;
    const before = await count();
    const { page, problems } = await openAt(`/organizations/${organizationId}/members`);
    const pager = page.getByRole('navigation', { name: 'Member pages' });
    await page.getByText(`${before} members`).waitFor(SHOWN_WITHIN);
    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText(`Page 2 of ${Math.ceil(before / 50)}`).waitFor(SHOWN_WITHIN);
    const row = membersTable(page)
      .getByRole('row')
      .filter({ hasText: `${seeded(60)}@corp.example` });
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Person60 Seed060 was removed from the organization.').waitFor(SHOWN_WITHIN);
    expect(await count()).toBe(before - 1);
    // Said on the page it was removed from, not only once back on the first.
    await page.getByText(`${before - 1} members`).waitFor(SHOWN_WITHIN);
    await pager.getByText(`Page 2 of ${Math.ceil((before - 1) / 50)}`).waitFor(SHOWN_WITHIN);
    expect(problems).toEqual([]);
  });
});
