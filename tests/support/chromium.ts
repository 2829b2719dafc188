/**
 * Debian's Chromium as the browser tests drive it (tests/support/needs.ts says how to install it).
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM } from './needs.ts';

/** Headless, without the sandbox (CI runs as root), a GPU or traffic of the browser's own; `args` adds flags. */
export const launchChromium = (args: string[] = []): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...args],
  });

/**
 * Closes every context the browser has open: run after each test, so that no page of an earlier
 * test (a live event stream, a list that polls) still runs beside the pages the next test drives.
 */
export const closeContexts = async (browser: Browser | undefined): Promise<void> => {
  await Promise.all(browser?.contexts().map((context) => context.close()) ?? []);
};

/** How long a new page may take to draw its first frame, on a loaded machine. */
const FIRST_FRAME_WITHIN_MS = 5000;
const PAGE_TRIES = 3;

/** Whether the page draws a frame (runs a requestAnimationFrame callback) within FIRST_FRAME_WITHIN_MS. */
const drawsFrames = (page: Page) =>
  page.evaluate(
    (within) =>
      new Promise<boolean>((resolve) => {
        requestAnimationFrame(() => resolve(true));
        setTimeout(() => resolve(false), within);
      }),
    FIRST_FRAME_WITHIN_MS,
  );

/**
 * A new page that draws frames, in its own context when `opener` is the browser. Headless Chromium
 * now and then opens a window whose renderer never draws one: nothing that waits for a frame
 * (Playwright's check that an element is stable, before each click) then ever ends. It shows on
 * the empty page, before any of the page's own code runs, so such a page is the browser's fault: it
 * is closed and another opened.
 */
export async function newDrawingPage(opener: Browser | BrowserContext): Promise<Page> {
  for (let tries = 1; ; tries++) {
    const page = await opener.newPage();
    if (await drawsFrames(page)) return page;
    await page.close();
    if (tries === PAGE_TRIES) throw new Error(`Chromium opened ${PAGE_TRIES} pages that drew no frame`);
  }
}
