/** The typed client against a real server: inferred types, batching, typed errors, and the built package. */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError, createClient, type RouterOutputs } from '../client/src/index.ts';
import { databaseTargets } from './support/databases.ts';
import { uniqueId } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const root = join(import.meta.dirname, '..');
const embedded = databaseTargets().find((target) => target.name === 'embedded')!;

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('typed client', () => {
  const server = useServer(embedded);
  const ownerId = uniqueId('client-owner');
  const memberId = uniqueId('client-member');
  let organizationId: string;

  beforeAll(async () => {
    let tokenCalls = 0;
    const owner = createClient({
      url: server().baseUrl,
      token: () => {
        tokenCalls++;
        return tokenFor(ownerId, { role: 'owner' });
      },
    });
    await owner.users.create.mutate({ first_name: 'Olive', last_name: 'Owner', email: `${ownerId}@example.com` });
    const member = createClient({ url: server().baseUrl, token: await tokenFor(memberId, { role: 'admin' }) });
    await member.users.create.mutate({ first_name: 'Milo', last_name: 'Member', email: `${memberId}@example.com` });
    organizationId = (
      await owner.organizations.create.mutate({ organization_name: 'Typed', organization_description: '' })
    ).organization_id;
    expect(tokenCalls).toBe(2);
  });

  const ownerClient = async () =>
    createClient({ url: server().baseUrl, token: await tokenFor(ownerId, { role: 'owner' }), organizationId });

  it('calls every kind of procedure with inferred inputs and outputs', async () => {
    const api = await ownerClient();
    const me = await api.users.me.query();
    expectTypeOf(me).toEqualTypeOf<RouterOutputs['users']['me']>();
    expectTypeOf(me.created_at).toBeString();
    expect(me.id).toBe(ownerId);

    const added = await api.members.add.mutate({ email: `${memberId}@example.com`, role: 'member' });
    expectTypeOf(added.role).toEqualTypeOf<'owner' | 'admin' | 'member'>();
    expect(added).toEqual({ organization_id: organizationId, user_id: memberId, role: 'member' });

    await api.members.changeRole.mutate({ user_id: memberId, role: 'admin' });
    expect((await api.members.get.query({ user_id: memberId })).role).toBe('admin');
    const page = await api.members.page.query({ limit: 1 });
    expect(page.items).toHaveLength(1);
    expect(page.nextCursor).toEqual(expect.any(String));
    const rest = await api.members.page.query({ limit: 10, cursor: page.nextCursor });
    expect([...page.items, ...rest.items].map((row) => row.user_id)).toEqual(
      (await api.members.list.query()).map((row) => row.user_id),
    );
    await api.members.remove.mutate({ user_id: memberId });
    expect((await api.organizations.list.query()).map((organization) => organization.id)).toEqual([organizationId]);
  });

  it('rejects wrong input types at compile time', async () => {
    const api = await ownerClient();
    const compileOnly = () => {
      // @ts-expect-error: role must be owner, admin or member
      void api.members.add.mutate({ email: 'a@example.com', role: 'boss' });
      // @ts-expect-error: user_id is required
      void api.members.remove.mutate({});
      // @ts-expect-error: no such procedure
      void api.members.purge.mutate();
    };
    expect(compileOnly).toBeTypeOf('function');
  });

  it('rejects with ApiError carrying the status and the contract code', async () => {
    const api = await ownerClient();
    const conflict = await rejection(api.members.changeRole.mutate({ user_id: ownerId, role: 'member' }));
    expect(conflict).toMatchObject({ status: 409, code: 'CONFLICT', path: 'members.changeRole' });
    expectTypeOf(conflict.code).toEqualTypeOf<import('../shared/errors.ts').ErrorCode>();

    const notFound = await rejection(api.members.get.query({ user_id: 'nobody' }));
    expect(notFound).toMatchObject({ status: 404, code: 'NOT_FOUND' });

    const invalid = await rejection(api.users.update.mutate({ first_name: '' }));
    expect(invalid).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(invalid.issues).toEqual([{ field: 'first_name', problem: expect.any(String) }]);

    const stranger = createClient({
      url: server().baseUrl,
      token: await tokenFor(uniqueId('stranger')),
      organizationId,
    });
    expect(await rejection(stranger.members.list.query())).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const anonymous = createClient({ url: server().baseUrl, token: 'not-a-token' });
    expect(await rejection(anonymous.users.me.query())).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('batches calls made together into one HTTP request', async () => {
    const requests: string[] = [];
    const api = createClient({
      url: server().baseUrl,
      token: await tokenFor(ownerId),
      organizationId,
      fetch: (input, init) => {
        requests.push(String(input));
        return fetch(input, init);
      },
    });
    const [me, organizations] = await Promise.all([api.users.me.query(), api.organizations.list.query()]);
    expect(me.id).toBe(ownerId);
    expect(organizations).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toContain('users.me,organizations.list');
  });

  it('works as the built ESM package from plain JavaScript', async () => {
    const build = spawnSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'client/tsconfig.json'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(build.status, build.stdout + build.stderr).toBe(0);
    const script = `
      const { createClient, ApiError } = await import(${JSON.stringify(join(root, 'client/dist/client/src/index.js'))});
      const api = createClient({ url: process.env.URL, token: process.env.TOKEN });
      const me = await api.users.me.query();
      const error = await api.members.list.query().catch((e) => e);
      console.log(JSON.stringify({ id: me.id, isApiError: error instanceof ApiError, code: error.code, status: error.status }));
    `;
    // Asynchronous: the server answering the script runs in this very process.
    const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, URL: server().baseUrl, TOKEN: await tokenFor(ownerId) },
      timeout: 20_000,
    });
    expect(JSON.parse(run.stdout)).toEqual({ id: ownerId, isApiError: true, code: 'BAD_REQUEST', status: 400 });
  });
});
