/**
 * The console's webhooks, roles and members pages (behaviour §13, §11, §15) in Chromium on the
 * embedded database: a test event sent from an endpoint's row reaches a receiver on 127.0.0.1, and its
 * delivery, opened in the log, shows the payload sent and the receiver's answer, its status and
 * body; the roles table
 * describes each permission; the member list says how many members there are. Each page
 * axe-core clean at 1280 px and at 390 px, nothing wider than the phone's screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DESKTOP, expectAccessible, openConsoleAt, PHONE, startConsoleService } from './support/console.ts';
import { describeOnDatabase, type TestDatabase } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';
import { closeContexts, launchChromium } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { SHOWN_WITHIN } from './support/timing.ts';
import { tokenFor } from './support/tokens.ts';
import { startReceiver, type Receiver } from './support/webhooks.ts';

/** Long enough for a delivery's attempt (the service polls every 50 ms). */
const DELIVERED_WITHIN = { timeout: 30_000, interval: 200 };

describeOnDatabase(
  'embedded',
  'the console: test events, permission descriptions, member count (behaviour §13, §11, §15)',
  (target) => {
    failWithout(chromiumMissing());
    let database: TestDatabase;
    let service: ServiceProcess;
    let browser: Browser;
    let receiver: Receiver;
    let ownerToken: string;
    let organizationId: string;
    const run = uniqueId('hooks-console');

    const api = (token: string, method: string, path: string, body?: object, inOrganization?: string) =>
      restCall(service.baseUrl, method, path, token, body, inOrganization);

    /** A user with a profile (`<id>@example.com`): their token. */
    const userWithProfile = async (id: string, firstName: string) => {
      const token = await tokenFor(id, { role: 'owner' });
      const created = await api(token, 'POST', '/users', {
        first_name: firstName,
        last_name: 'Tester',
        email: `${id}@example.com`,
      });
      expect(created.status).toBe(201);
      return token;
    };

    beforeAll(async () => {
      database = await target.create();
      service = await startConsoleService(database.url);
      receiver = await startReceiver(() => ({ status: 200, body: 'received, thanks' }));
      browser = await launchChromium();
      ownerToken = await userWithProfile(`${run}-owner`, 'Olga');
      const created = await api(ownerToken, 'POST', '/organizations', {
        organization_name: 'Hook Corp',
        organization_description: '',
      });
      expect(created.status).toBe(201);
      organizationId = created.body.organization_id as string;
      // Three members in all: the owner and two more.
      for (const name of ['Mia', 'Max']) {
        await userWithProfile(`${run}-${name.toLowerCase()}`, name);
        const added = await api(
          ownerToken,
          'POST',
          '/organization-user',
          { email: `${run}-${name.toLowerCase()}@example.com`, role: 'member' },
          organizationId,
        );
        expect(added.status).toBe(201);
      }
    }, 60_000);
    afterEach(() => closeContexts(browser));
    afterAll(async () => {
      await browser?.close();
      await receiver?.close();
      service?.kill();
      await database?.drop();
    });

    const openAt = (path: string, viewport = DESKTOP) =>
      openConsoleAt(browser, service.baseUrl, { path, token: ownerToken, viewport });

    /** axe-core clean, and nothing wider than the screen on a phone. */
    const checkPage = async (page: Page, name: string, viewport: typeof DESKTOP) => {
      await expectAccessible(page, `${name} at ${viewport.width} px`);
      if (viewport === PHONE) {
        expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(PHONE.width);
      }
    };

    it(
      "sends a test event from an endpoint, and shows its delivery: the payload sent and the receiver's answer, status and body (behaviour §13)",
      { timeout: 120_000 },
      async () => {
        // Filtered to another type: the test event goes all the same.
        const webhook = await api(ownerToken, 'POST', `/organizations/${organizationId}/webhooks`, {
          url: receiver.url('/console-hook'),
          event_types: ['member.removed'],
        });
        expect(webhook.status).toBe(201);
        const webhookId = webhook.body.webhook_id as string;

        for (const viewport of [DESKTOP, PHONE]) {
          const { page, problems } = await openAt(`/organizations/${organizationId}/webhooks`, viewport);
          const received = receiver.at('/console-hook').length;
          await page
            .getByRole('table', { name: 'Webhook endpoints' })
            .getByRole('button', { name: 'Send test event' })
            .click();
          await page.getByText('Test event queued for').waitFor(SHOWN_WITHIN);
          await expect.poll(() => receiver.at('/console-hook').length, DELIVERED_WITHIN).toBe(received + 1);
          const sent = JSON.parse(receiver.at('/console-hook').at(-1)!.body) as { data: { data: unknown } };
          expect(sent).toMatchObject({ type: 'webhook.test', data: { data: { webhook_id: webhookId } } });

          // The log opened with the test event's delivery; once it has succeeded, it is opened.
          const log = page.getByRole('table', { name: `Deliveries to ${receiver.url('/console-hook')}` });
          await expect
            .poll(async () => {
              await page.getByRole('button', { name: 'Refresh' }).click();
              return log.locator('tbody tr').first().getByText('succeeded', { exact: true }).count();
            }, DELIVERED_WITHIN)
            .toBe(1);
          const newest = log.locator('tbody tr').first();
          await newest.getByText('Payload and answer').click();
          const payload = newest.getByRole('group', { name: 'Payload sent' }).locator('pre');
          await payload.waitFor();
          const shown = JSON.parse((await payload.textContent())!) as unknown;
          expect(shown).toEqual(sent);
          const answer = newest.getByRole('group', { name: "Receiver's answer" });
          expect(await answer.textContent()).toContain('HTTP 200');
          expect(await answer.locator('pre').textContent()).toBe('received, thanks');
          expect(await newest.textContent()).not.toContain('whsec_');
          await checkPage(page, 'webhooks with an opened delivery', viewport);
          expect(problems).toEqual([]);
        }
      },
    );

    it('says a disabled endpoint cannot be sent a test event', { timeout: 60_000 }, async () => {
      const webhook = await api(ownerToken, 'POST', `/organizations/${organizationId}/webhooks`, {
        url: receiver.url('/disabled-hook'),
        event_types: ['*'],
      });
      expect(webhook.status).toBe(201);
      expect(
        (
          await api(ownerToken, 'PUT', `/organizations/${organizationId}/webhooks/${webhook.body.webhook_id}`, {
            enabled: false,
          })
        ).status,
      ).toBe(200);
      const { page, problems } = await openAt(`/organizations/${organizationId}/webhooks`);
      const row = page
        .getByRole('table', { name: 'Webhook endpoints' })
        .getByRole('row')
        .filter({ hasText: receiver.url('/disabled-hook') });
      await row.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText('The webhook is disabled: enable it before sending it a test event').waitFor(SHOWN_WITHIN);
      expect(receiver.at('/disabled-hook')).toEqual([]);
      expect(problems).toEqual([]);
    });

    it('describes each permission of a role on the roles page (behaviour §11)', { timeout: 60_000 }, async () => {
      for (const viewport of [DESKTOP, PHONE]) {
        const { page, problems } = await openAt(`/organizations/${organizationId}/roles`, viewport);
        const memberRow = page
          .getByRole('table', { name: 'Roles' })
          .getByRole('row')
          .filter({ hasText: 'Reads the organization' });
        await memberRow.getByText('members:read: read its members').waitFor(SHOWN_WITHIN);
        expect(await memberRow.textContent()).toContain('teams:read: read its teams');
        await checkPage(page, 'roles', viewport);
        expect(problems).toEqual([]);
      }
    });

    it('says how many members the organization has (behaviour §15)', { timeout: 60_000 }, async () => {
      for (const viewport of [DESKTOP, PHONE]) {
        const { page, problems } = await openAt(`/organizations/${organizationId}/members`, viewport);
        await page.getByText('3 members', { exact: true }).waitFor(SHOWN_WITHIN);
        // A search lists a part of them: the count of the whole list is not shown beside it.
        await page.getByLabel('Search members').fill('mia');
        await expect
          .poll(
            () => page.getByRole('table', { name: 'Members', exact: true }).locator('tbody tr').count(),
            SHOWN_WITHIN,
          )
          .toBe(1);
        expect(await page.getByText('3 members', { exact: true }).count()).toBe(0);
        await page.getByLabel('Search members').fill('');
        await page.getByText('3 members', { exact: true }).waitFor(SHOWN_WITHIN);
        await checkPage(page, 'members', viewport);
        expect(problems).toEqual([]);
      }
    });
  },
);
