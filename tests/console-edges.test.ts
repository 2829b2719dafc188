/**
 * The console at its edges (behaviour §14), on the embedded database: text longer than a column
 * (a 100-character name, a 191-character e-mail address) wraps and no page scrolls sideways at
 * 1280 px or at 375 px; a confirmation in a table's row stays on the screen with the item it
 * names; at 375 px every table's cell says its column; a change of memberships refreshes the
 * member count at once; a role choice offers only the roles the caller may give; the member picker
 * offers only what the text typed finds; a search the service refuses says why next to the
 * search box; a team's editor closes with Escape, as every row's editor; rotating a webhook's
 * secret asks first; a member's page shows a caller who may read the members but not the teams or
 * the roles what they may read, and no refusal; a role without permissions is refused in the
 * service's words; a link that spells the organization's id in capitals shows it in the header's
 * switcher; and a page that found the service gone comes back by itself with it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DESKTOP,
  expectAccessible,
  navigation,
  openConsoleAt,
  SMALL_PHONE as PHONE,
  startConsoleService,
} from './support/console.ts';
import { databaseTarget, type TestDatabase } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';
import { closeContexts, launchChromium } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { tokenFor } from './support/tokens.ts';
import { SHOWN_WITHIN } from './support/timing.ts';

const embedded = databaseTarget('embedded');

describe('the console at its edges (behaviour §14)', () => {
  failWithout(chromiumMissing());
  let database: TestDatabase;
  let service: ServiceProcess;
  let browser: Browser;
  let ownerToken: string;
  let organizationId: string;
  const run = uniqueId('edges');
  /** Unbroken: no hyphen or dot a line could break at before the domain. */
  const tag = run.replaceAll('-', '');
  const longName = { first: 'Bartholomew'.repeat(9).slice(0, 100), last: 'Longname' };
  const longEmail = `${tag}${'l'.repeat(64 - tag.length)}@${'m'.repeat(63)}.${'n'.repeat(54)}.example`;
  const longKeyName = 'IntegrationKeyForTheNightlyWarehouseExport'.repeat(3).slice(0, 100);

  const api = (token: string, method: string, path: string, body?: object, inOrganization?: string) =>
    restCall(service.baseUrl, method, path, token, body, inOrganization);
  /** A user with a profile: their token. */
  const person = async (id: string, first: string, last: string, email = `${id}@example.com`) => {
    const token = await tokenFor(id, { role: 'owner' });
    const created = await api(token, 'POST', '/users', { first_name: first, last_name: last, email });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return token;
  };
  const addMember = async (email: string) =>
    expect(
      (await api(ownerToken, 'POST', '/organization-user', { email, role: 'member' }, organizationId)).status,
    ).toBe(201);

  beforeAll(async () => {
    database = await embedded.create();
    service = await startConsoleService(database.url);
    browser = await launchChromium();
    ownerToken = await person(`${run}-owner`, 'Olga', 'Owner');
    const created = await api(ownerToken, 'POST', '/organizations', {
      organization_name: 'Edge Corp',
      organization_description: '',
    });
    expect(created.status).toBe(201);
    organizationId = created.body.organization_id as string;
    await person(`${run}-long`, longName.first, longName.last, longEmail);
    await addMember(longEmail);
    await person(`${run}-alice`, 'Alice', 'Archer');
    await addMember(`${run}-alice@example.com`);
    await person(`${run}-bob`, 'Bob', 'Baker');
    await addMember(`${run}-bob@example.com`);
    const key = await api(ownerToken, 'POST', `/organizations/${organizationId}/api-keys`, {
      name: longKeyName,
      role: 'member',
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
  }, 120_000);
  afterEach(() => closeContexts(browser));
  afterAll(async () => {
    await browser?.close();
    service?.kill();
    await database?.drop();
  });

  const openAt = (path: string, viewport = DESKTOP) =>
    openConsoleAt(browser, service.baseUrl, { path, token: ownerToken, viewport });
  const settled = (page: Page) => expect.poll(() => page.locator('.osc-busy').count(), { timeout: 30_000 }).toBe(0);
  /** How far the page, and the frame of each table, scroll sideways: nothing, where all fits. */
  const sidewaysScroll = (page: Page) =>
    page.evaluate(() => [
      document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ...Array.from(document.querySelectorAll('.osc-table-scroll')).map(
        (frame) => frame.scrollWidth - frame.clientWidth,
      ),
    ]);
  /** Whether the element is wholly within the viewport's width. */
  const onScreen = (page: Page, selector: string) =>
    page.locator(selector).evaluate((element) => {
      const box = element.getBoundingClientRect();
      return box.left >= 0 && box.right <= document.documentElement.clientWidth;
    });

  it('wraps a confirmation in a row: the question and the item it names stay on the screen', async () => {
    for (const viewport of [PHONE, DESKTOP]) {
      const { page, problems } = await openAt(`/organizations/${organizationId}/api-keys`, viewport);
      const row = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: longKeyName });
      await row.getByRole('button', { name: 'Revoke' }).click();
      const question = row.getByRole('group', { name: /^Revoke the key/ });
      await question.waitFor();
      expect(await sidewaysScroll(page), `API keys at ${viewport.width} px`).toEqual([0, 0]);
      for (const part of ['.osc-confirm__question', 'th[scope="row"]'])
        expect(await onScreen(page, `tr:has(.osc-confirm) ${part}`), part).toBe(true);
      await expectAccessible(page, `a revocation asked at ${viewport.width} px`);
      expect(problems).toEqual([]);

      const members = await openAt(`/organizations/${organizationId}/members`, viewport);
      const memberRow = members.page.getByRole('row').filter({ hasText: longEmail });
      await memberRow.getByRole('button', { name: 'Remove' }).click();
      await memberRow.getByRole('group', { name: /^Remove Bartholomew/ }).waitFor();
      expect(await sidewaysScroll(members.page), `members at ${viewport.width} px`).toEqual([0, 0]);
      expect(await onScreen(members.page, 'tr:has(.osc-confirm) .osc-confirm__question')).toBe(true);
      expect(members.problems).toEqual([]);
    }
  });

  it('wraps long names and e-mail addresses: no table or page scrolls sideways', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { page, problems } = await openAt(`/organizations/${organizationId}/members`, viewport);
      const row = page.getByRole('table', { name: 'Members', exact: true }).getByRole('row').filter({ hasText: tag });
      await row.waitFor();
      expect(await sidewaysScroll(page), `members at ${viewport.width} px`).toEqual([0, 0]);
      expect(await onScreen(page, `tr:has-text("${tag}") button:text-is("Remove")`)).toBe(true);
      // A date is not broken over lines: it is one line high as in any other row.
      const heights = await page
        .locator('td[data-label="Joined"] time')
        .evaluateAll((times) => times.map((time) => time.getBoundingClientRect().height));
      expect(new Set(heights).size, `joined at ${viewport.width} px`).toBe(1);
      await expectAccessible(page, `long members at ${viewport.width} px`);

      await row.getByRole('link').click();
      const heading = page.getByRole('heading', { level: 2, name: /^Bartholomew/ });
      await heading.waitFor();
      await settled(page);
      expect(new Set(await sidewaysScroll(page)), `member page at ${viewport.width} px`).toEqual(new Set([0]));
      expect(await onScreen(page, 'h2.osc-section__title >> nth=0')).toBe(true);
      expect(problems).toEqual([]);
    }
  });

  it("wraps the sign-in page's command at 375 px", async () => {
    const { page, problems } = await openAt('', PHONE);
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(`${service.baseUrl}/console`);
    await page.getByLabel('Bearer token').waitFor();
    expect(await page.locator('pre').textContent()).toBe('npm run -s token -- --sub YOUR-USER-ID');
    expect(await sidewaysScroll(page)).toEqual([0]);
    expect(await onScreen(page, 'pre')).toBe(true);
    expect(problems).toEqual([]);
  });

  it('labels every cell with its column at 375 px, where the headers are hidden', { timeout: 120_000 }, async () => {
    const team = await api(ownerToken, 'POST', `/organizations/${organizationId}/teams`, {
      name: 'Night shift',
      roles: ['member'],
    });
    expect(team.status).toBe(201);
    expect(
      (
        await api(ownerToken, 'POST', `/organizations/${organizationId}/teams/${team.body.team_id}/members`, {
          user_id: `${run}-alice`,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api(ownerToken, 'POST', `/organizations/${organizationId}/invitations`, {
          email: `${run}-invited@example.com`,
          role: 'member',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api(ownerToken, 'POST', `/organizations/${organizationId}/webhooks`, {
          url: 'http://127.0.0.1:9/edges',
          event_types: ['member.added'],
        })
      ).status,
    ).toBe(201);
    const { page, problems } = await openAt('', PHONE);
    const sections: Array<[string, string]> = [
      ['api-keys', 'API keys'],
      ['invitations', 'Invitations'],
      ['roles', 'Roles'],
      ['teams', 'Teams'],
      ['webhooks', 'Webhook endpoints'],
    ];
    for (const [section, table] of sections) {
      await page.goto(`${service.baseUrl}/console/organizations/${organizationId}/${section}`);
      await page.getByRole('table', { name: table }).locator('tbody tr').first().waitFor();
      if (section === 'teams') {
        await page.getByRole('button', { name: 'Members' }).first().click();
        await page
          .getByRole('table', { name: /members/i })
          .nth(0)
          .locator('tbody tr')
          .first()
          .waitFor();
      }
      await settled(page);
      // What a person sees before each value: the stylesheet's label, its column's header.
      const unlabelled = await page.evaluate(() =>
        Array.from(document.querySelectorAll('table.osc-table')).flatMap((table) => {
          const headers = Array.from(table.querySelectorAll('thead th')).map((header) => header.textContent);
          return Array.from(table.querySelectorAll(':scope > tbody > tr')).flatMap((row) => {
            const cells = Array.from(row.children);
            if (cells.length !== headers.length) return [];
            return cells.flatMap((cell, index) => {
              if (cell.tagName !== 'TD' || cell.classList.contains('osc-table__actions')) return [];
              const shown = getComputedStyle(cell, '::before').content;
              return shown !== 'none' && (cell as HTMLElement).dataset.label === headers[index]
                ? []
                : [`${table.getAttribute('aria-label')}: ${headers[index]}`];
            });
          });
        }),
      );
      expect(unlabelled, section).toEqual([]);
    }
    expect(problems).toEqual([]);
  });

  it('comes back by itself when the service does, on a page that showed it unreachable', async () => {
    // A service of its own, stopped and started again on the same port and database.
    const outageDatabase = await embedded.create();
    let outage = await startConsoleService(outageDatabase.url);
    const { port } = new URL(outage.baseUrl);
    try {
      const token = await tokenFor(`${run}-outage`, { role: 'owner' });
      const call = (method: string, path: string, body: object) => restCall(outage.baseUrl, method, path, token, body);
      expect(
        (await call('POST', '/users', { first_name: 'Oona', last_name: 'Outage', email: `${run}-outage@example.com` }))
          .status,
      ).toBe(201);
      const created = await call('POST', '/organizations', {
        organization_name: 'Down Corp',
        organization_description: '',
      });
      expect(created.status).toBe(201);
      const { page } = await openConsoleAt(browser, outage.baseUrl, {
        path: `/organizations/${String(created.body.organization_id)}/members`,
        token,
      });
      await page.getByText('Oona Outage').first().waitFor(SHOWN_WITHIN);
      outage.kill();
      await outage.exited;
      await navigation(page).getByRole('link', { name: 'Teams' }).click();
      await page.getByText('The service could not be reached').waitFor(SHOWN_WITHIN);
      outage = await startConsoleService(outageDatabase.url, port);
      // No click, no reload: the page asks again on its own (every 5 s while it shows the failure).
      await page.getByText('This organization has no teams yet.').waitFor({ timeout: 5_000 + SHOWN_WITHIN.timeout });
      expect(await page.getByText('The service could not be reached').count()).toBe(0);
    } finally {
      outage.kill();
      await outageDatabase.drop();
    }
  });

  it("refreshes the settings' member count at once after a member is added or removed", async () => {
    const { page, problems } = await openAt(`/organizations/${organizationId}/settings`);
    const count = () =>
      page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'Members', exact: true }) })
        .locator('td');
    const before = Number(await count().textContent());
    await person(`${run}-carol`, 'Carol', 'Cooper');
    await navigation(page).getByRole('link', { name: 'Members' }).click();
    await page.locator('summary', { hasText: 'Add a member' }).click();
    await page.getByLabel('Email', { exact: true }).fill(`${run}-carol@example.com`);
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByText(`${run}-carol@example.com was added as member.`).waitFor(SHOWN_WITHIN);
    await navigation(page).getByRole('link', { name: 'Settings' }).click();
    // Back within the 5 s a read is fresh for (the console's staleTime), the settings are not read
    // again on their own: only the change's own refresh shows the new count. What tells the two
    // apart is that, not the wait, which has a loaded machine's margin.
    await expect.poll(async () => Number(await count().textContent()), SHOWN_WITHIN).toBe(before + 1);

    await navigation(page).getByRole('link', { name: 'Members' }).click();
    const row = page.getByRole('row').filter({ hasText: `${run}-carol@example.com` });
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Carol Cooper was removed from the organization.').waitFor(SHOWN_WITHIN);
    await navigation(page).getByRole('link', { name: 'Settings' }).click();
    await expect.poll(async () => Number(await count().textContent()), SHOWN_WITHIN).toBe(before);
    expect(problems).toEqual([]);
  });

  it('offers in a role choice only the roles the caller may give (behaviour §11)', async () => {
    const recruiter = await api(ownerToken, 'POST', `/organizations/${organizationId}/roles`, {
      role: 'recruiter',
      description: '',
      // What `member` holds, to give it, and reading the roles, to choose one: not what `admin` holds.
      permissions: ['organization:read', 'members:read', 'members:add', 'members:update', 'roles:read', 'teams:read'],
    });
    expect(recruiter.status, JSON.stringify(recruiter.body)).toBe(201);
    const daveToken = await person(`${run}-dave`, 'Dave', 'Diaz');
    const added = await api(
      ownerToken,
      'POST',
      '/organization-user',
      { email: `${run}-dave@example.com`, role: 'recruiter' },
      organizationId,
    );
    expect(added.status).toBe(201);
    const { page, problems } = await openConsoleAt(browser, service.baseUrl, {
      path: `/organizations/${organizationId}/members`,
      token: daveToken,
      viewport: DESKTOP,
    });
    await page.locator('summary', { hasText: 'Add a member' }).click();
    const offered = () =>
      page
        .getByRole('form', { name: 'Add a member' })
        .getByLabel('Role')
        .locator('option')
        .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value).sort());
    // Not admin, which holds more than recruiter does, nor owner, which only an owner gives.
    await expect.poll(offered, SHOWN_WITHIN).toEqual(['member', 'recruiter']);
    expect(problems).toEqual([]);
  });

  it("offers in the member picker only what the text typed finds, never the last search's", async () => {
    const { page, problems } = await openAt(`/organizations/${organizationId}/settings`);
    const picker = page.getByRole('combobox', { name: 'New owner' });
    const options = page.getByRole('listbox', { name: 'New owner' }).getByRole('option');
    await picker.fill('alice');
    await expect
      .poll(() => options.allTextContents(), SHOWN_WITHIN)
      .toEqual([`Alice Archer (${run}-alice@example.com) member`]);
    // The answer for "bob" is held back: Alice, the last search's, is not Bob.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/members\.page/, async (route) => {
      if (decodeURIComponent(route.request().url()).includes('"search":"bob"')) await held;
      await route.continue();
    });
    const askedForBob = page.waitForRequest((request) => decodeURIComponent(request.url()).includes('"search":"bob"'));
    await picker.fill('bob');
    expect(await options.count()).toBe(0);
    // Past the typing's wait, with the search for "bob" sent and held: still nothing offered.
    await askedForBob;
    expect(await options.count()).toBe(0);
    await picker.press('Enter');
    expect(await picker.inputValue()).toBe('bob');
    release();
    await expect
      .poll(() => options.allTextContents(), SHOWN_WITHIN)
      .toEqual([`Bob Baker (${run}-bob@example.com) member`]);
    await picker.press('Enter');
    expect(await picker.inputValue()).toBe(`Bob Baker (${run}-bob@example.com)`);
    expect(problems).toEqual([]);
  });

  it("closes a team's editor with Escape, as every row's editor, the focus back on its Edit", async () => {
    const team = await api(ownerToken, 'POST', `/organizations/${organizationId}/teams`, { name: 'Escapers' });
    expect(team.status).toBe(201);
    const { page, problems } = await openAt(`/organizations/${organizationId}/teams`);
    const row = page.getByRole('table', { name: 'Teams' }).getByRole('row').filter({ hasText: 'Escapers' });
    const edit = row.getByRole('button', { name: 'Edit', exact: true });
    const editor = page.getByRole('form', { name: 'Edit the team “Escapers”' });
    const focused = (locator: typeof edit) => locator.evaluate((element) => element === document.activeElement);
    await edit.click();
    // It opens on its first field.
    await expect.poll(() => focused(editor.getByLabel('Team name')), SHOWN_WITHIN).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => editor.count(), SHOWN_WITHIN).toBe(0);
    expect(await edit.getAttribute('aria-expanded')).toBe('false');
    expect(await focused(edit)).toBe(true);
    // And it saves with Enter.
    await edit.click();
    await editor.getByLabel('Team name').fill('Escapees');
    await editor.getByLabel('Team name').press('Enter');
    await expect
      .poll(
        async () =>
          (await api(ownerToken, 'GET', `/organizations/${organizationId}/teams/${String(team.body.team_id)}`)).body
            .name,
        SHOWN_WITHIN,
      )
      .toBe('Escapees');
    expect(problems).toEqual([]);
  });

  it("asks before rotating a webhook's secret, the focus on Cancel: Cancel and Escape rotate nothing", async () => {
    const url = 'http://127.0.0.1:9/rotated';
    const created = await api(ownerToken, 'POST', `/organizations/${organizationId}/webhooks`, {
      url,
      event_types: ['member.added'],
    });
    expect(created.status).toBe(201);
    /** The endpoint's rotations, as its events record them. */
    const rotations = async () => {
      const events = await api(ownerToken, 'GET', `/organizations/${organizationId}/events?type=webhook.updated`);
      expect(events.status).toBe(200);
      return (events.body as Array<{ data: { webhook_id: string; secret_rotated?: boolean } }>).filter(
        (event) => event.data.webhook_id === created.body.webhook_id && event.data.secret_rotated,
      ).length;
    };
    const { page, problems } = await openAt(`/organizations/${organizationId}/webhooks`);
    const row = page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('row').filter({ hasText: url });
    const rotate = row.getByRole('button', { name: 'Rotate secret' });
    const question = row.getByRole('group', { name: `Rotate the signing secret of ${url}?`, exact: false });
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent);

    await rotate.click();
    await question.waitFor(SHOWN_WITHIN);
    expect(await focusedText()).toBe('Cancel');
    await page.keyboard.press('Enter');
    await expect.poll(() => question.count(), SHOWN_WITHIN).toBe(0);
    expect(await focusedText()).toBe('Rotate secret');
    await page.keyboard.press('Enter');
    await question.waitFor(SHOWN_WITHIN);
    await page.keyboard.press('Escape');
    await expect.poll(() => question.count(), SHOWN_WITHIN).toBe(0);
    expect(await page.locator('.osc-secret').count()).toBe(0);
    expect(await rotations()).toBe(0);

    await rotate.click();
    await question.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.locator('.osc-secret').textContent(), SHOWN_WITHIN).toMatch(/^whsec_/);
    expect(await rotations()).toBe(1);
    expect(problems).toEqual([]);
  });

  it("shows in the header's switcher the organization of a link that spells its id in capitals", async () => {
    const { page, problems } = await openAt(`/organizations/${organizationId.toUpperCase()}/members`);
    await page.getByRole('table', { name: 'Members', exact: true }).getByText('Alice Archer').waitFor(SHOWN_WITHIN);
    const switcher = page.getByRole('banner').getByRole('combobox', { name: 'Organization' });
    await expect.poll(() => switcher.inputValue(), SHOWN_WITHIN).toBe(organizationId);
    expect(await switcher.locator('option:checked').textContent()).toBe('Edge Corp');
    expect(await switcher.getByRole('option', { name: 'Choose an organization' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("shows on a member's page only what the caller's role lets them read: no refusal, no empty section", async () => {
    await person(`${run}-erin`, 'Erin', 'Example');
    await addMember(`${run}-erin@example.com`);
    const team = await api(ownerToken, 'POST', `/organizations/${organizationId}/teams`, {
      name: 'Readers',
      roles: ['member'],
    });
    expect(team.status).toBe(201);
    const joined = await api(
      ownerToken,
      'POST',
      `/organizations/${organizationId}/teams/${team.body.team_id}/members`,
      {
        user_id: `${run}-erin`,
      },
    );
    expect(joined.status).toBe(201);
    // Roles of the organization's own that read the members but not the roles, nor (watcher) the teams.
    const viewers: Array<[string, string[], string]> = [
      ['watcher', ['members:read', 'events:read'], 'Readers'],
      ['team-watcher', ['members:read', 'teams:read'], 'Readers gives member'],
    ];
    for (const [role, permissions, teamShown] of viewers) {
      const created = await api(ownerToken, 'POST', `/organizations/${organizationId}/roles`, { role, permissions });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const viewerToken = await person(`${run}-${role}`, 'Vera', role);
      const added = await api(
        ownerToken,
        'POST',
        '/organization-user',
        { email: `${run}-${role}@example.com`, role },
        organizationId,
      );
      expect(added.status).toBe(201);
      const { page, problems } = await openConsoleAt(browser, service.baseUrl, {
        path: `/organizations/${organizationId}/members/${run}-erin`,
        token: viewerToken,
      });
      const main = page.getByRole('main');
      const permissionsTable = main.getByRole('table', { name: 'Effective permissions' });
      // Erin is a member: members:read is theirs.
      await permissionsTable.getByRole('row').filter({ hasText: 'members:read' }).waitFor(SHOWN_WITHIN);
      await settled(page);
      expect(await permissionsTable.getByRole('columnheader').allTextContents(), role).toEqual([
        'Permission',
        'What it allows',
      ]);
      expect(await main.getByRole('region', { name: 'Teams' }).getByRole('listitem').allTextContents(), role).toEqual([
        teamShown,
      ]);
      expect(await main.getByRole('alert').count(), role).toBe(0);
      expect(await main.textContent(), role).not.toMatch(/let you/);
      await expectAccessible(page, `a member's page as ${role}`);
      expect(problems).toEqual([]);
    }
  });

  it("says under a role's permissions, in the service's words, that it needs one (behaviour §5)", async () => {
    const { page, problems } = await openAt(`/organizations/${organizationId}/roles`);
    const form = page.getByRole('form', { name: 'Create a role' });
    await form.getByLabel('Role name').fill('no-permissions');
    await form.getByRole('button', { name: 'Create role' }).click();
    await expect
      .poll(() => form.locator('.osc-field__error').allTextContents(), SHOWN_WITHIN)
      .toEqual(['Must name at least 1 permission']);
    expect(problems).toEqual([]);
  });

  it('says next to the search box why the service refuses a search', async () => {
    const { page, problems } = await openAt(`/organizations/${organizationId}/members`);
    const search = page.getByRole('search', { name: 'Members' });
    await search.getByLabel('Search members').fill('\u200b');
    const problem = search.locator('.osc-field__error');
    await problem.waitFor(SHOWN_WITHIN);
    const refused = await restCall(
      service.baseUrl,
      'GET',
      `/organization-user?search=${encodeURIComponent('\u200b')}`,
      ownerToken,
      undefined,
      organizationId,
    );
    expect(refused.status).toBe(400);
    const issue = (refused.body.issues as Array<{ field: string; problem: string }>).find(
      (each) => each.field === 'search',
    );
    expect(await problem.textContent()).toBe(issue!.problem);
    expect(await search.getByLabel('Search members').getAttribute('aria-invalid')).toBe('true');
    // A search the service takes clears it.
    await search.getByLabel('Search members').fill('alice');
    await expect.poll(() => problem.count(), SHOWN_WITHIN).toBe(0);
    await expectAccessible(page, 'a refused search');
    expect(problems).toEqual([]);
  });
});
