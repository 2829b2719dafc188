/**
 * The client package as another project gets it: `npm pack`, then `npm install` of the tarball in
 * a fresh project outside this repository (with its declared peers, TypeScript, nothing else), a
 * file calling every procedure compiled with `strict` and `skipLibCheck: false` under the
 * `bundler` and `node16` module resolutions, and the installed package run in Node against the
 * service.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../server/routers/index.ts';
import { databaseTargets } from './support/databases.ts';
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
const role: 'owner' | 'admin' | 'member' = added.role;
const page = await api.members.page.query({ limit: 50, cursor: null }, { signal: AbortSignal.timeout(1000) });
const next: string | null = page.nextCursor;
console.log(names, role, next);

// @ts-expect-error: not a role
await api.members.add.mutate({ email: 'ann@example.com', role: 'boss' });
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

/** The settings of a new TypeScript project, but for the module resolution under test. */
const tsconfig = (module: 'esnext' | 'node16', moduleResolution: 'bundler' | 'node16') => ({
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    target: 'es2022',
    lib: ['es2022', 'dom', 'dom.iterable'],
    module,
    moduleResolution,
    // A frontend: no Node types.
    types: [],
    noEmit: true,
  },
  files: ['app.ts'],
});

describe('client package', () => {
  const server = useServer(databaseTargets().find((target) => target.name === 'embedded')!);
  let project: string;
  let packed: { filename: string; files: Array<{ path: string }> };

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'client-consumer-'));
    // `prepack` builds the package (client/build.ts).
    const pack = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: clientDir, env });
    packed = JSON.parse(pack.stdout)[0];
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
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
    expect(packed.files.map((file) => file.path).sort()).toEqual([
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/index.js.map',
      'package.json',
    ]);
    const installed = join(project, 'node_modules/@org-service/client');
    const javascript = readFileSync(join(installed, 'dist/index.js'), 'utf8');
    const declarations = readFileSync(join(installed, 'dist/index.d.ts'), 'utf8');
    // It imports only the packages it declares, in its code and in its types.
    const declared = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)];
    const imported = (text: string) =>
      [...text.matchAll(/(?:from\s+|import\(\s*)["']([^"']+)["']/g)].map((match) => match[1]!);
    for (const specifier of [...imported(javascript), ...imported(declarations)]) {
      expect(
        declared.some((name) => specifier === name || specifier.startsWith(`${name}/`)),
        specifier,
      ).toBe(true);
    }
    expect(manifest.peerDependencies).toEqual({
      '@trpc/client': expect.any(String),
      '@trpc/server': expect.any(String),
    });
    // None of the server's own code or dependencies came along.
    for (const serverOnly of ['fastify', 'zod', '@mikro-orm/core', 'kysely', 'trpc-to-openapi', 'pino']) {
      expect(existsSync(join(project, 'node_modules', serverOnly)), serverOnly).toBe(false);
    }
    const { sources } = JSON.parse(readFileSync(join(installed, 'dist/index.js.map'), 'utf8')) as { sources: string[] };
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) expect(source).toMatch(/^\.\.\/(src\/[\w-]+|\.\.\/shared\/(errors|limits))\.ts$/);
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
      const compile = await run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', dir], {
        cwd: project,
      }).catch((error: { stdout: string; stderr: string }) => error);
      expect(compile.stdout + compile.stderr).toBe('');
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
