/**
 * Loaded into a server by `npm run bench:ab` with AB_PROMISES_DIR (`node --import`): counts the
 * promises the process creates and the HTTP requests it receives, and writes both to the file
 * PROMISE_COUNT_FILE names every PROMISE_COUNT_INTERVAL_MS, as `promises requests`. The bench
 * reads the file before and after a measured run. Promises per request is a count, not a timing: it
 * is the same on a busy machine as on an idle one, and tells apart two builds whose req/s this
 * machine cannot (docs/performance.md). Each promise is an allocation and a job on the microtask
 * queue; an `await` counts once more here than it costs without the hook (V8 then makes a promise
 * it otherwise skips), alike for every server.
 *
 * One promise in SITE_SAMPLING also has where it was made recorded (its first three frames, in
 * the sources where the server runs with --enable-source-maps), and `<file>.sites` lists those
 * places, most promises first, with the promises per request each stands for.
 */
import { createHook } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { renameSync, writeFileSync } from 'node:fs';

export const PROMISE_COUNT_INTERVAL_MS = 100;
const SITE_SAMPLING = 64;
const SITES_INTERVAL_MS = 1000;
const SITES_LISTED = 60;

/** Where the promise being made was made: the first frames that are not the hook's own. */
function creationSite(): string {
  const kept = Error.stackTraceLimit;
  Error.stackTraceLimit = 12;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = kept;
  return stack
    .split('\n')
    .slice(1)
    .filter((line) => !line.includes('async_hooks') && !line.includes('promise-count'))
    .slice(0, 3)
    .map((line) => line.trim().replace(/^at /, ''))
    .join(' < ');
}

const file = process.env.PROMISE_COUNT_FILE;
if (file) {
  let promises = 0;
  let requests = 0;
  const sites = new Map<string, number>();
  let recording = false;
  createHook({
    init(_id, type) {
      if (type !== 'PROMISE' || recording) return;
      if (++promises % SITE_SAMPLING !== 0) return;
      // What the recording does must not count, nor recurse.
      recording = true;
      const site = creationSite();
      sites.set(site, (sites.get(site) ?? 0) + 1);
      recording = false;
    },
  }).enable();
  subscribe('http.server.request.start', () => requests++);
  // Written aside and renamed over the file: the bench never reads it half written.
  setInterval(() => {
    writeFileSync(`${file}.next`, `${promises} ${requests}`);
    renameSync(`${file}.next`, file);
  }, PROMISE_COUNT_INTERVAL_MS).unref();
  setInterval(() => {
    const listed = [...sites].sort((a, b) => b[1] - a[1]).slice(0, SITES_LISTED);
    const perRequest = (sampled: number) => ((sampled * SITE_SAMPLING) / Math.max(requests, 1)).toFixed(2);
    writeFileSync(`${file}.sites`, listed.map(([site, sampled]) => `${perRequest(sampled)} ${site}\n`).join(''));
  }, SITES_INTERVAL_MS).unref();
}
