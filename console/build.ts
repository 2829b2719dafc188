/**
 * Builds the console (behaviour §14) into dist/console: its script and stylesheet bundled and
 * minified by esbuild under content-hashed names in `assets/`, `index.html` naming them, and a gzip
 * and a brotli copy of each text file for the service to send as they are (server/http/console.ts).
 * Each file is written under a temporary name and renamed into place, the page last, so that a
 * service starting while another build runs (the tests start many) never reads half a build.
 *
 * esbuild rather than Vite: the project already bundles the server and the client package with it,
 * and the console needs nothing Vite adds on top (a development server, plugins, HTML processing):
 * one entry, JSX, one stylesheet. It takes about a second, so `npm start` builds it every time.
 *
 *   node console/build.ts [outdir]     (`npm run build` and `npm start` run it after server/build.ts)
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = import.meta.dirname;
export const consoleOutdir = join(here, '..', 'dist', 'console');

/** The console's JavaScript at most, gzipped (what its users download). */
export const SCRIPT_BUDGET_BYTES = 250 * 1024;

export interface ConsoleBuild {
  /** The script's and stylesheet's file names under assets/. */
  script: string;
  stylesheet: string;
  /** The script's size gzipped, in bytes. */
  scriptGzipBytes: number;
}

const page = (script: string, stylesheet: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Organizations console</title>
    <link rel="icon" href="/console/favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/console/assets/${stylesheet}" />
    <script type="module" src="/console/assets/${script}"></script>
  </head>
  <body>
    <div id="root"></div>
    <noscript>The console needs JavaScript.</noscript>
  </body>
</html>
`;

function writeInPlace(path: string, contents: Buffer, written: Set<string>): void {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
  written.add(path);
}

/** Writes the file with its gzip and brotli copies; answers the gzipped size. */
function writeWithCopies(path: string, contents: string | Buffer, written: Set<string>): number {
  const bytes = Buffer.from(contents);
  const gzip = gzipSync(bytes, { level: 9 });
  const brotli = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
  writeInPlace(`${path}.gz`, gzip, written);
  writeInPlace(`${path}.br`, brotli, written);
  writeInPlace(path, bytes, written);
  return gzip.length;
}

/** Files of earlier builds (their names carry a content hash). */
function removeAllBut(dir: string, written: Set<string>): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !written.has(path) && !entry.name.endsWith('.tmp')) rmSync(path, { force: true });
  }
}

export async function buildConsole(outdir = consoleOutdir): Promise<ConsoleBuild> {
  const result = await build({
    entryPoints: [join(here, 'src', 'main.tsx')],
    outdir: join(outdir, 'assets'),
    entryNames: 'console-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome120', 'firefox120', 'safari17'],
    jsx: 'automatic',
    // `@org-service/client` is the workspace's package: its sources, not its build (client/package.json).
    // esbuild's default `module` condition stays only if named with it.
    conditions: ['@org-service/source', 'module'],
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(join(outdir, 'assets'), { recursive: true });
  const written = new Set<string>();
  let script = '';
  let stylesheet = '';
  let scriptGzipBytes = 0;
  for (const file of result.outputFiles) {
    const size = writeWithCopies(file.path, Buffer.from(file.contents), written);
    if (file.path.endsWith('.js')) [script, scriptGzipBytes] = [basename(file.path), size];
    if (file.path.endsWith('.css')) stylesheet = basename(file.path);
  }
  writeWithCopies(join(outdir, 'favicon.svg'), readFileSync(join(here, 'favicon.svg')), written);
  writeWithCopies(join(outdir, 'index.html'), page(script, stylesheet), written);
  removeAllBut(outdir, written);
  if (scriptGzipBytes > SCRIPT_BUDGET_BYTES) {
    throw new Error(
      `The console's script is ${scriptGzipBytes} bytes gzipped, over its budget of ${SCRIPT_BUDGET_BYTES}`,
    );
  }
  return { script, stylesheet, scriptGzipBytes };
}

if (import.meta.main) {
  const built = await buildConsole(process.argv[2]);
  console.log(`console: ${built.script} ${(built.scriptGzipBytes / 1024).toFixed(1)} KB gzipped, ${built.stylesheet}`);
}
