/**
 * What a server allocates while it is measured: V8's sampling heap profiler, asked over the
 * inspector protocol of a server started with `--inspect=127.0.0.1:PORT`, counting every sampled
 * allocation, the garbage the young generation collects included. `node --heap-prof` cannot: it
 * keeps only what is still alive when the process exits. The garbage a request leaves is what sets
 * how often the young generation is collected, each collection a pause of every request under way
 * (docs/performance.md, "Latency at a rate"). The profile is a `.heapprofile` that Chrome DevTools'
 * Memory tab opens.
 */
import { writeFile } from 'node:fs/promises';

/** One in this many bytes allocated is sampled, with its stack. */
const SAMPLING_INTERVAL = 16 * 1024;

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}

const bytesUnder = (node: ProfileNode): number =>
  node.children.reduce((sum, child) => sum + bytesUnder(child), node.selfSize);

/** A connection to the inspector of the process listening on `port` (loopback). */
async function inspectorAt(port: number) {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const socket = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let lastId = 0;
  const waiting = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++lastId;
      waiting.set(id, (message) => {
        waiting.delete(id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}

/**
 * Starts sampling the allocations of the process whose inspector listens on `port`; `stop` writes
 * the profile to `file` and gives the bytes allocated in all (as sampled).
 */
export async function profileAllocations(port: number): Promise<{ stop: (file: string) => Promise<number> }> {
  const inspector = await inspectorAt(port);
  await inspector.send('HeapProfiler.enable');
  await inspector.send('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_INTERVAL,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop(file) {
      const { profile } = (await inspector.send('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
      inspector.close();
      await writeFile(file, JSON.stringify(profile));
      return bytesUnder(profile.head);
    },
  };
}
