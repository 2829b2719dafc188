/**
 * The client package as another project gets it, and what client/README.md says that project
 * needs: `npm pack`, then a fresh project outside this repository made with the README's commands
 * (`npm init -y`, and what it must set), the tarball installed in it (with its declared peers,
 * TypeScript, nothing else); the README's `app.ts` checked with the README's `tsconfig.json`, no
 * `@types` package in the compile, and run in Node against the service, printing what the README
 * says; a file calling every procedure compiled with the same settings under the `bundler` and
 * `node16` module resolutions; the README's React host compiled as TypeScript 7 checks it; and a
 * declaration behind every entry of the export map.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../server/modules/router.ts';
import { databaseTarget } from './support/databases.ts';
import { codeBlock, parseMarkdown } from './support/markdown.ts';
import { projectRoot } from './support/process.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const run = promisify(execFile);
const clientDir = join(projectRoot, 'client');
const manifest = JSON.parse(readFileSync(join(clientDir, 'package.json'), 'utf8'));
const typescriptVersion = JSON.parse(readFileSync(join(projectRoot, 'node_modules/typescript/package.json'), 'utf8'))
  .version as string;
/** npm and the build script run on the project's Node, as `npm test` runs them. */
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };

/** What client/README.md tells a new project to run, to write and what that prints. */
const readme = parseMarkdown(readFileSync(join(clientDir, 'README.md'), 'utf8'));
const readmeProject = {
  /** The commands that make the project: `npm init -y`, and the package.json setting it needs. */
  commands: () => codeBlock(readme, 'sh new-project'),
  tsconfig: () => codeBlock(readme, 'json tsconfig.json'),
  compilerOptions: () => (JSON.parse(readmeProject.tsconfig()) as { compilerOptions: object }).compilerOptions,
  app: () => codeBlock(readme, 'ts app.ts'),
  prints: () => codeBlock(readme, 'text app.ts prints'),
  /** The React host of the README's "React components". */
  host: () => codeBlock(readme, 'tsx host.tsx'),
};

/** The versions the repository itself installs, so that npm finds them in its cache. */
const installedVersion = (name: string) =>
  JSON.parse(readFileSync(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8')).version as string;

/** Renders two of the components on the server, as a host's tests or server rendering would. */
const renderSource = `
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MembersTable, OrganizationSwitcher, OrgServiceProvider } from '@org-service/client/react';
import { renderToString } from 'react-dom/server';

console.log(
  renderToString(
    <QueryClientProvider client={new QueryClient()}>
      <OrgServiceProvider url="http://127.0.0.1:9" token="not used: nothing is fetched while rendering">
        <OrganizationSwitcher value={undefined} onChange={(id) => console.log(id)} />
        <MembersTable organizationId="0190a0c4-0000-7000-8000-000000000000" />
      </OrgServiceProvider>
    </QueryClientProvider>,
  ),
);
`;
/** What the README's app.ts calls and authenticates with, for the reader to replace. */
const README_URL = "'http://127.0.0.1:3000'";
const README_TOKEN = "'PASTE-TOKEN-HERE'";

/** Every procedure of the server's router by its dotted path, with its kind. */
const procedures = Object.entries(
  appRouter._def.procedures as object as Record<string, { _def: { type: string } }>,
).map(([path, procedure]) => ({ path, type: procedure._def.type }));

/**
 * A call of each procedure with an input of its declared type, its answer assigned to the declared
 * output type: the published types reach every procedure.
 */
function everyProcedureCall({ path, type }: { path: string; type: string }, index: number): string {
  const types = path
    .split('.')
    .map((part) => `[${JSON.stringify(part)}]`)
    .join('');
  const input = `input${index}`;
  const declareInput = `declare const ${input}: RouterInputs${types};`;
  if (type === 'subscription') {
    return `${declareInput}\napi.${path}.subscribe(${input}, { onData: ({ id, data }) => console.log(id, data) }).unsubscribe();`;
  }
  const method = type === 'query' ? 'query' : 'mutate';
  return `${declareInput}\nexport const output${index}: RouterOutputs${types} = await api.${path}.${method}(${input});`;
}

/** What a frontend writes: real inputs, the per-call options, an ApiError read. */
const handWritten = `
import { ApiError, createClient, type ErrorCode, type RouterInputs, type RouterOutputs } from '@org-service/client';

const api = createClient({ url: 'http://127.0.0.1:3000', token: async () => 'a token', organizationId: 'org-a' });

const me = await api.users.me.query();
const names: string = \`\${me.first_name} \${me.last_name}\`;
const added = await api.members.add.mutate(
  { email: 'ann@example.com', role: 'member' },
  { organizationId: 'org-b', idempotencyKey: crypto.randomUUID(), onReplay: () => console.log('replayed') },
);
const role: string = added.role;
const page = await api.members.page.query({ limit: 50, cursor: null }, { signal: AbortSignal.timeout(1000) });
const next: string | null = page.nextCursor;
console.log(names, role, next);

// @ts-expect-error: a role is a name
await api.members.add.mutate({ email: 'ann@example.com', role: 42 });
// @ts-expect-error: misspelt option
await api.members.list.query(undefined, { organisationId: 'org-b' });
// @ts-expect-error: an idempotency key is for changes only
await api.members.list.query(undefined, { idempotencyKey: 'key' });

try {
  await api.members.remove.mutate({ user_id: 'bob' });
} catch (error) {
  if (error instanceof ApiError) {
    const code: ErrorCode = error.code;
    const status: number = error.status;
    const fields: string[] = (error.issues ?? []).map((issue) => issue.field);
    const path: string | undefined = error.path;
    console.log(code, status, fields, path, error.message);
  }
}
`;

const consumerSource = () =>
  [handWritten, ...procedures.map((procedure, index) => everyProcedureCall(procedure, index))].join('\n');

/** The README's tsconfig.json, but for the module resolution under test. */
const tsconfig = (module: 'esnext' | 'node16', moduleResolution: 'bundler' | 'node16') => ({
  compilerOptions: { ...readmeProject.compilerOptions(), module, moduleResolution },
  files: ['app.ts'],
});

describe('client package', () => {
  const server = useServer(databaseTarget('embedded'));
  let project: string;
  let packed: { filename: string; files: Array<{ path: string }> };

  /** `tsc` of the project on `args`: what it prints (nothing when the program compiles). */
  const tsc = async (...args: string[]) => {
    const compile = await run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), ...args], {
      cwd: project,
    }).catch((error: { stdout: string; stderr: string }) => error);
    return compile.stdout + compile.stderr;
  };

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'client-consumer-'));
    await run('bash', ['-euo', 'pipefail', '-c', readmeProject.commands()], { cwd: project, env });
    // `prepack` builds the package (client/build.ts).
    const pack = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: clientDir, env });
    packed = JSON.parse(pack.stdout)[0];
    // From npm's cache where it can (the repository's own install filled it); the peers come along.
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        join(project, packed.filename),
        `typescript@${typescriptVersion}`,
      ],
      { cwd: project, env },
    );
  }, 180_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('holds the bundled client, its declarations and README, and no server code', () => {
    const files = packed.files.map((file) => file.path).sort();
    const chunks = files.filter((path) => /^dist\/chunk-\w+\.js(\.map)?$/.test(path));
    expect(chunks).toHaveLength(2);
    expect(files.filter((path) => !chunks.includes(path))).toEqual([
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/index.js.map',
      'dist/react.css',
      'dist/react.css.d.ts',
      'dist/react.d.ts',
      'dist/react.js',
      'dist/react.js.map',
      'package.json',
    ]);
    const installed = join(project, 'node_modules/@org-service/client');
    const read = (paths: string[]) => paths.map((path) => readFileSync(join(installed, path), 'utf8')).join('\n');
    const javascript = read(files.filter((path) => path.endsWith('.js')));
    const declarations = read(files.filter((path) => path.endsWith('.d.ts')));
    // It imports only the packages it declares, in its code and in its types.
    const declared = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)];
    const imported = (text: string) =>
      [...text.matchAll(/(?:from\s+|import\(\s*)["']([^"']+)["']/g)].map((match) => match[1]!);
    for (const specifier of [...imported(javascript), ...imported(declarations)]) {
      // The entries' shared chunk is the one file of its own that the package imports.
      if (/^\.\/chunk-\w+\.js$/.test(specifier)) continue;
      expect(
        declared.some((name) => specifier === name || specifier.startsWith(`${name}/`)),
        specifier,
      ).toBe(true);
    }
    expect(manifest.peerDependencies).toEqual({
      '@trpc/client': expect.any(String),
      '@trpc/server': expect.any(String),
      '@tanstack/react-query': expect.any(String),
      react: expect.any(String),
    });
    // The React peers only for the `react` entry: a project without React installs neither.
    expect(manifest.peerDependenciesMeta).toEqual({
      '@tanstack/react-query': { optional: true },
      react: { optional: true },
    });
    expect(existsSync(join(project, 'node_modules/react'))).toBe(false);
    // None of the server's own code or dependencies came along.
    for (const serverOnly of ['fastify', 'zod', '@mikro-orm/core', 'kysely', 'trpc-to-openapi', 'pino']) {
      expect(existsSync(join(project, 'node_modules', serverOnly)), serverOnly).toBe(false);
    }
    // Bundled: the client's sources, three zod-free shared files, and @trpc/tanstack-react-query
    // (client/build.ts says why), nothing else.
    const sources = files
      .filter((path) => path.endsWith('.js.map'))
      .flatMap((path) => (JSON.parse(readFileSync(join(installed, path), 'utf8')) as { sources: string[] }).sources);
    expect(sources.length).toBeGreaterThan(20);
    for (const source of sources) {
      expect(source).toMatch(
        /^\.\.\/(src\/(react\/([\w-]+\/)?)?[\w-]+\.tsx?|\.\.\/shared\/(errors|limits|event-types)\.ts|\.\.\/node_modules\/@trpc\/tanstack-react-query\/src\/[\w/-]+\.tsx?)$/,
      );
    }
  });

  it('declares the types of every entry of its export map, each a declaration file it holds', () => {
    const files = packed.files.map((file) => file.path);
    const entries = Object.entries(manifest.exports as Record<string, Record<string, string>>);
    expect(entries.map(([entry]) => entry)).toEqual(['.', './react', './react/styles.css']);
    for (const [entry, conditions] of entries) {
      // Before the condition that matches everything, which TypeScript would take otherwise.
      const types = Object.keys(conditions).indexOf('types');
      expect(types, entry).toBeGreaterThanOrEqual(0);
      expect(types, entry).toBeLessThan(Object.keys(conditions).indexOf(conditions.import ? 'import' : 'default'));
      expect(conditions.types, entry).toMatch(/\.d\.ts$/);
      expect(files, entry).toContain(conditions.types!.replace(/^\.\//, ''));
    }
  });

  it.each([
    ['bundler', 'esnext'],
    ['node16', 'node16'],
  ] as const)(
    'type-checks a call of every procedure with moduleResolution %s, strict and skipLibCheck off',
    { timeout: 120_000 },
    async (moduleResolution, module) => {
      const dir = mkdtempSync(join(project, `${moduleResolution}-`));
      writeFileSync(join(dir, 'app.ts'), consumerSource());
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig(module, moduleResolution)));
      expect(await tsc('-p', dir)).toBe('');
    },
  );

  it(
    "type-checks the README's app.ts with the README's tsconfig.json, strict, without any @types package",
    { timeout: 120_000 },
    async () => {
      // The README says that `strict` and checking the declarations work: its settings may not hide either.
      expect(readmeProject.compilerOptions()).toMatchObject({ strict: true });
      expect(readmeProject.compilerOptions()).not.toHaveProperty('skipLibCheck');
      const dir = join(project, 'readme-app');
      mkdirSync(dir);
      writeFileSync(join(dir, 'tsconfig.json'), readmeProject.tsconfig());
      writeFileSync(join(dir, 'app.ts'), readmeProject.app());
      expect(await tsc('-p', dir)).toBe('');
      const compiled = (await tsc('-p', dir, '--listFilesOnly')).split('\n');
      expect(compiled).toContainEqual(expect.stringContaining('/node_modules/@org-service/client/dist/index.d.ts'));
      expect(compiled.filter((file) => file.includes('/node_modules/@types/'))).toEqual([]);
    },
  );

  it(
    "runs the README's app.ts in Node against the service, printing what the README says",
    { timeout: 30_000 },
    async () => {
      const app = readmeProject.app();
      // The reader's own service and token in place of the README's.
      expect(app.split(README_URL)).toHaveLength(2);
      expect(app.split(README_TOKEN)).toHaveLength(2);
      const dir = join(project, 'readme-run');
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'app.ts'),
        app
          .replace(README_URL, JSON.stringify(server().baseUrl))
          .replace(README_TOKEN, JSON.stringify(await tokenFor('ada', { role: 'owner' }))),
      );
      // Node runs a .ts file as it is: it strips the types.
      const ran = await run(process.execPath, ['app.ts'], { cwd: dir, env, timeout: 20_000 });
      expect(ran.stdout.trim()).toBe(readmeProject.prints().trim());
    },
  );

  it(
    "type-checks the README's React host with the tarball and its React peers, and renders two components",
    { timeout: 180_000 },
    async () => {
      const host = join(project, 'react-host');
      mkdirSync(host);
      await run('bash', ['-euo', 'pipefail', '-c', readmeProject.commands()], { cwd: host, env });
      await run(
        'npm',
        [
          'install',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          '--ignore-scripts',
          join(project, packed.filename),
          ...['react', 'react-dom', '@tanstack/react-query', '@types/react', '@types/react-dom', 'typescript'].map(
            (name) => `${name}@${installedVersion(name)}`,
          ),
        ],
        { cwd: host, env },
      );
      writeFileSync(join(host, 'host.tsx'), readmeProject.host());
      writeFileSync(join(host, 'render.tsx'), renderSource);
      writeFileSync(
        join(host, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            ...readmeProject.compilerOptions(),
            jsx: 'react-jsx',
            // What `npm install typescript` gives today, TypeScript 7, does by default: the host's
            // import of the styles must resolve to declarations (TS2882 otherwise).
            noUncheckedSideEffectImports: true,
            noEmit: false,
            outDir: 'out',
          },
          files: ['host.tsx', 'render.tsx'],
        }),
      );
      const compile = await run(process.execPath, [join(host, 'node_modules/typescript/bin/tsc'), '-p', host], {
        cwd: host,
      }).catch((error: { stdout: string; stderr: string }) => error);
      expect(compile.stdout + compile.stderr).toBe('');
      const rendered = await run(process.execPath, [join(host, 'out/render.js')], { cwd: host, env, timeout: 20_000 });
      // Each component in its loading state, announced, until the service answers.
      expect(rendered.stdout).toContain('Loading organizations');
      expect(rendered.stdout.match(/class="osc-busy" role="status"/g)).toHaveLength(2);
    },
  );

  it('covers every procedure of the router in that file', () => {
    const source = consumerSource();
    expect(procedures.length).toBeGreaterThan(20);
    for (const { path, type } of procedures) {
      const method = type === 'query' ? 'query' : type === 'mutation' ? 'mutate' : 'subscribe';
      expect(source).toContain(`api.${path}.${method}(`);
    }
  });

  it('runs from the installed package in Node, answering with data and ApiErrors', { timeout: 30_000 }, async () => {
    const script = `
      import { ApiError, createClient } from '@org-service/client';
      const api = createClient({ url: process.env.URL, token: process.env.TOKEN });
      await api.users.create.mutate({ first_name: 'Pack', last_name: 'Age', email: process.env.EMAIL });
      const me = await api.users.me.query();
      const error = await api.members.list.query().catch((e) => e);
      console.log(JSON.stringify({ id: me.id, isApiError: error instanceof ApiError, code: error.code, status: error.status }));
    `;
    writeFileSync(join(project, 'smoke.js'), script);
    const userId = `packed-${Date.now()}`;
    const smoke = await run(process.execPath, ['smoke.js'], {
      cwd: project,
      env: {
        ...env,
        URL: server().baseUrl,
        TOKEN: await tokenFor(userId, { role: 'owner' }),
        EMAIL: `${userId}@example.com`,
      },
      timeout: 20_000,
    });
    expect(JSON.parse(smoke.stdout)).toEqual({ id: userId, isApiError: true, code: 'BAD_REQUEST', status: 400 });
  });
});
