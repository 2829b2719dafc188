/**
 * The README and the docs kept true. The README's tour and the shell examples of docs/api.md that
 * go on from it run, in that order, with bash against the service started as `npm start` starts
 * it, with the roles file the README's first block writes, and print what their `# →` lines say.
 * The tables name every setting (docs/configuration.md, with its default), REST endpoint, error
 * code, audit event type (docs/api.md, with an example `data` the event schema accepts) and metric
 * (docs/operations.md) the code has, and nothing else.
 * In README.md, client/README.md and docs/*.md every relative link resolves to a file of the
 * repository (and an #anchor to a heading), the repository paths and npm scripts they name exist,
 * and nothing points outside the repository.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../server/platform/config.ts';
import { appRouter } from '../server/modules/router.ts';
import { procedureMetas } from '../server/platform/rpc/init.ts';
import { ERROR_STATUS } from '../shared/errors.ts';
import { EVENT_TYPES, eventDataSchemas } from '../shared/events.ts';
import {
  codeBlock,
  codeOf,
  parseMarkdown,
  settingRows,
  section,
  tableRows,
  type Markdown,
} from './support/markdown.ts';
import { projectRoot, spawnService, type ServiceProcess } from './support/process.ts';

const read = (path: string) => readFileSync(join(projectRoot, path), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: Markdown): Set<string> {
  const anchors = new Set<string>();
  for (const line of markdown.prose) {
    const heading = /^#{1,6} +(.+?) *#* *$/.exec(line)?.[1];
    if (!heading) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    let anchor = base;
    for (let copy = 1; anchors.has(anchor); copy++) anchor = `${base}-${copy}`;
    anchors.add(anchor);
  }
  return anchors;
}

const readme = parseMarkdown(read('README.md'));
const apiReference = parseMarkdown(read('docs/api.md'));
const operations = parseMarkdown(read('docs/operations.md'));

// ---- the shell examples ------------------------------------------------------------------------

/** The runnable blocks, in the order they run: the README's tour, then those of docs/api.md that go on from it. */
const RUNNABLE = [
  { document: readme, info: 'sh tour' },
  { document: apiReference, info: 'sh invitations' },
  { document: apiReference, info: 'sh teams' },
  { document: apiReference, info: 'sh events' },
  { document: apiReference, info: 'sh retry' },
];
/** A line that says what the command before it prints; `…` stands for ids and times. */
const PRINTS = '# → ';

const printedPattern = (expected: string) =>
  new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/…/g, '.+?')}$`);

/** The last line of the README's `sh roles-file` block: the start the tour runs against. */
const ROLES_FILE_START = 'ROLES_FILE=data/roles.json npm start';

function runBash(script: string, env: Record<string, string>, cwd = projectRoot) {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) =>
    child.once('close', (status) => done({ status, stdout, stderr })),
  );
}

describe('the README tour', () => {
  it('is one block, and the blocks that go on from it follow it', () => {
    const runnableIn = (document: Markdown) =>
      document.blocks.map((block) => block.info).filter((info) => RUNNABLE.some((block) => block.info === info));
    expect([...runnableIn(readme), ...runnableIn(apiReference)]).toEqual(RUNNABLE.map((block) => block.info));
  });

  describe('run with bash against the service', () => {
    // A folder of its own stands for the repository's: the tour's `./data` is its `data`.
    const folder = mkdtempSync(join(tmpdir(), 'orgs-readme-'));
    const dataDir = join(folder, 'data');
    let service: ServiceProcess | undefined;

    beforeAll(async () => {
      // The README's first block writes the roles file, then starts the service with it: the
      // writing runs as it is, the start as its last line says.
      const lines = codeBlock(readme, 'sh roles-file').split('\n');
      expect(lines.at(-1)).toBe(ROLES_FILE_START);
      const written = await runBash(lines.slice(0, -1).join('\n'), {}, folder);
      expect(written.status, written.stderr).toBe(0);
      // As on a fresh clone: no JWT_SECRET, so the service and `npm run token` share the
      // development secret in DATA_DIR.
      service = await spawnService({
        DATABASE_URL: `file:${join(dataDir, 'orgs.db')}`,
        DATA_DIR: dataDir,
        ROLES_FILE: join(dataDir, 'roles.json'),
      });
    });
    afterAll(() => {
      service?.kill();
      rmSync(folder, { recursive: true, force: true });
    });

    it('prints, line by line, what its # → lines say, and exits 0', { timeout: 120_000 }, async () => {
      const script = RUNNABLE.map(
        ({ document, info }) => document.blocks.find((block) => block.info === info)!.body,
      ).join('\n');
      const expected = script
        .split('\n')
        .filter((line) => line.startsWith(PRINTS))
        .map((line) => line.slice(PRINTS.length));
      const result = await runBash(script, { BASE: service!.baseUrl, DATA_DIR: dataDir });
      expect(result.status, result.stderr).toBe(0);
      const printed = result.stdout.trimEnd().split('\n');
      // Each printed line shown as the README's line when it matches, so a mismatch diffs clearly.
      expect(
        printed.map((line, index) => (printedPattern(expected[index] ?? '').test(line) ? expected[index] : line)),
      ).toEqual(expected);
    });

    it('logged one line per request, with its id and status, no server error and no token', () => {
      const requests = service!.entries().filter((entry) => entry.msg === 'request');
      expect(requests.length).toBeGreaterThan(15);
      for (const entry of requests) {
        expect(entry).toMatchObject({
          reqId: expect.any(String),
          method: expect.any(String),
          url: expect.any(String),
          status: expect.any(Number),
          durationMs: expect.any(Number),
        });
        expect(entry.status).toBeLessThan(500);
      }
      // Every JWT starts with the base64url of `{"` (its JSON header).
      expect(service!.lines.filter((line) => line.includes('eyJ') || /authorization/i.test(line))).toEqual([]);
    });
  });
});

// ---- the docs' tables against the code ---------------------------------------------------------

describe('the tables of the docs', () => {
  it('list every setting of server/platform/config.ts once, with its default', () => {
    const source = read('server/platform/config.ts');
    const schema = source.slice(source.indexOf('const settingsSchema'), source.indexOf('\n});'));
    const names = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((match) => match[1]!);
    const rows = settingRows();
    expect(rows.map((row) => row.name).sort()).toEqual([...names].sort());

    const defaults: Record<string, unknown> = readSettings({});
    for (const { name, cells } of rows) {
      const value = defaults[name];
      const defaultCell = cells[2] ?? '';
      if (value === undefined || (Array.isArray(value) && value.length === 0)) expect(defaultCell).toMatch(/^unset\b/);
      // A setting's default is a string, a number, a boolean or a list; an empty list is the case above.
      else expect(defaultCell, name).toContain(`\`${String(value as string | number | boolean | string[])}\``);
    }
  });

  it('list every REST endpoint with its procedure and 201, and every tRPC-only procedure', () => {
    const endpointsSection = section(apiReference, 'Endpoints');
    const documented = tableRows(endpointsSection)
      .filter((cells) => /^`(GET|POST|PUT|PATCH|DELETE) \//.test(cells[0]!))
      .map((cells) => ({
        route: /^`([^`]+)`/.exec(cells[0]!)![1],
        procedure: codeOf(cells[1]),
        created: cells[0]!.includes('→ 201'),
      }));
    const metas = procedureMetas(appRouter);
    const served = metas
      .filter(([, meta]) => meta?.openapi)
      .map(([procedure, meta]) => ({
        route: `${meta!.openapi!.method} ${meta!.openapi!.path}`,
        procedure,
        created: meta!.successStatus === 201,
      }));
    const byRoute = (a: { route?: string }, b: { route?: string }) => a.route!.localeCompare(b.route!);
    expect(documented.sort(byRoute)).toEqual(served.sort(byRoute));

    const prose = endpointsSection.join('\n');
    for (const [procedure] of metas.filter(([, meta]) => !meta?.openapi)) expect(prose).toContain(`\`${procedure}\``);
  });

  it('list every error code with its status', () => {
    const rows = tableRows(section(apiReference, 'Endpoints'))
      .filter((cells) => codeOf(cells[0]) !== undefined && /^\d{3}$/.test(cells[1]!))
      .map((cells) => [codeOf(cells[0]), Number(cells[1])]);
    expect(rows).toEqual(Object.entries(ERROR_STATUS));
  });

  it('list every audit event type with an example data the event schema accepts', () => {
    const rows = tableRows(section(apiReference, 'Audit events')).filter((cells) =>
      /^`[a-z_]+\.[a-z_]+`$/.test(cells[0]!),
    );
    expect(rows.map((cells) => codeOf(cells[0]))).toEqual([...EVENT_TYPES]);
    for (const cells of rows) {
      const type = codeOf(cells[0]) as (typeof EVENT_TYPES)[number];
      const example: unknown = JSON.parse(codeOf(cells.at(-1)) ?? 'null');
      expect(eventDataSchemas[type].safeParse(example).success, `${type}: ${cells.at(-1)}`).toBe(true);
    }
  });

  it('list every metric of server/http/metrics.ts', () => {
    const names = [...read('server/http/metrics.ts').matchAll(/name: '([a-z_]+)'/g)].map((match) => match[1]);
    const rows = tableRows(section(operations, 'Metrics, health and logs')).map((cells) => codeOf(cells[0]));
    expect(rows.filter(Boolean).sort()).toEqual(names.sort());
  });
});

// ---- links and names in every document ----------------------------------------------------------

const DOCUMENTS = [
  'README.md',
  'client/README.md',
  ...readdirSync(join(projectRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Inline links, images and reference definitions: their targets. */
function linkTargets(prose: string): string[] {
  const inline = [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
  const references = [...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm)];
  return [...inline, ...references].map((match) => match[1]!);
}

/** Paths in code spans that name a file or folder of the repository (not what a build makes). */
const REPOSITORY_PATH = /^(?:server|shared|client|tests|bench|migrations|docs|\.ci)\/[\w./-]*$/;
const BUILT = /(?:^|\/)dist\/|\.tgz$/;

describe.each(DOCUMENTS)('%s', (document) => {
  const markdown = parseMarkdown(read(document));
  const codeSpans = [...markdown.prose.join('\n').matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
  // Code spans go before links are looked for: a span may hold brackets that are not a link.
  const prose = markdown.prose.join('\n').replace(/`[^`\n]+`/g, '');

  it('links only to files of the repository, and to headings that exist', () => {
    const broken: string[] = [];
    for (const target of linkTargets(prose)) {
      if (/^[a-z][a-z\d+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(projectRoot, document) : resolve(projectRoot, dirname(document), decodeURI(path));
      const inside = relative(projectRoot, file);
      if (inside.startsWith('..') || isAbsolute(inside) || !existsSync(file)) broken.push(target);
      else if (anchor && file.endsWith('.md') && !anchorsOf(parseMarkdown(readFileSync(file, 'utf8'))).has(anchor)) {
        broken.push(target);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only repository paths that exist and npm scripts that exist', () => {
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: object }).scripts);
    const code = [...codeSpans, ...markdown.blocks.map((block) => block.body)].join('\n');
    const missingScripts = [...code.matchAll(/npm run (?:-s )?([\w:-]+)/g)]
      .map((match) => match[1]!)
      .filter((script) => !scripts.includes(script));
    const missingPaths = codeSpans
      .filter((span) => REPOSITORY_PATH.test(span) && !BUILT.test(span))
      .filter((span) => !existsSync(join(projectRoot, span)));
    expect({ missingScripts, missingPaths }).toEqual({ missingScripts: [], missingPaths: [] });
  });

  it('points nowhere outside the repository', () => {
    expect(read(document)).not.toContain('../shared');
  });
});
