/**
 * `mkdir -p`, made by hand because Node's own (`mkdirSync(path, { recursive: true })`, and the
 * libraries that call it) loops forever at full CPU when a directory exists but cannot hold the
 * next one: under /proc, or below a dangling symbolic link. Its mkdir fails with ENOENT, it makes
 * the parent, which exists, and tries again. Here a second ENOENT once the parent exists is thrown,
 * with the path, for the start's one-line error (cli/failures.ts).
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export function makeDirectory(path: string, parentMade = false): void {
  try {
    mkdirSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(path).isDirectory()) return;
    const parent = dirname(path);
    if (code !== 'ENOENT' || parentMade || parent === path) throw error;
    makeDirectory(parent);
    makeDirectory(path, true);
  }
}
