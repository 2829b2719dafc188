/**
 * Builds the package into client/dist: `index.js`, one ES module bundled by esbuild from the
 * client's sources and the shared files they import (limits, error codes), its dependencies left
 * as imports; and `index.d.ts`, its declarations bundled by dts-bundle-generator into one file
 * that imports only the packages the client declares (tRPC and eventsource). No server code and
 * no server type reaches either: src/router.ts gives the router's type without them.
 *
 *   npm run build:client            (or `node client/build.ts [outdir]`)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDtsBundle } from 'dts-bundle-generator';
import { build } from 'esbuild';

const here = import.meta.dirname;
const manifest = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
/** What the package may import: its dependencies and peer dependencies, nothing else. */
export const externalPackages = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)];

const entry = join(here, 'src/index.ts');

/** The JavaScript, in `outdir/index.js` (with its source map). */
export async function buildJavaScript(outdir: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile: join(outdir, 'index.js'),
    bundle: true,
    format: 'esm',
    // Runs in browsers and in Node: no built-in module of either is imported.
    platform: 'neutral',
    target: 'es2022',
    // '@trpc/server/observable' and the like: subpaths of the declared packages.
    external: externalPackages.flatMap((name) => [name, `${name}/*`]),
    sourcemap: true,
    logLevel: 'warning',
  });
}

/** The declarations, in `outdir/index.d.ts`. */
export function buildDeclarations(outdir: string): void {
  const [declarations] = generateDtsBundle(
    [
      {
        filePath: entry,
        libraries: { importedLibraries: externalPackages, allowedTypesLibraries: [] },
        output: { noBanner: true, exportReferencedTypes: false },
      },
    ],
    { preferredConfigPath: join(here, 'tsconfig.json') },
  );
  // @trpc/server's declarations use Disposable and AsyncDisposable, which a project on an older
  // `lib` (ES2022, as Vite's templates set) lacks: this brings their declarations along.
  writeFileSync(join(outdir, 'index.d.ts'), `/// <reference lib="esnext.disposable" />\n${declarations}`);
}

if (import.meta.main) {
  const outdir = process.argv[2] ?? join(here, 'dist');
  mkdirSync(outdir, { recursive: true });
  await buildJavaScript(outdir);
  buildDeclarations(outdir);
}
