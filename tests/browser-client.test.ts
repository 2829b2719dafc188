/**
 * The typed client in a real browser (Debian's Chromium driven by playwright-core), on a page of
 * another origin than the service, as a frontend runs it: the package's build bundled for the
 * browser by esbuild, CORS_ORIGINS naming the page's origin. The page signs up, creates an
 * organization, fires twenty queries at once, reads an ApiError, retries a change with its
 * Idempotency-Key and sees the replay, and receives a live event; a page of an origin not in
 * CORS_ORIGINS is refused by the browser.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJavaScript } from '../client/build.ts';
import type * as ClientModule from '../client/src/index.ts';
import { MAX_BATCH_ITEMS } from '../shared/limits.ts';
import { databaseTarget } from './support/databases.ts';
import { addMember, registerUser, uniqueId } from './support/fixtures.ts';
import { launchChromium, newDrawingPage } from './support/chromium.ts';
import { chromiumMissing, failWithout } from './support/needs.ts';
import { freePorts } from './support/ports.ts';
import { projectRoot } from './support/process.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

/** What the page's script puts on `window`: the package's exports. */
declare global {
  interface Window {
    orgClient: typeof ClientModule;
  }
}

const [pagePort, otherPort] = await freePorts(2);
const pageOrigin = `http://127.0.0.1:${pagePort}`;
const otherOrigin = `http://127.0.0.1:${otherPort}`;

/** The page: the bundled client and nothing else; the test drives it through `window.orgClient`. */
const PAGE = '<!doctype html><title>client</title><script type="module" src="/client.js"></script>';

/** The client package's build, bundled for the browser with its dependencies, as a frontend's bundler does. */
async function browserBundle(): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), 'client-build-'));
  try {
    await buildJavaScript(outdir);
    const bundled = await build({
      stdin: { contents: "import * as client from '@org-service/client'; window.orgClient = client;", loader: 'js' },
      alias: { '@org-service/client': join(outdir, 'index.js') },
      nodePaths: [join(projectRoot, 'node_modules')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'chrome120',
      write: false,
      logLevel: 'warning',
    });
    return bundled.outputFiles[0]!.text;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

async function servePage(port: number, script: string): Promise<Server> {
  const server = createServer((request, response) => {
    const isScript = request.url === '/client.js';
    response.writeHead(200, { 'content-type': isScript ? 'text/javascript' : 'text/html' });
    response.end(isScript ? script : PAGE);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

describe('typed client in Chromium, from another origin', () => {
  failWithout(chromiumMissing());
  const service = useServer(databaseTarget('embedded'), { CORS_ORIGINS: pageOrigin });
  let browser: Browser;
  const pages: Server[] = [];

  beforeAll(async () => {
    const script = await browserBundle();
    pages.push(await servePage(pagePort!, script), await servePage(otherPort!, script));
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    for (const page of pages) page.close();
  });

  /** A fresh page of the origin, once its script has run; every /trpc request it sends is recorded. */
  async function openPage(origin: string) {
    const page = await newDrawingPage(browser);
    const requests: Array<{ method: string; url: string; headers: Record<string, string> }> = [];
    const consoleMessages: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/trpc/'))
        requests.push({ method: request.method(), url: request.url(), headers: request.headers() });
    });
    page.on('console', (message) => consoleMessages.push(message.text()));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => window.orgClient !== undefined);
    return { page, requests, consoleMessages };
  }

  let ownerId: string;
  let ownerToken: string;
  let organizationId: string;
  let page: Page;
  let requests: Awaited<ReturnType<typeof openPage>>['requests'];

  it('signs up, creates an organization and answers twenty queries fired at once', { timeout: 60_000 }, async () => {
    ownerId = uniqueId('browser-owner');
    ownerToken = await tokenFor(ownerId, { role: 'owner' });
    ({ page, requests } = await openPage(pageOrigin));
    const created = await page.evaluate(
      async ({ url, token, ownerId }) => {
        const api = window.orgClient.createClient({ url, token });
        await api.users.create.mutate({ first_name: 'Bea', last_name: 'Browser', email: `${ownerId}@example.com` });
        return api.organizations.create.mutate({ organization_name: 'In a browser', organization_description: '' });
      },
      { url: service().baseUrl, token: ownerToken, ownerId },
    );
    expect(created).toMatchObject({ user_id: ownerId, role: 'owner' });
    organizationId = created.organization_id;

    requests.length = 0;
    const answers = await page.evaluate(
      ({ url, token, organizationId }) => {
        const api = window.orgClient.createClient({ url, token, organizationId });
        return Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            [
              () => api.users.me.query().then((user) => user.id),
              () => api.organizations.list.query().then((list) => list.map((organization) => organization.id)),
              () => api.members.list.query().then((members) => members.map((member) => member.user_id)),
              () => api.organizations.get.query({ organization_id: organizationId }).then((got) => got.role),
            ][index % 4]!(),
          ),
        );
      },
      { url: service().baseUrl, token: ownerToken, organizationId },
    );
    answers.forEach((answer, index) =>
      expect(answer).toEqual([ownerId, [organizationId], [ownerId], 'owner'][index % 4]),
    );
    // Batched: twenty calls in two requests, each with the token and the organization.
    expect(requests.map((request) => request.url.split('/trpc/')[1]!.split(',').length)).toEqual([
      MAX_BATCH_ITEMS,
      MAX_BATCH_ITEMS,
    ]);
    for (const request of requests) {
      expect(request.headers).toMatchObject({ authorization: `Bearer ${ownerToken}`, organization_id: organizationId });
    }
  });

  it('rejects a forbidden call with an ApiError', { timeout: 30_000 }, async () => {
    const strangerToken = await tokenFor(uniqueId('stranger'));
    const error = await page.evaluate(
      async ({ url, token, organizationId }) => {
        const { ApiError, createClient } = window.orgClient;
        const stranger = createClient({ url, token, organizationId });
        const caught = await stranger.members.list.query().catch((reason: unknown) => reason);
        if (!(caught instanceof ApiError)) return { isApiError: false, text: String(caught) };
        return { isApiError: true, status: caught.status, code: caught.code, path: caught.path };
      },
      { url: service().baseUrl, token: strangerToken, organizationId },
    );
    expect(error).toEqual({ isApiError: true, status: 403, code: 'FORBIDDEN', path: 'members.list' });
  });

  it('retries a change with its Idempotency-Key and is told of the replay', { timeout: 30_000 }, async () => {
    const member = await registerUser(service(), 'browser-member');
    const outcome = await page.evaluate(
      async ({ url, token, organizationId, email }) => {
        const api = window.orgClient.createClient({ url, token, organizationId });
        const idempotencyKey = crypto.randomUUID();
        let replays = 0;
        const add = () =>
          api.members.add.mutate({ email, role: 'member' }, { idempotencyKey, onReplay: () => replays++ });
        const first = await add();
        const again = await add();
        return { same: JSON.stringify(first) === JSON.stringify(again), replays, role: again.role };
      },
      { url: service().baseUrl, token: ownerToken, organizationId, email: member.email },
    );
    expect(outcome).toEqual({ same: true, replays: 1, role: 'member' });
  });

  it('receives a live event for a change made meanwhile', { timeout: 30_000 }, async () => {
    await page.evaluate(
      async ({ url, token, organizationId }) => {
        const api = window.orgClient.createClient({ url, token });
        // Resume after the latest event, so that nothing made once the stream is open is missed.
        const { items } = await api.events.page.query({ organization_id: organizationId, limit: 1000 });
        const received: unknown[] = [];
        Object.assign(window, { received });
        await new Promise<void>((resolve, reject) => {
          api.events.watch.subscribe(
            { organization_id: organizationId, lastEventId: items.at(-1)?.event_id ?? null },
            { onStarted: () => resolve(), onData: ({ data }) => received.push(data), onError: reject },
          );
        });
      },
      { url: service().baseUrl, token: ownerToken, organizationId },
    );
    const owner = { id: ownerId, email: `${ownerId}@example.com`, token: ownerToken };
    const joining = await registerUser(service(), 'joining');
    await addMember(service(), owner, organizationId, joining, 'admin');
    const event = await page.waitForFunction(
      (userId) =>
        (window as unknown as { received: Array<{ type: string; subject_user_id: string }> }).received.find(
          (event) => event.type === 'member.added' && event.subject_user_id === userId,
        ),
      joining.id,
      { timeout: 15_000 },
    );
    expect(await event.jsonValue()).toMatchObject({
      type: 'member.added',
      organization_id: organizationId,
      actor_user_id: ownerId,
      data: { role: 'admin' },
    });
  });

  it('is refused by the browser on a page of an origin not in CORS_ORIGINS', { timeout: 30_000 }, async () => {
    const other = await openPage(otherOrigin);
    const outcome = await other.page.evaluate(
      async ({ url, token }) => {
        const { ApiError, createClient } = window.orgClient;
        const caught = await createClient({ url, token })
          .users.me.query()
          .catch((reason: unknown) => reason);
        return { isApiError: caught instanceof ApiError, message: (caught as Error).message };
      },
      { url: service().baseUrl, token: ownerToken },
    );
    // No answer reaches the page: fetch itself fails, and Chromium says why.
    expect(outcome).toEqual({ isApiError: false, message: 'Failed to fetch' });
    expect(other.consoleMessages.join('\n')).toMatch(
      new RegExp(`from origin '${otherOrigin}' has been blocked by CORS policy`),
    );
    await other.page.close();
  });
});

describe('CORS for the typed client', () => {
  const service = useServer(databaseTarget('embedded'), {
    CORS_ORIGINS: pageOrigin,
  });

  it('allows every header the client sends and exposes every header it reads', async () => {
    // Sent by the client: the token, JSON bodies, the organization, idempotency keys, tRPC's and
    // EventSource's own (Last-Event-ID on a reconnection), a request id of the caller's.
    const sent = [
      'authorization',
      'content-type',
      'organization_id',
      'idempotency-key',
      'trpc-accept',
      'last-event-id',
      'x-request-id',
    ];
    for (const method of ['GET', 'POST']) {
      const preflight = await service().request('OPTIONS', '/trpc/users.me', {
        headers: {
          origin: pageOrigin,
          'access-control-request-method': method,
          'access-control-request-headers': sent.join(','),
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(pageOrigin);
      const allowed = preflight.headers.get('access-control-allow-headers')!.split(',');
      expect(allowed.map((header) => header.trim().toLowerCase()).sort()).toEqual([...sent].sort());
    }
    // Read by the client or a page: the replay mark, when to retry, the next page, the request id.
    const answer = await service().request('GET', '/healthz', { headers: { origin: pageOrigin } });
    const exposed = answer.headers.get('access-control-expose-headers')!.split(',');
    expect(exposed.map((header) => header.trim().toLowerCase()).sort()).toEqual(
      ['idempotency-replayed', 'retry-after', 'link', 'x-request-id'].sort(),
    );
  });
});
