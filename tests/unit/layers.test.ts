/**
 * The layers of docs/development.md ("Architecture"): entry points -> server/http -> server/modules
 * -> server/platform -> shared. No module imports from a layer above its own, and no modules import
 * each other in a circle (type-only imports included: a circle of types is still a knot to untie).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/process.ts';

const IMPORT = /(?:from|import|declare module)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sourcesUnder(folder: string): string[] {
  return readdirSync(join(projectRoot, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file))
    .map((file) => normalize(join(folder, file)));
}

/** Each source file of server/ and shared/ with the files of the repository it imports. */
const graph = new Map<string, string[]>(
  [...sourcesUnder('server'), ...sourcesUnder('shared')].map((file) => [
    file,
    [...readFileSync(join(projectRoot, file), 'utf8').matchAll(IMPORT)].map((match) =>
      relative(projectRoot, join(projectRoot, dirname(file), match[1]!)),
    ),
  ]),
);

const LAYERS = ['shared/', 'server/platform/', 'server/modules/', 'server/http/'];
/**
 * 0 for shared/ up to 3 for server/http/; the entry points (server/*.ts, server/cli/) are above all,
 * and what is neither server/ nor shared/ (package.json, migrations/) is data below them all.
 */
const layerOf = (file: string) => {
  if (!file.startsWith('server/') && !file.startsWith('shared/')) return -1;
  const layer = LAYERS.findIndex((prefix) => file.startsWith(prefix));
  return layer < 0 ? LAYERS.length : layer;
};

describe('the layers', () => {
  it('import only from their own layer or those below it', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('hold no circle of imports', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) if (graph.has(target)) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('are what the graph is read from: every import resolves to a file of the repository', () => {
    const targets = [...graph.values()]
      .flat()
      .filter((target) => target.startsWith('server/') || target.startsWith('shared/'));
    expect(targets.filter((target) => !graph.has(target))).toEqual([]);
    expect(targets.length).toBeGreaterThan(100);
  });
});

/** Each source file of client/ and console/ with the files of the repository it imports. */
const frontEnd = new Map<string, string[]>(
  [...sourcesUnder('client/src'), ...sourcesUnder('console')].map((file) => [
    file,
    [...readFileSync(join(projectRoot, file), 'utf8').matchAll(IMPORT)].map((match) =>
      relative(projectRoot, join(projectRoot, dirname(file), match[1]!)),
    ),
  ]),
);

describe('the client package and the console', () => {
  it('are never imported by the server or shared/', () => {
    const inward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => target.startsWith('client/') || target.startsWith('console/'))
        .map((target) => `${file} -> ${target}`),
    );
    expect(inward).toEqual([]);
  });

  it("import the server only for the router's type, the client never the console", () => {
    const crossing = [...frontEnd].flatMap(([file, imports]) =>
      imports
        .filter((target) =>
          file.startsWith('client/')
            ? target.startsWith('console/') ||
              (target.startsWith('server/') &&
                !(file === 'client/src/router.ts' && target === 'server/modules/router.ts'))
            : target.startsWith('server/'),
        )
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossing).toEqual([]);
    expect(frontEnd.size).toBeGreaterThan(20);
  });
});
