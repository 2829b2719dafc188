/**
 * `npm start`'s entry point, which it runs bundled (server/build.ts). It first refuses a Node.js
 * older than the service needs, with one line that says what to run instead (node-version.ts).
 * Then it turns on Node's compile cache (V8 code for every module, kept in the OS temp directory)
 * before anything else loads, so that a restart compiles nothing it compiled before, a good
 * part of a start. Then it starts the service (start.ts). Static imports would load
 * the modules before the cache is on, hence the dynamic one.
 *
 * `npm start` also caps V8's young generation (`--max-semi-space-size=16`, in MB; a command-line
 * flag because V8 sizes its heap before any code runs). Under load V8 otherwise grows it to most of
 * the peak RSS; capped, the peak is far lower at the same rate (docs/performance.md, "Measured
 * choices in the code").
 */
import module from 'node:module';
import { exitUnlessNodeIsRecentEnough } from './node-version.ts';

exitUnlessNodeIsRecentEnough();
module.enableCompileCache();
await import('./start.ts');
