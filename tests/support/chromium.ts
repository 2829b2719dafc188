/**
 * Debian's Chromium as the browser tests drive it (tests/support/needs.ts says how to install it).
 */
import { chromium, type Browser } from 'playwright-core';
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
