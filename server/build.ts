/**
 * Bundles the server into dist/server with esbuild: what `npm start` runs (`npm run build` builds
 * the console it serves too, console/build.ts). Node then loads a
 * handful of files instead of resolving and reading about a thousand modules one by one, and needs
 * no TypeScript stripping: the start is faster and the idle RSS smaller (bench/run.ts measures the
 * start; docs/performance.md gives the figures).
 *
 * What stays outside the bundle, loaded from node_modules at run time: the embedded database's
 * native addon (libsql), and @fastify/swagger-ui, which serves its own files from its folder.
 * Chunks are split at dynamic imports, so what the service loads only on demand (the MySQL or the
 * embedded driver, metrics, Redis) is still loaded only on demand.
 *
 * Each file is written under a temporary name and renamed into place, so that a service starting
 * while another build runs (the tests start many) never reads half a file.
 *
 *   npm run build            (or `node server/build.ts [outdir]`; `npm start` runs it first)
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';

const projectRoot = join(import.meta.dirname, '..');

/** The bundle's entry point, as `npm start` and the tests run it. */
export const bundledEntry = join(projectRoot, 'dist', 'server', 'main.js');

/**
 * tRPC's published build turns object spread into Babel's `_objectSpread2` helper, which copies
 * each key with `Object.defineProperty` through a closure: for the spreads tRPC makes around each
 * middleware (about ten per procedure call) several times slower than `Object.assign`
 * (docs/performance.md, "Measured choices in the code"). The objects it spreads are plain ones it
 * has just made (call options, the context), for which both copy the same own enumerable keys,
 * symbols included.
 *
 * So in the bundle the helper's two call shapes, `_objectSpread2(_objectSpread2({}, a), {}, {…})`
 * and `_objectSpread2(_objectSpread2({}, a), b)`, become the object spreads they were written as
 * (`({ ...a, … })`, `({ ...a, ...b })`): V8 compiles a spread at its own call site, with that
 * site's shapes, where one shared helper sees every shape and stays slow. The middleware chain
 * (`callRecursive`) was faster per call this way than through an `Object.assign` helper, in a
 * scratch copy of it with seven layers; none of the rewritten literals has a getter, whose
 * spread would differ. The helper's body, still called elsewhere, becomes `Object.assign`. The
 * build fails if either is not found, as after a tRPC upgrade that changed them, rather than
 * silently keeping the slow ones.
 */
const BABEL_OBJECT_SPREAD =
  /function _objectSpread2\(e\) \{\n\tfor \(var r = 1; r < arguments\.length; r\+\+\) \{\n[\s\S]*?\n\t\}\n\treturn e;\n\}/;
const NATIVE_OBJECT_SPREAD =
  'function _objectSpread2(e) {\n\tfor (var r = 1; r < arguments.length; r++) if (arguments[r] != null) Object.assign(e, arguments[r]);\n\treturn e;\n}';
const SPREAD_AND_LITERAL = /_objectSpread2\(_objectSpread2\(\{\}, ([\w$.]+)\), \{\}, \{/g;
const SPREAD_OF_TWO = /_objectSpread2\(_objectSpread2\(\{\}, ([\w$.]+)\), ([\w$.]+)\)/g;
/** What the middleware chain's spread of the call options reads once rewritten. */
const REWRITTEN_MIDDLEWARE_CALL = 'return callRecursive(index + 1, _def, ({ ...opts,';

const trpcObjectSpread: Plugin = {
  name: 'trpc-object-spread',
  setup(build) {
    let helpers = 0;
    let middlewareChains = 0;
    build.onStart(() => void (helpers = middlewareChains = 0));
    build.onLoad({ filter: /@trpc[\\/]server[\\/]dist[\\/].*\.mjs$/ }, ({ path }) => {
      let source = readFileSync(path, 'utf8');
      if (!source.includes('_objectSpread2(')) return undefined;
      source = source.replace(SPREAD_AND_LITERAL, '({ ...$1, ').replace(SPREAD_OF_TWO, '({ ...$1, ...$2 })');
      if (source.includes(REWRITTEN_MIDDLEWARE_CALL)) middlewareChains++;
      if (source.includes('function _objectSpread2(')) {
        if (!BABEL_OBJECT_SPREAD.test(source))
          throw new Error(`${path}: _objectSpread2 is not the helper this build replaces`);
        source = source.replace(BABEL_OBJECT_SPREAD, NATIVE_OBJECT_SPREAD);
        helpers++;
      }
      return { contents: source, loader: 'js' };
    });
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      if (helpers === 0) throw new Error("tRPC's _objectSpread2 helper was not found");
      if (middlewareChains === 0) throw new Error("tRPC's middleware chain (callRecursive) was not rewritten");
    });
  },
};

/**
 * Node's built-in modules taken with `require` where the sources import them. Imported as an ES
 * module, a built-in gets a module namespace that Node fills by reading every export, getters
 * included, and some getters load whole subsystems the service does not use at start: `http`'s
 * `WebSocket` loads undici, `fs`'s `promises` its promise API, `process`'s its reports and
 * permissions (docs/performance.md, "Measured choices in the code"). Each such import becomes a
 * CommonJS module of one line, `module.exports = require(...)`, whose named imports esbuild reads
 * as properties where they are used, without touching the getters.
 */
const builtinsRequired: Plugin = {
  name: 'builtins-required',
  setup(build) {
    build.onResolve({ filter: /^(?:node:)?[a-z0-9_]+(?:\/[a-z0-9_]+)?$/ }, ({ path, kind }) =>
      kind === 'import-statement' && isBuiltin(path) ? { path, namespace: 'required-builtin' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'required-builtin' }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(path)});`,
      loader: 'js',
    }));
  },
};

export const buildServer = (outdir = dirname(bundledEntry)) =>
  bundle(join(projectRoot, 'server', 'main.ts'), outdir, [trpcObjectSpread, builtinsRequired]);

/**
 * The bundle with every character outside ASCII written as a `\uXXXX` escape. esbuild escapes them
 * in code already (its default `charset: 'ascii'`) but keeps comments as they are, and one em dash
 * in a comment makes V8 hold the whole file's source (kept for lazy compilation) as UTF-16, two
 * bytes per character instead of one, megabytes of idle RSS for nothing. What
 * is left outside ASCII is in comments, where the escape means nothing; in code it would mean the
 * same character.
 */
const asciiOnly = (source: string) =>
  source.replace(/[\x80-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Bundles one entry point into `outdir` (as `<its name>.js`, with its chunks), replacing what was there. */
export async function bundle(entryPoint: string, outdir: string, plugins: Plugin[] = []): Promise<void> {
  const result = await build({
    entryPoints: [entryPoint],
    outdir,
    bundle: true,
    // Where a dynamic import of a CommonJS package becomes a chunk of its own, that chunk's one
    // export is `default`, the package's module.exports, whatever named exports Node finds in it
    // (esbuild issue #3245): such a package is imported for its default export (ioredis in
    // http/protection.ts). tests/settings.test.ts starts this bundle with every setting.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    external: ['libsql', '@libsql/*', '@fastify/swagger-ui'],
    // Bundled CommonJS packages require Node's built-in modules; an ES module has no `require`.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    // Stack traces name the bundle's lines; `node --enable-source-maps` maps them to the sources.
    sourcemap: 'linked',
    plugins,
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(outdir, { recursive: true });
  const written = new Set<string>();
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temporary, file.path.endsWith('.js') ? asciiOnly(file.text) : file.contents);
    renameSync(temporary, file.path);
    written.add(basename(file.path));
  }
  // Chunks of earlier builds (their names carry a content hash).
  for (const name of readdirSync(outdir)) {
    if (!written.has(name) && !name.endsWith('.tmp')) rmSync(join(outdir, name), { force: true });
  }
}

if (import.meta.main) await buildServer(process.argv[2]);
