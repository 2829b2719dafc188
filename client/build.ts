/**
 * Builds the package into client/dist: `index.js` (the client) and `react.js` (the console's React
 * components, the `react` entry), ES modules bundled by esbuild from the client's sources and the
 * shared files they import (limits, error codes), with what both use in one shared chunk and their
 * dependencies left as imports; `react.css`, the components' styles; and `index.d.ts` and
 * `react.d.ts`, their declarations bundled by dts-bundle-generator, each one file that imports only
 * the packages the client declares, and `react.css.d.ts` for the styles. No server code and no
 * server type reaches any of them: src/router.ts gives the router's type without them.
 *
 * `@trpc/tanstack-react-query` is bundled into `react.js` (and its types into `react.d.ts`) rather
 * than declared: its releases name one exact version of `@trpc/client` as their peer (11.22.1 for
 * the latest), which a host on any later 11.x could only install with an npm `overrides` entry.
 *
 *   npm run build:client            (or `node client/build.ts [outdir]`)
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** The package's entry points by their file name in dist. */
const entries = { index: join(here, 'src/index.ts'), react: join(here, 'src/react/index.ts') };

/** The JavaScript, in `outdir/index.js` and `outdir/react.js` (with their chunk and source maps), and the styles. */
export async function buildJavaScript(outdir: string): Promise<void> {
  await build({
    entryPoints: entries,
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: '[name]-[hash]',
    format: 'esm',
    // Runs in browsers and in Node: no built-in module of either is imported.
    platform: 'neutral',
    target: 'es2022',
    jsx: 'automatic',
    // 'react/jsx-runtime', '@trpc/server/observable' and the like: subpaths of the declared packages.
    external: externalPackages.flatMap((name) => [name, `${name}/*`]),
    sourcemap: true,
    logLevel: 'warning',
  });
  copyFileSync(join(here, 'src/react/styles.css'), join(outdir, 'react.css'));
}

/**
 * The styles' declaration: a side-effect import names nothing, but TypeScript 7 checks that it
 * resolves (`noUncheckedSideEffectImports`, on by default there), and a CSS file is no module it can
 * read: the `types` condition of `./react/styles.css` points here.
 */
const STYLES_DECLARATION =
  '// The styles of the components: imported for their side effect, they export nothing.\nexport {};\n';

/** The declarations, in `outdir/index.d.ts`, `outdir/react.d.ts` and `outdir/react.css.d.ts`. */
export function buildDeclarations(outdir: string): void {
  const declarations = generateDtsBundle(
    Object.values(entries).map((filePath) => ({
      filePath,
      // What is not imported is written out: @trpc/tanstack-react-query's types included.
      libraries: { importedLibraries: externalPackages, allowedTypesLibraries: [] },
      output: { noBanner: true, exportReferencedTypes: false },
    })),
    { preferredConfigPath: join(here, 'tsconfig.json') },
  );
  Object.keys(entries).forEach((name, index) => {
    // @trpc/server's declarations use Disposable and AsyncDisposable, which a project on an older
    // `lib` (ES2022, as Vite's templates set) lacks: this brings their declarations along.
    writeFileSync(join(outdir, `${name}.d.ts`), `/// <reference lib="esnext.disposable" />\n${declarations[index]}`);
  });
  writeFileSync(join(outdir, 'react.css.d.ts'), STYLES_DECLARATION);
}

if (import.meta.main) {
  const outdir = process.argv[2] ?? join(here, 'dist');
  // The shared chunk's name changes with its content: no earlier one may be packed with it.
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await buildJavaScript(outdir);
  buildDeclarations(outdir);
}
