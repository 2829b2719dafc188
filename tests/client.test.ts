/**
 * The typed client against a real server: inferred types, batching, typed errors, the README's
 * TanStack Query example (and its `retry`, on the 409 of a key still in use), and a frontend's
 * load (many calls at once, mixed answers, batches over the server's cap, cancelled calls) on each
 * database. The package as another project installs it:
 * tests/client-package.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { transformSync } from 'esbuild';
import mysql from 'mysql2/promise';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { toApiError } from '../client/src/errors.ts';
import {
  ApiError,
  createClient,
  isKeyInUse,
  LONE_INPUT_LENGTH,
  MAX_URL_LENGTH,
  type AppRouter,
  type RouterOutputs,
} from '../client/src/index.ts';
import type { ErrorCode } from '../shared/errors.ts';
import { MAX_BATCH_ITEMS, MAX_BODY_BYTES, MAX_HEADER_BYTES } from '../shared/limits.ts';
import { databaseTarget, describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { rejection } from './support/api-errors.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const root = join(import.meta.dirname, '..');
const embedded = databaseTarget('embedded');
/** The URL a `fetch` the client calls was given. */
const urlOf = (input: RequestInfo | URL) => (input instanceof Request ? input.url : input.toString());

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
    // Any role the organization has (behaviour §11): a name, not the built-in three.
    expectTypeOf(added.role).toEqualTypeOf<string>();
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
      // @ts-expect-error: a role is a name
      void api.members.add.mutate({ email: 'a@example.com', role: 42 });
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
    expectTypeOf(conflict.code).toEqualTypeOf<ErrorCode>();

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
        requests.push(urlOf(input));
        return fetch(input, init);
      },
    });
    const [me, organizations] = await Promise.all([api.users.me.query(), api.organizations.list.query()]);
    expect(me.id).toBe(ownerId);
    expect(organizations).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toContain('users.me,organizations.list');
  });

  // tsc over the server's sources: tens of seconds on a shared two-core machine.
  it('type-checks the TanStack Query example of client/README.md', { timeout: 180_000 }, () => {
    const readme = readFileSync(join(root, 'client/README.md'), 'utf8');
    const example = /## With TanStack Query[\s\S]*?```tsx\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain('useQuery');
    // Inside the project, so that its node_modules resolve: the package name is the workspace's,
    // which the web project's settings resolve to its sources (tsconfig.web.json).
    const dir = mkdtempSync(join(root, '.readme-example-'));
    try {
      writeFileSync(join(dir, 'example.tsx'), example!);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: '../tsconfig.web.json',
          // Checked once: no build information kept for the next run.
          compilerOptions: { incremental: false, tsBuildInfoFile: null },
          include: [],
          files: ['example.tsx'],
        }),
      );
      const check = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps every request it builds within the server limits', () => {
    // A POST batch of the longest batched inputs, with room for its braces and keys.
    expect(MAX_BATCH_ITEMS * LONE_INPUT_LENGTH + 1024).toBeLessThan(MAX_BODY_BYTES);
    // A GET batch's URL has room for its first input, and leaves room for the headers.
    expect(LONE_INPUT_LENGTH + 1024).toBeLessThan(MAX_URL_LENGTH);
    expect(MAX_URL_LENGTH).toBeLessThanOrEqual(MAX_HEADER_BYTES / 2);
  });
});

interface SentRequest {
  method: string;
  url: string;
  /** How many procedure calls the request carried. */
  calls: number;
  /** Its `organization_id` and `Idempotency-Key` headers. */
  organizationId: string | null;
  idempotencyKey: string | null;
}

/** The typed client as a page uses it, with every HTTP request it sends recorded. */
function recordingClient(baseUrl: string, token: string, organizationId?: string) {
  const requests: SentRequest[] = [];
  const api = createClient({
    url: baseUrl,
    token,
    organizationId,
    fetch: (input, init) => {
      const url = urlOf(input);
      const procedures = decodeURIComponent(new URL(url).pathname.slice('/trpc/'.length));
      const headers = new Headers(init?.headers);
      requests.push({
        method: init?.method ?? 'GET',
        url,
        calls: procedures.split(',').length,
        organizationId: headers.get('organization_id'),
        idempotencyKey: headers.get('idempotency-key'),
      });
      return fetch(input, init);
    },
  });
  return { api, requests };
}

/** The `retry` of client/README.md's TanStack Query example, as a page runs it. */
function readmeRetry(): (failures: number, error: unknown) => boolean {
  const readme = readFileSync(join(root, 'client/README.md'), 'utf8');
  const source = /^const retry = [\s\S]*?;$/m.exec(readme)?.[0];
  expect(source).toContain('failures');
  const { code } = transformSync(source!, { loader: 'ts' });
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the README's own code, run as written
  return new Function('ApiError', 'isKeyInUse', `${code}return retry;`)(ApiError, isKeyInUse);
}

async function settledError(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
}

describeOnEachDatabase("typed client under a frontend's load", (target) => {
  const server = useServer(target);
  /** A member whose id is 128 characters that each take two bytes in UTF-8 and six in a URL. */
  const longMemberId = 'ü'.repeat(128);
  let owner: TestUser;
  let organizationId: string;

  beforeAll(async () => {
    owner = await registerUser(server(), 'load-owner');
    organizationId = await createOrganization(server(), owner);
    const longToken = await tokenFor(longMemberId, { role: 'owner' });
    const email = `${uniqueId('long')}@example.com`;
    await createClient({ url: server().baseUrl, token: longToken }).users.create.mutate({
      first_name: 'Long',
      last_name: 'Id',
      email,
    });
    await addMember(server(), owner, organizationId, { id: longMemberId, email, token: longToken }, 'member');
  });

  it('answers 50 concurrent queries of mixed procedures, some with large inputs, each its own', async () => {
    const { api, requests } = recordingClient(server().baseUrl, owner.token, organizationId);
    const tooLongForAUrl = 'ü'.repeat(3000);
    const kinds = ['me', 'organizations', 'members', 'long member', 'page', 'too long'] as const;
    const calls = Array.from({ length: 50 }, (_, index) => kinds[index % kinds.length]!);
    const results = await Promise.all(
      calls.map((kind): Promise<unknown> => {
        switch (kind) {
          case 'me':
            return api.users.me.query().then((user) => user.id);
          case 'organizations':
            return api.organizations.list.query().then((organizations) => organizations.map((row) => row.id));
          case 'members':
            return api.members.list.query().then((rows) => rows.map((row) => row.user_id));
          case 'long member':
            return api.members.get.query({ user_id: longMemberId }).then((member) => member.user_id);
          case 'page':
            return api.members.page.query({ limit: 1, cursor: null }).then((page) => page.items.length);
          case 'too long':
            return settledError(api.members.get.query({ user_id: tooLongForAUrl }));
        }
      }),
    );
    results.forEach((result, index) => {
      const kind = calls[index]!;
      if (kind === 'me') expect(result).toBe(owner.id);
      if (kind === 'organizations') expect(result).toEqual([organizationId]);
      if (kind === 'members') expect(result).toEqual([owner.id, longMemberId]);
      if (kind === 'long member') expect(result).toBe(longMemberId);
      if (kind === 'page') expect(result).toBe(1);
      if (kind === 'too long') {
        // Too long for a URL: sent alone in a POST body, and refused by validation like any input.
        expect(result).toBeInstanceOf(ApiError);
        expect(result).toMatchObject({ status: 400, code: 'BAD_REQUEST', issues: [{ field: 'user_id' }] });
      }
    });
    const tooLongCount = calls.filter((kind) => kind === 'too long').length;
    expect(requests.filter((request) => request.method === 'POST')).toEqual(
      Array.from({ length: tooLongCount }, () => expect.objectContaining({ calls: 1 })),
    );
    for (const request of requests) {
      expect(request.calls).toBeLessThanOrEqual(MAX_BATCH_ITEMS);
      expect(request.url.length).toBeLessThanOrEqual(MAX_URL_LENGTH);
    }
    expect(requests.reduce((sum, request) => sum + request.calls, 0)).toBe(50);
    // Batched, not one request per call.
    expect(requests.length).toBeLessThan(50 - tooLongCount);
  });

  it('gives each call of a batch its own result or ApiError', async () => {
    const { api, requests } = recordingClient(server().baseUrl, owner.token, organizationId);
    const queries = await Promise.allSettled([
      api.users.me.query(),
      api.members.get.query({ user_id: 'nobody' }),
      api.members.get.query({ user_id: '' }),
      api.organizations.list.query(),
      api.members.page.query({ limit: 0 }),
    ]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.calls).toBe(5);
    const [me, missing, empty, organizations, badLimit] = queries;
    expect(me).toMatchObject({ status: 'fulfilled', value: { id: owner.id } });
    expect(organizations).toMatchObject({ status: 'fulfilled', value: [{ id: organizationId }] });
    for (const [result, status, field] of [
      [missing, 404, undefined],
      [empty, 400, 'user_id'],
      [badLimit, 400, 'limit'],
    ] as const) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(ApiError);
      expect(reason.status).toBe(status);
      if (field) expect(reason.issues).toEqual([{ field, problem: expect.any(String) }]);
    }

    const mutations = await Promise.allSettled([
      api.organizations.create.mutate({ organization_name: 'Batched', organization_description: '' }),
      api.members.changeRole.mutate({ user_id: owner.id, role: 'member' }),
      api.members.add.mutate({ email: 'nobody@example.com', role: 'member' }),
    ]);
    expect(requests).toHaveLength(2);
    expect(mutations[0]).toMatchObject({ status: 'fulfilled', value: { user_id: owner.id, role: 'owner' } });
    expect(mutations[1]).toMatchObject({ status: 'rejected', reason: { status: 409, code: 'CONFLICT' } });
    expect(mutations[2]).toMatchObject({ status: 'rejected', reason: { status: 404, code: 'NOT_FOUND' } });
  });

  it('splits a batch over the cap itself; a client that does not is refused with an ApiError', async () => {
    const { api, requests } = recordingClient(server().baseUrl, owner.token);
    const many = await Promise.all(Array.from({ length: 3 * MAX_BATCH_ITEMS + 1 }, () => api.users.me.query()));
    expect(many.every((user) => user.id === owner.id)).toBe(true);
    expect(requests.map((request) => request.calls)).toEqual([MAX_BATCH_ITEMS, MAX_BATCH_ITEMS, MAX_BATCH_ITEMS, 1]);

    // tRPC's client with no limits, as another frontend might build it.
    const unlimited = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: `${server().baseUrl}/trpc`, headers: { authorization: `Bearer ${owner.token}` } })],
    });
    const atCap = await Promise.all(Array.from({ length: MAX_BATCH_ITEMS }, () => unlimited.users.me.query()));
    expect(atCap).toHaveLength(MAX_BATCH_ITEMS);
    const overCap = await Promise.allSettled(
      Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => unlimited.users.me.query()),
    );
    for (const result of overCap) {
      expect(result.status).toBe('rejected');
      const error = toApiError((result as PromiseRejectedResult).reason);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: 'Batch call exceeds maximum size' });
    }
  });

  it('rejects an aborted call at once and still answers the rest of its batch', async () => {
    const { api } = recordingClient(server().baseUrl, owner.token, organizationId);
    const beforeSending = new AbortController();
    const aborted = api.users.me.query(undefined, { signal: beforeSending.signal });
    const others = [api.organizations.list.query(), api.members.list.query()] as const;
    beforeSending.abort();
    const error = await settledError(aborted);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as Error).message).toMatch(/abort/i);
    const [organizations, members] = await Promise.all(others);
    expect(organizations.map((organization) => organization.id)).toContain(organizationId);
    expect(members.map((member) => member.user_id)).toEqual([owner.id, longMemberId]);

    // Aborted in flight: the request is cut, the call rejects, and the service goes on.
    const inFlight = new AbortController();
    const cut = api.members.list.query(undefined, { signal: inFlight.signal });
    setTimeout(() => inFlight.abort(), 1);
    expect(await settledError(cut)).toBeInstanceOf(TRPCClientError);
    expect((await api.users.me.query()).id).toBe(owner.id);
  });

  it('turns errors no procedure raised into ApiErrors too: headers too large, body too large', async () => {
    const hugeToken = createClient({ url: server().baseUrl, token: 'x'.repeat(MAX_HEADER_BYTES + 1) });
    expect(await settledError(hugeToken.users.me.query())).toMatchObject({ status: 431, code: 'BAD_REQUEST' });
    const { api } = recordingClient(server().baseUrl, owner.token);
    const bigInput = api.users.update.mutate({ first_name: 'x'.repeat(MAX_BODY_BYTES) });
    const error = await settledError(bigInput);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('lets each call name its organization, one batch per organization', async () => {
    const other = await createOrganization(server(), owner);
    const member = await registerUser(server(), 'other-member');
    await addMember(server(), owner, other, member, 'admin');
    const { api, requests } = recordingClient(server().baseUrl, owner.token, organizationId);
    const [defaults, named, memberThere, sameAsDefault, missingHere] = await Promise.all([
      api.members.list.query(),
      api.members.list.query(undefined, { organizationId: other }),
      api.members.get.query({ user_id: member.id }, { organizationId: other }),
      api.members.list.query(undefined, { organizationId }),
      settledError(api.members.get.query({ user_id: member.id })),
    ]);
    expect(defaults.map((row) => row.user_id)).toEqual([owner.id, longMemberId]);
    expect(sameAsDefault).toEqual(defaults);
    expect(named.map((row) => row.user_id)).toEqual([owner.id, member.id]);
    expect(memberThere).toMatchObject({ user_id: member.id, role: 'admin' });
    expect(missingHere).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(
      requests.map(({ organizationId, calls }) => ({ organizationId, calls })).sort((a, b) => a.calls - b.calls),
    ).toEqual([
      { organizationId: other, calls: 2 },
      { organizationId, calls: 3 },
    ]);

    // A change names its organization too.
    await api.members.changeRole.mutate({ user_id: member.id, role: 'member' }, { organizationId: other });
    const asOwner = createClient({ url: server().baseUrl, token: owner.token, organizationId: other });
    expect((await asOwner.members.get.query({ user_id: member.id })).role).toBe('member');
  });

  // The embedded database runs one write at a time: no other session can hold a row there.
  if (target.name === 'mariadb')
    it("tells the 409 of a key still in use from the conflicts that are final, as the README's retry does", async () => {
      const retry = readmeRetry();
      const member = await registerUser(server(), 'in-use');
      const api = createClient({ url: server().baseUrl, token: owner.token, organizationId });
      const idempotencyKey = uniqueId('key');
      const add = () => api.members.add.mutate({ email: member.email, role: 'member' }, { idempotencyKey });
      // Another session holds the organization's row, so a request with the key waits inside its change.
      const blocker = await mysql.createConnection({ uri: server().databaseUrl.replace(/^mariadb:/, 'mysql:') });
      try {
        await blocker.query('begin');
        await blocker.query('select id from organizations where id = ? for update', [organizationId]);
        const attempts = [add(), add()];
        // The one that reaches the service second is answered at once; the other waits for the row.
        const inUse = await Promise.race(
          attempts.map((attempt) =>
            attempt.then(
              () => undefined,
              (error: unknown) => error,
            ),
          ),
        );
        expect(inUse).toMatchObject({ status: 409, code: 'CONFLICT' });
        expect(isKeyInUse(inUse)).toBe(true);
        expect(retry(0, inUse)).toBe(true);
        expect(retry(3, inUse)).toBe(false);
        await blocker.query('rollback');
        const settled = await Promise.allSettled(attempts);
        expect(settled.map((attempt) => attempt.status).sort()).toEqual(['fulfilled', 'rejected']);
      } finally {
        await blocker.end();
      }
      // Asked again, the key gets the first request's answer.
      expect(await add()).toEqual({ organization_id: organizationId, user_id: member.id, role: 'member' });
      // A conflict that is the service's answer is final: the member is one already.
      const already = await settledError(api.members.add.mutate({ email: member.email, role: 'member' }));
      expect(already).toMatchObject({ status: 409, code: 'CONFLICT' });
      expect(isKeyInUse(already)).toBe(false);
      expect(retry(0, already)).toBe(false);
    });

  it('sends an Idempotency-Key per change, alone in its request: the same key twice changes once', async () => {
    const member = await registerUser(server(), 'keyed');
    const { api, requests } = recordingClient(server().baseUrl, owner.token, organizationId);
    const idempotencyKey = uniqueId('key');
    const replays: string[] = [];
    const add = (label: string) =>
      api.members.add.mutate(
        { email: member.email, role: 'member' },
        { idempotencyKey, onReplay: () => replays.push(label) },
      );
    const first = await add('first');
    const again = await add('again');
    expect(first).toEqual({ organization_id: organizationId, user_id: member.id, role: 'member' });
    expect(again).toEqual(first);
    expect(replays).toEqual(['again']);
    expect(requests).toEqual([
      expect.objectContaining({ method: 'POST', calls: 1, idempotencyKey, organizationId }),
      expect.objectContaining({ method: 'POST', calls: 1, idempotencyKey, organizationId }),
    ]);
    // One change: one member.added event, and the member once in the list.
    const events = await api.events.page.query({ organization_id: organizationId, type: 'member.added' });
    expect(events.items.filter((event) => event.subject_user_id === member.id)).toHaveLength(1);
    expect((await api.members.list.query()).filter((row) => row.user_id === member.id)).toHaveLength(1);

    // The same key for another change: 422, nothing changed.
    const reused = await settledError(
      api.members.changeRole.mutate({ user_id: member.id, role: 'admin' }, { idempotencyKey }),
    );
    expect(reused).toBeInstanceOf(ApiError);
    expect(reused).toMatchObject({ status: 422, code: 'UNPROCESSABLE_CONTENT' });
    expect((await api.members.get.query({ user_id: member.id })).role).toBe('member');

    // Keyed changes made together still go one per request, each with its own key; the rest batch.
    requests.length = 0;
    const keys = [uniqueId('key'), uniqueId('key')];
    const [promoted, removed, me, listed] = await Promise.all([
      api.members.changeRole.mutate({ user_id: member.id, role: 'admin' }, { idempotencyKey: keys[0] }),
      api.members.changeRole.mutate({ user_id: longMemberId, role: 'admin' }, { idempotencyKey: keys[1] }),
      api.users.me.query(),
      api.organizations.list.query(),
    ]);
    expect([promoted, removed]).toEqual([{ message: 'Role updated' }, { message: 'Role updated' }]);
    expect(me.id).toBe(owner.id);
    expect(listed.map((organization) => organization.id)).toContain(organizationId);
    const keyed = requests.filter((request) => request.idempotencyKey !== null);
    expect(keyed.map((request) => [request.calls, request.idempotencyKey]).sort()).toEqual(
      keys.map((key) => [1, key]).sort(),
    );
    expect(requests.filter((request) => request.idempotencyKey === null)).toEqual([
      expect.objectContaining({ calls: 2 }),
    ]);
  });
});
