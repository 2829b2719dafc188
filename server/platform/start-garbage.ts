/**
 * A full garbage collection just before the service listens. A start allocates tens of megabytes
 * (modules, the OpenAPI document, the migration check) and V8 collects them on its own schedule:
 * left to it, a full collection of the start's heap, and scavenges copying the start's survivors,
 * fall in the first seconds of serving, where they stall every request under way
 * (docs/performance.md, "Latency at a rate"). Collected here, the start pays for it once, before
 * the first request.
 *
 * `gc` is V8's, exposed only to a context made after `--expose-gc` is set: the main context is left
 * as it is, and the flag need not be on every command line that starts the service.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function collectStartGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
