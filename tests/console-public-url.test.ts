/**
 * The console behind a proxy that serves the service under a path (behaviour §14): with
 * PUBLIC_URL=https://example.com/orgs, in Chromium through a proxy on loopback that passes on what
 * is under /orgs with /orgs stripped, and answers 404 to anything else, as such a proxy would. The
 * page loads its files and calls the service under /orgs, its links and its address stay under it,
 * and the Directory page shows the SCIM base URL under PUBLIC_URL. The bundle, on the embedded
 * database; what the page names, without a browser: tests/public-url.test.ts.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectAccessible, navigation, openConsoleAt, PHONE, startConsoleService } from './support/console.ts';
import { describeOnDatabase, type TestDatabase } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';
import { closeContexts, launchChromium } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import type { ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { SHOWN_WITHIN } from './support/timing.ts';
import { tokenFor } from './support/tokens.ts';

const PUBLIC_URL = 'https://example.com/orgs';
const PREFIX = '/orgs';

interface Proxy {
  url: string;
  /** The requests it was sent outside PREFIX, which the service would never see. */
  outside: string[];
  server: Server;
}

/** A proxy on loopback that serves `target` under PREFIX, which it strips before passing a request on. */
async function startStrippingProxy(target: string): Promise<Proxy> {
  const outside: string[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (path !== PREFIX && !path.startsWith(`${PREFIX}/`)) {
      outside.push(`${request.method} ${path}`);
      response.writeHead(404).end();
      return;
    }
    const upstream = httpRequest(
      `${target}${path.slice(PREFIX.length) || '/'}`,
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, outside, server };
}

describeOnDatabase('embedded', 'the console under the path of PUBLIC_URL (behaviour §14)', (target) => {
  failWithout(chromiumMissing());
  let database: TestDatabase;
  let service: ServiceProcess;
  let proxy: Proxy;
  let browser: Browser;
  let ownerToken: string;
  let organizationId: string;
  const owner = uniqueId('prefixed');

  beforeAll(async () => {
    database = await target.create();
    service = await startConsoleService(database.url, '0', { PUBLIC_URL });
    proxy = await startStrippingProxy(service.baseUrl);
    browser = await launchChromium();
    ownerToken = await tokenFor(owner, { role: 'owner' });
    const api = (method: string, path: string, body: object) =>
      restCall(service.baseUrl, method, path, ownerToken, body);
    const profile = { first_name: 'Pat', last_name: 'Prefix', email: `${owner}@example.com` };
    expect((await api('POST', '/users', profile)).status).toBe(201);
    const created = await api('POST', '/organizations', { organization_name: 'Proxied', organization_description: '' });
    expect(created.status).toBe(201);
    organizationId = created.body.organization_id as string;
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await browser?.close();
    proxy?.server.closeAllConnections();
    proxy?.server.close();
    service?.kill();
    await database?.drop();
  });

  it(
    'loads its files and calls the service under the path of PUBLIC_URL, and shows the SCIM base URL under PUBLIC_URL',
    { timeout: 60_000 },
    async () => {
      const { page, problems } = await openConsoleAt(browser, `${proxy.url}${PREFIX}`, {
        path: `/organizations/${organizationId}/directory`,
        token: ownerToken,
      });
      await page.getByRole('heading', { level: 1, name: 'Directory' }).waitFor(SHOWN_WITHIN);
      await page.getByText(`${PUBLIC_URL}/scim/v2`, { exact: true }).waitFor(SHOWN_WITHIN);

      // Its links lead under the path, and the address it puts in the bar is one the proxy serves.
      await navigation(page).getByRole('link', { name: 'Members', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor(SHOWN_WITHIN);
      expect(page.url()).toBe(`${proxy.url}${PREFIX}/console/organizations/${organizationId}/members`);
      await page.getByText(`${owner}@example.com`).waitFor(SHOWN_WITHIN);
      await page.reload();
      await page.getByText(`${owner}@example.com`).waitFor(SHOWN_WITHIN);

      // At a phone's width too: the same page under the path, within the screen's width.
      const phone = await openConsoleAt(browser, `${proxy.url}${PREFIX}`, {
        path: `/organizations/${organizationId}/directory`,
        token: ownerToken,
        viewport: PHONE,
      });
      await phone.page.getByText(`${PUBLIC_URL}/scim/v2`, { exact: true }).waitFor(SHOWN_WITHIN);
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(phone.page, 'the Directory page under the path, at a phone width');

      expect(proxy.outside).toEqual([]);
      expect([...problems, ...phone.problems]).toEqual([]);
    },
  );
});
