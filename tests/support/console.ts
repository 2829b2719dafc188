/**
 * The console's tests' common parts (tests/console*.test.ts): the bundle as `npm start` runs it, a
 * page watched for policy refusals and script errors, axe-core, and the screenshots of the docs.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { newDrawingPage } from './chromium.ts';
import { projectRoot, spawnService } from './process.ts';
import { TEST_SECRET } from './tokens.ts';

const SCREENSHOTS = join(projectRoot, 'docs', 'console');

/**
 * With `UPDATE_SCREENSHOTS=true`, the whole page as `docs/console/<name>.png` (the README and
 * docs show them); otherwise nothing. A plain run takes none: rendering a page to PNG is work of
 * the browser's that checks nothing of the console's.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== 'true') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(1000);
}
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The bundle on `databaseUrl`, as `npm start` runs it, with webhooks allowed to reach loopback
 * receivers; `env` adds settings (the DNS server of a test's own).
 */
export const startConsoleService = (databaseUrl: string, port = '0', env: Record<string, string> = {}) =>
  spawnService({
    PORT: port,
    DATABASE_URL: databaseUrl,
    JWT_SECRET: TEST_SECRET,
    RATE_LIMIT_MAX: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    // One quick retry: a failing delivery has failed within a second, for the console's Retry.
    WEBHOOK_RETRY_SCHEDULE: '200ms',
    EVENTS_POLL_INTERVAL_MS: '50',
    ...env,
  });

/** A page of the console with what the walk checks on every page: no policy refusal, no script error. */
export interface ConsolePage {
  page: Page;
  /** Content-Security-Policy refusals and uncaught errors seen so far. */
  problems: string[];
}

export async function openConsole(context: BrowserContext): Promise<ConsolePage> {
  const page = await newDrawingPage(context);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { page, problems };
}

/** The widths the console is tested at: a desktop, and a phone's 390 px. */
export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };
/** A small phone's 375 px, where a long word that fits 390 px may not. */
export const SMALL_PHONE = { width: 375, height: 740 };

/** A browser context as the console's tests open one: at `viewport`, with reduced motion. */
export const newConsoleContext = (browser: Browser, viewport = DESKTOP) =>
  browser.newContext({ viewport, reducedMotion: 'reduce' });

/**
 * The console at `path`, signed in with `token` through the address's fragment, in a context of
 * its own at `viewport`; `clipboard` lets the page read and write the clipboard (copy buttons).
 */
export async function openConsoleAt(
  browser: Browser,
  baseUrl: string,
  {
    path,
    token,
    viewport = DESKTOP,
    clipboard = false,
  }: { path: string; token: string; viewport?: typeof DESKTOP; clipboard?: boolean },
): Promise<ConsolePage> {
  const context = await newConsoleContext(browser, viewport);
  if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const opened = await openConsole(context);
  await opened.page.goto(`${baseUrl}/console${path}#token=${token}`);
  return opened;
}

/**
 * axe-core on the page as it is now: no serious or critical violation. Injected through the
 * debugging protocol, which the page's policy does not govern, so the policy stays as users get it.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const { violations } = await (
      globalThis as unknown as {
        axe: {
          run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe.run();
    return violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
  expect(
    violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical'),
    name,
  ).toEqual([]);
}

export const navigation = (page: Page) => page.getByRole('navigation', { name: 'Organization' });
