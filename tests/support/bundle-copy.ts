/**
 * The service's bundle as another user can run it: with the packages it may load from
 * node_modules at run time (the production dependencies and theirs: what `npm ci --omit=dev`
 * installs) and Node's binary, in a temporary directory that every user may read. A test that runs
 * the service as nobody cannot run it from the checkout when the checkout sits in a directory only
 * its owner may enter (`mktemp -d`, a home directory of mode 0700).
 *
 * Files are hard-linked where the file system allows (Node's binary alone is over 100 MB), else
 * copied. The bundle is not self-contained: besides the packages server/build.ts leaves out of it,
 * code in it may `require` a package's file at run time.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { bundledEntry } from '../../server/build.ts';
import { projectRoot } from './process.ts';

export interface BundleCopy {
  /** Node's binary. */
  node: string;
  /** The bundle's entry point. */
  entry: string;
  dir: string;
  remove(): void;
}

function linkOrCopy(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch {
    copyFileSync(source, target);
  }
}

/** `source`'s files under `target`, which must not exist yet. */
function mirror(source: string, target: string): void {
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) mirror(from, to);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else linkOrCopy(from, to);
  }
}

/** Where Node finds package `name` required from `from`: the nearest node_modules, up to the project's. */
function packageDirectory(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === projectRoot) return undefined;
  }
}

/** The installed directories of the dependencies of the package at `dir`, and of theirs. */
function dependencyDirectories(dir: string, found = new Set<string>()): Set<string> {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
    const installed = packageDirectory(name, dir);
    if (installed && !found.has(installed)) {
      found.add(installed);
      dependencyDirectories(installed, found);
    }
  }
  return found;
}

export function copyBundleForAnyUser(): BundleCopy {
  const dir = mkdtempSync(join(tmpdir(), 'orgs-bundle-'));
  chmodSync(dir, 0o755);
  const bundleDir = dirname(bundledEntry);
  mirror(bundleDir, join(dir, relative(projectRoot, bundleDir)));
  // The console it serves, built beside it (server/http/console.ts).
  const consoleDir = join(dirname(bundleDir), 'console');
  mirror(consoleDir, join(dir, relative(projectRoot, consoleDir)));
  for (const installed of dependencyDirectories(projectRoot)) {
    const target = join(dir, relative(projectRoot, installed));
    // A package nested in one mirrored before came along with it.
    if (!existsSync(target)) mirror(installed, target);
  }
  const node = join(dir, 'node');
  linkOrCopy(process.execPath, node);
  return {
    node,
    entry: join(dir, relative(projectRoot, bundledEntry)),
    dir,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
