/**
 * The console's forms submit once (behaviour §14): while a form's change is under way, Enter pressed
 * again, a double click on its button, or a click and then Enter make no second change. On MariaDB,
 * where the test holds the organization's row so that the change waits inside the service, as on a
 * slow link; nothing of the browser's traffic is held or changed. Every form is the shared `Form`,
 * so two forms stand for them all: the API key's (its secret shown once: a second key would be one
 * whose secret nobody saw) and the webhook endpoint's (a second endpoint would get every event
 * twice).
 */
import mysql from 'mysql2/promise';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openConsoleAt, startConsoleService } from './support/console.ts';
import { databaseTarget, type TestDatabase } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';
import { closeContexts, launchChromium } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { tokenFor } from './support/tokens.ts';
import { SHOWN_WITHIN } from './support/timing.ts';

const mariadb = databaseTarget('mariadb');

describe('the console submits a form once while its change is under way (behaviour §14)', () => {
  failWithout(chromiumMissing());
  failWithout(mariadb.missing);
  let database: TestDatabase;
  let service: ServiceProcess;
  let browser: Browser;
  let token: string;
  let organizationId: string;
  const run = uniqueId('forms');

  beforeAll(async () => {
    database = await mariadb.create();
    service = await startConsoleService(database.url);
    browser = await launchChromium();
    token = await tokenFor(`${run}-owner`, { role: 'owner' });
    const user = await restCall(service.baseUrl, 'POST', '/users', token, {
      first_name: 'Fern',
      last_name: 'Forms',
      email: `${run}-owner@example.com`,
    });
    expect(user.status).toBe(201);
    const created = await restCall(service.baseUrl, 'POST', '/organizations', token, {
      organization_name: 'Once Corp',
      organization_description: '',
    });
    expect(created.status).toBe(201);
    organizationId = created.body.organization_id as string;
  }, 120_000);
  afterEach(() => closeContexts(browser));
  afterAll(async () => {
    await browser?.close();
    service?.kill();
    await database?.drop();
  });

  /**
   * Runs `work` while another session holds the organization's row: every change of the
   * organization waits for it inside the service (for less than DB_TIMEOUT_MS, 5 s), then goes on.
   */
  const whileTheOrganizationIsHeld = async (work: () => Promise<void>) => {
    const holder = await mysql.createConnection({ uri: database.url.replace(/^mariadb:/, 'mysql:') });
    try {
      await holder.beginTransaction();
      await holder.query('select id from organizations where id = ? for update', [organizationId]);
      await work();
    } finally {
      await holder.rollback();
      await holder.end();
    }
  };
  /** The organization's items at `path` (its API keys, its webhooks) whose `field` is `value`. */
  const listed = async (path: string, field: string, value: string) => {
    const list = await restCall(service.baseUrl, 'GET', `/organizations/${organizationId}/${path}`, token);
    expect(list.status).toBe(200);
    return (list.body as Array<Record<string, unknown>>).filter((item) => item[field] === value);
  };
  /** Until the form's button is no longer busy: every call it made (one, or more without the fix) answered. */
  const answered = (button: Locator) => expect.poll(() => button.getAttribute('aria-busy'), SHOWN_WITHIN).toBeNull();
  const open = async (section: string): Promise<Page> => {
    const { page } = await openConsoleAt(browser, service.baseUrl, {
      path: `/organizations/${organizationId}/${section}`,
      token,
    });
    return page;
  };

  it('makes one API key of Enter pressed twice, again on the busy form, and a click on its busy button', async () => {
    const page = await open('api-keys');
    const form = page.getByRole('form', { name: 'New API key' });
    const name = form.getByLabel('Name');
    const create = form.getByRole('button', { name: 'Create API key' });
    const secret = page.locator('.osc-secret');
    for (const round of [1, 2, 3]) {
      const keyName = `${run} twice ${round}`;
      await name.fill(keyName);
      await whileTheOrganizationIsHeld(async () => {
        // One after the other, without waiting for anything between them.
        await name.press('Enter');
        await name.press('Enter');
        // Once the form shows its change under way: Enter in its one field, and its button.
        await expect.poll(() => create.getAttribute('aria-busy'), SHOWN_WITHIN).toBe('true');
        await name.press('Enter');
        await create.click({ force: true });
      });
      await expect.poll(() => secret.textContent(), SHOWN_WITHIN).toMatch(/^oak_/);
      await answered(create);
      expect(await listed('api-keys', 'name', keyName), `round ${round}`).toHaveLength(1);
      await page.getByRole('button', { name: 'I have copied it' }).click();
    }
  });

  it('makes one webhook endpoint of a double click, and of a click then Enter', async () => {
    const page = await open('webhooks');
    const form = page.getByRole('form', { name: 'New webhook endpoint' });
    const url = form.getByLabel('Endpoint URL');
    const create = form.getByRole('button', { name: 'Create webhook' });
    const secret = page.locator('.osc-secret');
    const ways: Array<[string, () => Promise<void>]> = [
      ['a double click', () => create.dblclick()],
      [
        'a click then Enter',
        async () => {
          await create.click();
          await url.press('Enter');
        },
      ],
      ['a double click again', () => create.dblclick()],
    ];
    for (const [index, [way, submitTwice]] of ways.entries()) {
      const endpoint = `http://127.0.0.1:9/${run}/${index}`;
      await url.fill(endpoint);
      await whileTheOrganizationIsHeld(submitTwice);
      await expect.poll(() => secret.textContent(), SHOWN_WITHIN).toMatch(/^whsec_/);
      await answered(create);
      expect(await listed('webhooks', 'url', endpoint), way).toHaveLength(1);
      await page.getByRole('button', { name: 'I have copied it' }).click();
    }
  });
});
