/**
 * A clock for bench/open-loop.ts that wakes its caller at each due instant, not at the next whole
 * millisecond: Node's timers have a granularity of 1 ms, so a request due between two ticks went
 * out up to a millisecond late, a delay of the generator counted as the server's latency. A worker
 * thread waits out each interval in `Atomics.wait`, whose time-out is a fraction of a millisecond
 * (a futex, no CPU while it waits), and posts the due request's index to the main thread.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { interval, total } = workerData;
const cell = new Int32Array(new SharedArrayBuffer(4));
parentPort.once('message', (startEpochMs) => {
  for (let index = 0; index < total; index++) {
    const wait = startEpochMs + index * interval - (performance.timeOrigin + performance.now());
    if (wait > 0) Atomics.wait(cell, 0, 0, wait);
    parentPort.postMessage(index);
  }
});
`;

/**
 * Calls `due(index)` for index 0 to `total` − 1, each at the start plus index × `interval` ms, or as
 * soon after as this thread's event loop gets to it. Resolves with the start, a `performance.now()`
 * of this thread, once the clock runs.
 */
export async function startDueClock(interval: number, total: number, due: (index: number) => void): Promise<number> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { interval, total } });
  worker.on('message', (index: number) => {
    due(index);
    if (index === total - 1) void worker.terminate();
  });
  await once(worker, 'online');
  const start = performance.now();
  worker.postMessage(performance.timeOrigin + start);
  return start;
}
