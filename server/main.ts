/**
 * `npm start`'s entry point. It turns on Node's compile cache (V8 code for every module, kept in
 * the OS temp directory) before anything else loads, so that a restart compiles nothing it
 * compiled before: about 150 ms of a start of about one second. Then it starts the service
 * (start.ts). Static imports would load the modules before the cache is on, hence the dynamic one.
 */
import module from 'node:module';

module.enableCompileCache();
await import('./start.ts');
