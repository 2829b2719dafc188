/**
 * What held the service's event loop during `npm run bench:latency` with LATENCY_PROBE=true, which
 * loads this module into the service (`node --import`): each garbage collection's pause, and each
 * stretch over GAP_MS in which a timer due every TICK_MS could not run (the loop busy, or the
 * process without a CPU), with the wall-clock time each began. Written as JSON to
 * SERVICE_PROBE_FILE when the service exits; bench/open-loop.ts puts them beside each second's
 * latencies, so that a bad second says whether it was the collector, the loop or neither.
 *
 * The tick costs the service a wake-up every TICK_MS when idle: a probed run is for finding
 * stalls, not for the figures of record.
 */
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';

const TICK_MS = 2;
const GAP_MS = 10;

export interface ProbeRecord {
  /** [start, ms from the epoch; duration, ms; whether it was a major collection]. */
  pauses: Array<[number, number, boolean]>;
  /** [start, ms from the epoch; duration, ms] of each stretch the loop was held over GAP_MS. */
  gaps: Array<[number, number]>;
}

const file = process.env.SERVICE_PROBE_FILE;
if (file) {
  const record: ProbeRecord = { pauses: [], gaps: [] };
  const epoch = (sinceOrigin: number) => performance.timeOrigin + sinceOrigin;
  // A garbage collection's entry tells its kind in `detail` (Node's types leave it out).
  const isMajor = (entry: PerformanceEntry & { detail?: { kind?: number } }) =>
    entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) record.pauses.push([epoch(entry.startTime), entry.duration, isMajor(entry)]);
  }).observe({ entryTypes: ['gc'] });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > GAP_MS) record.gaps.push([epoch(last), now - last]);
    last = now;
  }, TICK_MS).unref();
  process.on('exit', () => writeFileSync(file, JSON.stringify(record)));
}
