/**
 * The OpenAPI document against the REST layer: a client generated from it (openapi-typescript types,
 * openapi-fetch calls) drives every documented operation, and each answer must be a documented one.
 * Its patterns compile in other tools' engines too (RE2), and say of names and e-mail addresses
 * what the service does.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import createFetchClient, { type Middleware } from 'openapi-fetch';
import { RE2JS } from 're2js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { paths } from './generated/rest-api.ts';
import { databaseTarget, describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { REST_TYPES_FILE, renderRestTypes } from './support/rest-types.ts';
import { isAliased } from '../server/http/api-alias.ts';
import { useServer } from './support/server.ts';
import { addressWithLabels, paddedName } from './support/text-samples.ts';
import { tokenFor } from './support/tokens.ts';

const embedded = databaseTarget('embedded');

type Document = {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<string, unknown>;
        parameters?: unknown[];
        requestBody?: { content: { 'application/json': { schema: { properties: Record<string, object> } } } };
      }
    >
  >;
};

/**
 * The document as the snapshot keeps it: JSON in which white space other than ASCII's and invisible
 * (default-ignorable) characters are written as `\uXXXX` escapes (the same JSON; a character
 * beyond U+FFFF as its two surrogates), so that a review sees them.
 */
const reviewable = (document: Document) =>
  `${JSON.stringify(document, null, 2)}\n`.replace(
    /(?!\p{ASCII})[\p{White_Space}\p{Default_Ignorable_Code_Point}]/gu,
    (character) =>
      [...Array(character.length).keys()]
        .map((index) => `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`)
        .join(''),
  );

/** Every `pattern` anywhere in the document. */
function patternsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) patternsIn(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      else patternsIn(value, found);
    }
  }
  return found;
}

/** Any text of up to 12 code points (no lone surrogates: see below). */
const wellFormedText = fc.string({ unit: 'binary', maxLength: 12 }).filter((text) => text.isWellFormed());

/** Strings that the document's patterns match and do not: names, e-mail addresses, ids, any text. */
const patternSamples = fc.oneof(
  paddedName.map((name) => name.sent),
  addressWithLabels(() => 'x').map((sample) => sample.address),
  fc.emailAddress(),
  fc.uuid(),
  wellFormedText,
);

describe('OpenAPI document', () => {
  // Webhooks to a loopback port nobody listens on: each attempt fails at once, and no traffic leaves the machine.
  const server = useServer(embedded, { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  let document: Document;

  beforeAll(async () => {
    document = (await server().call('GET', '/openapi.json')).body;
  });

  it('is kept as a snapshot, so every change to it shows in review', async () => {
    await expect(reviewable(document)).toMatchFileSnapshot('./__snapshots__/openapi.json');
  });

  it('describes each error status as what it means, the same in every operation', () => {
    const descriptions = new Map<string, Set<string>>();
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const described = descriptions.get(status) ?? new Set<string>();
          described.add((response as { description: string }).description);
          descriptions.set(status, described);
        }
      }
    }
    const only = (status: string) => {
      expect([...(descriptions.get(status) ?? [])], status).toHaveLength(1);
      return [...descriptions.get(status)!][0];
    };
    expect(only('410')).toMatch(/invitation/i);
    expect(only('414')).toMatch(/URL/);
    expect(only('431')).toMatch(/header/i);
    expect(only('500')).toMatch(/fail|bug/i);
    const errorStatuses = [...descriptions.keys()].filter((status) => Number(status) >= 400);
    expect(new Set(errorStatuses.map(only)).size).toBe(errorStatuses.length);
  });

  it('declares an optional body not required, and a body needing one of its optional fields so (anyOf)', () => {
    type Body = { required: boolean; content: { 'application/json': { schema: { anyOf?: unknown } } } };
    const bodyOf = (path: string, method: 'post' | 'put') =>
      document.paths[path]![method]!.requestBody as unknown as Body;
    const approval = bodyOf('/organizations/{organization_id}/join-requests/{request_id}/approve', 'post');
    expect(approval.required).toBe(false);
    expect(approval.content['application/json'].schema.anyOf).toBeUndefined();
    const profile = bodyOf('/users', 'put');
    expect(profile.required).toBe(true);
    expect(profile.content['application/json'].schema.anyOf).toEqual([
      { required: ['first_name'] },
      { required: ['last_name'] },
    ]);
  });

  it("declares 403 on every operation that takes a token: a key is refused on a person's own (behaviour §16)", () => {
    const undeclared = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => '401' in operation.responses && !('403' in operation.responses))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('declares on every change the Idempotency-Key header and what it and a body sent can answer: 409, 413, 415, 422', () => {
    const changes = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'get')
        .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
    );
    expect(changes.length).toBeGreaterThan(40);
    const lacking = changes
      .map(({ name, operation }) => {
        const headers = ((operation.parameters ?? []) as Array<{ in: string; name: string }>)
          .filter((parameter) => parameter.in === 'header')
          .map((parameter) => parameter.name);
        const missing = [
          ...['409', '413', '415', '422'].filter((status) => !(status in operation.responses)),
          ...(headers.includes('Idempotency-Key') ? [] : ['Idempotency-Key']),
        ];
        return missing.length > 0 ? `${name}: ${missing.join(', ')}` : undefined;
      })
      .filter((line) => line !== undefined);
    expect(lacking).toEqual([]);
  });

  it('lists each operation once, at its own path, with /api as the second server of those served there too', () => {
    const info = (document as unknown as { info: { description: string } }).info;
    expect(info.description).toMatch(/\/api/);
    expect(info.description).not.toMatch(/roles \(owner, admin, member\)/);
    for (const [path, item] of Object.entries(document.paths)) {
      expect(path).not.toMatch(/^\/api\//);
      for (const [method, operation] of Object.entries(item)) {
        const servers = (operation as { servers?: Array<{ url: string }> }).servers?.map((server) => server.url);
        expect(servers, `${method} ${path}`).toEqual(isAliased(path) ? ['/', '/api'] : undefined);
      }
    }
    const deletion = document.paths['/organizations/{organization_id}']?.delete as unknown as { summary: string };
    expect(deletion.summary).toMatch(/teams/);
    expect(deletion.summary).toMatch(/webhook/);
  });

  it('has only patterns that RE2 compiles and reads as ECMAScript does', () => {
    const patterns = patternsIn(document);
    expect(patterns.size).toBeGreaterThan(3);
    for (const pattern of patterns) {
      const re2 = RE2JS.compile(pattern); // throws where RE2 refuses the pattern
      const ecmascript = new RegExp(pattern, 'u'); // as JSON Schema validators such as ajv compile it
      fc.assert(
        fc.property(patternSamples, (text) => {
          expect(re2.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(ecmascript.test(text));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('matches the committed generated types (run npm run openapi:types after a change)', async () => {
    expect(readFileSync(REST_TYPES_FILE, 'utf8')).toBe(await renderRestTypes());
  });

  it('drives every documented operation through openapi-fetch, each answering a documented status', async () => {
    const answered = new Set<string>();
    const undocumented: string[] = [];
    const recordAnswers: Middleware = {
      onResponse({ schemaPath, request, response }) {
        const operation = `${request.method.toLowerCase()} ${schemaPath}`;
        answered.add(operation);
        const documented = document.paths[schemaPath]?.[request.method.toLowerCase()]?.responses ?? {};
        if (!(String(response.status) in documented)) undocumented.push(`${operation} → ${response.status}`);
      },
    };
    // A client of the /api alias too: the same document, the operation's second server.
    const clientFor = async (sub: string, role?: string, base: '' | '/api' = '') => {
      const client = createFetchClient<paths>({
        baseUrl: `${server().baseUrl}${base}`,
        headers: { authorization: `Bearer ${await tokenFor(sub, role ? { role } : {})}` },
      });
      client.use(recordAnswers);
      return client;
    };

    const ownerId = uniqueId('doc-owner');
    const memberId = uniqueId('doc-member');
    const owner = await clientFor(ownerId, 'owner');
    const member = await clientFor(memberId, 'admin');
    const ownerApi = await clientFor(ownerId, 'owner', '/api');
    const memberApi = await clientFor(memberId, 'admin', '/api');

    const created = await ownerApi.POST('/users', {
      body: { first_name: 'Doc', last_name: 'Owner', email: `${ownerId}@example.com` },
    });
    expect(created.response.status).toBe(201);
    expect(created.data?.success).toBe(true);
    expect(
      (
        await member.POST('/users', {
          body: { first_name: 'Doc', last_name: 'Member', email: `${memberId}@example.com` },
        })
      ).response.status,
    ).toBe(201);
    expect((await owner.GET('/users')).data?.id).toBe(ownerId);
    expect((await ownerApi.GET('/users')).data?.email).toBe(`${ownerId}@example.com`);
    expect((await owner.PUT('/users', { body: { last_name: 'Renamed' } })).data?.success).toBe(true);
    expect((await ownerApi.PUT('/users', { body: { first_name: 'Again' } })).response.status).toBe(200);
    // A person's own data (behaviour §15), by someone who then leaves.
    const leaverId = uniqueId('doc-leaver');
    const leaver = await clientFor(leaverId, 'owner', '/api');
    await leaver.POST('/users', { body: { first_name: 'Doc', last_name: 'Leaver', email: `${leaverId}@example.com` } });
    expect((await leaver.GET('/users/export')).data?.profile.id).toBe(leaverId);
    expect((await leaver.DELETE('/users')).data?.success).toBe(true);

    const organization = await owner.POST('/organizations', {
      body: { organization_name: 'Documented', organization_description: '' },
    });
    expect(organization.response.status).toBe(201);
    const organizationId = organization.data!.organization_id;
    expect(
      (await ownerApi.POST('/organizations', { body: { organization_name: 'Second', organization_description: 'x' } }))
        .response.status,
    ).toBe(201);
    const firstPage = await owner.GET('/organizations', { params: { query: { limit: 1 } } });
    expect(firstPage.data).toHaveLength(1);
    expect(firstPage.response.headers.get('link')).toMatch(/rel="next"/);
    expect((await ownerApi.GET('/organizations')).data).toHaveLength(2);

    const header = { organization_id: organizationId };
    const added = await owner.POST('/organization-user', {
      params: { header },
      body: { email: `${memberId}@example.com`, role: 'member' },
    });
    expect(added.response.status).toBe(201);
    expect(added.data).toEqual({ organization_id: organizationId, user_id: memberId, role: 'member' });
    expect(
      (await owner.PUT('/organization-user', { params: { header }, body: { user_id: memberId, role: 'admin' } })).data
        ?.message,
    ).toEqual(expect.any(String));
    const one = await owner.GET('/organization-user/{user_id}', { params: { header, path: { user_id: memberId } } });
    expect(one.data?.role).toBe('admin');
    const list = await owner.GET('/organization-user', { params: { header } });
    expect(list.data?.map((row) => row.user_id)).toEqual([ownerId, memberId]);
    const removed = await owner.DELETE('/organization-user', { params: { header }, body: { user_id: memberId } });
    expect(removed.response.status).toBe(200);
    expect((await owner.GET('/organization-user', { params: { header } })).data).toHaveLength(1);

    const events = await owner.GET('/organizations/{organization_id}/events', {
      params: { path: { organization_id: organizationId }, query: { limit: 2 } },
    });
    expect(events.data?.map((event) => event.type)).toEqual(['organization.created', 'member.added']);
    expect(events.response.headers.get('link')).toMatch(/rel="next"/);
    const apiEvents = await ownerApi.GET('/organizations/{organization_id}/events', {
      params: { path: { organization_id: organizationId }, query: { type: 'member.removed' } },
    });
    expect(apiEvents.data?.map((event) => event.subject_user_id)).toEqual([memberId]);

    // The documented error side: typed error bodies with the contract's codes.
    const conflict = await owner.DELETE('/organization-user', { params: { header }, body: { user_id: ownerId } });
    expect(conflict.response.status).toBe(409);
    expect(conflict.error?.code).toBe('CONFLICT');
    const forbidden = await member.GET('/organization-user', { params: { header } });
    expect(forbidden.error).toEqual({ code: 'FORBIDDEN', message: expect.any(String) });
    const invalid = await owner.POST('/organization-user', {
      params: { header },
      // A role is any name the organization has: the service, not the document, knows this one is not.
      body: { email: 'x@example.com', role: 'boss' },
    });
    expect(invalid.error?.issues?.[0]?.field).toBe('role');

    // The organization lifecycle and invitations, each path with and without /api.
    const path = { organization_id: organizationId };
    expect((await owner.GET('/organizations/{organization_id}', { params: { path } })).data?.member_count).toBe(1);
    expect((await ownerApi.GET('/organizations/{organization_id}', { params: { path } })).data?.role).toBe('owner');
    const renamed = await owner.PUT('/organizations/{organization_id}', {
      params: { path },
      body: { organization_name: 'Renamed' },
    });
    expect(renamed.data?.organization_name).toBe('Renamed');
    const described = await ownerApi.PUT('/organizations/{organization_id}', {
      params: { path },
      body: { organization_description: 'Described' },
    });
    expect(described.data?.organization_description).toBe('Described');

    // The caller's permissions and the check of them (the member was removed above: holds nothing).
    const catalogue = await member.GET('/permissions');
    expect(catalogue.data?.map((entry) => entry.permission)).toContain('members:read');
    expect((await memberApi.GET('/permissions')).data).toEqual(catalogue.data);
    const mine = await owner.GET('/organizations/{organization_id}/permissions', { params: { path } });
    expect(mine.data).toMatchObject({ user_id: ownerId, role: 'owner', teams: [] });
    expect((await ownerApi.GET('/organizations/{organization_id}/permissions', { params: { path } })).data?.role).toBe(
      'owner',
    );
    const checked = await owner.POST('/organizations/{organization_id}/permissions/check', {
      params: { path },
      body: { permissions: ['members:read', 'organization:delete'], user_id: memberId },
    });
    expect(checked.data).toEqual({
      user_id: memberId,
      allowed: false,
      results: { 'members:read': false, 'organization:delete': false },
    });
    const unknownPermission = await ownerApi.POST('/organizations/{organization_id}/permissions/check', {
      params: { path },
      // @ts-expect-error: the generated types know the permissions too
      body: { permissions: ['reports:export'] },
    });
    expect(unknownPermission.error?.issues?.[0]?.field).toBe('permissions.0');

    // The organization's roles, each path with and without /api.
    const roles = await owner.GET('/organizations/{organization_id}/roles', { params: { path } });
    expect(roles.data?.map((role) => role.kind)).toEqual(['built_in', 'built_in', 'built_in']);
    expect((await ownerApi.GET('/organizations/{organization_id}/roles', { params: { path } })).data).toHaveLength(3);
    const createdRole = await owner.POST('/organizations/{organization_id}/roles', {
      params: { path },
      body: { role: 'auditor', description: 'Reads the trail', permissions: ['events:read'] },
    });
    expect(createdRole.response.status).toBe(201);
    expect(createdRole.data).toMatchObject({ role: 'auditor', kind: 'organization', permissions: ['events:read'] });
    expect(
      (
        await ownerApi.POST('/organizations/{organization_id}/roles', {
          params: { path },
          body: { role: 'helper', permissions: ['members:read'] },
        })
      ).response.status,
    ).toBe(201);
    const rolePath = (role: string) => ({ params: { path: { ...path, role } } });
    const reshaped = await owner.PUT('/organizations/{organization_id}/roles/{role}', {
      ...rolePath('auditor'),
      body: { permissions: ['events:read', 'members:read'] },
    });
    expect(reshaped.data?.permissions).toEqual(['events:read', 'members:read']);
    const redescribed = await ownerApi.PUT('/organizations/{organization_id}/roles/{role}', {
      ...rolePath('helper'),
      body: { description: 'Helps' },
    });
    expect(redescribed.data?.description).toBe('Helps');
    expect((await owner.DELETE('/organizations/{organization_id}/roles/{role}', rolePath('auditor'))).data).toEqual({
      message: expect.any(String),
    });
    const builtIn = await ownerApi.DELETE('/organizations/{organization_id}/roles/{role}', rolePath('admin'));
    expect(builtIn.error?.code).toBe('CONFLICT');

    // The organization's teams, each path with and without /api.
    const team = await owner.POST('/organizations/{organization_id}/teams', {
      params: { path },
      body: { name: 'Support', roles: ['helper'] },
    });
    expect(team.response.status).toBe(201);
    expect(team.data).toMatchObject({ name: 'Support', roles: ['helper'], member_count: 0 });
    const sameName = await ownerApi.POST('/organizations/{organization_id}/teams', {
      params: { path },
      body: { name: 'SUPPORT' },
    });
    expect(sameName.error?.code).toBe('CONFLICT');
    const team_id = team.data!.team_id;
    const teamPath = { params: { path: { ...path, team_id } } };
    const teamsPage = await owner.GET('/organizations/{organization_id}/teams', {
      params: { path, query: { limit: 1 } },
    });
    expect(teamsPage.data?.map((item) => item.team_id)).toEqual([team_id]);
    expect((await ownerApi.GET('/organizations/{organization_id}/teams', { params: { path } })).data).toHaveLength(1);
    const joined = await owner.POST('/organizations/{organization_id}/teams/{team_id}/members', {
      ...teamPath,
      body: { user_id: ownerId },
    });
    expect(joined.response.status).toBe(201);
    const joinedAgain = await ownerApi.POST('/organizations/{organization_id}/teams/{team_id}/members', {
      ...teamPath,
      body: { user_id: ownerId },
    });
    expect(joinedAgain.error?.code).toBe('CONFLICT');
    const teamMembers = await owner.GET('/organizations/{organization_id}/teams/{team_id}/members', teamPath);
    expect(teamMembers.data?.map((item) => item.user_id)).toEqual([ownerId]);
    const teamMembersPage = await ownerApi.GET('/organizations/{organization_id}/teams/{team_id}/members', {
      params: { path: { ...path, team_id }, query: { limit: 1 } },
    });
    expect(teamMembersPage.data).toHaveLength(1);
    expect((await owner.GET('/organizations/{organization_id}/teams/{team_id}', teamPath)).data?.member_count).toBe(1);
    expect((await ownerApi.GET('/organizations/{organization_id}/teams/{team_id}', teamPath)).data?.roles).toEqual([
      'helper',
    ]);
    expect((await owner.GET('/teams')).data?.map((item) => item.team_id)).toEqual([team_id]);
    expect((await ownerApi.GET('/teams')).data).toHaveLength(1);
    const renamedTeam = await owner.PUT('/organizations/{organization_id}/teams/{team_id}', {
      ...teamPath,
      body: { name: 'Helpdesk' },
    });
    expect(renamedTeam.data?.name).toBe('Helpdesk');
    const withoutRoles = await ownerApi.PUT('/organizations/{organization_id}/teams/{team_id}', {
      ...teamPath,
      body: { roles: [] },
    });
    expect(withoutRoles.data?.roles).toEqual([]);
    const ownerInTeam = { params: { path: { ...path, team_id, user_id: ownerId } } };
    const left = await owner.DELETE('/organizations/{organization_id}/teams/{team_id}/members/{user_id}', ownerInTeam);
    expect(left.response.status).toBe(200);
    const leftAgain = await ownerApi.DELETE(
      '/organizations/{organization_id}/teams/{team_id}/members/{user_id}',
      ownerInTeam,
    );
    expect(leftAgain.error?.code).toBe('NOT_FOUND');
    expect((await owner.DELETE('/organizations/{organization_id}/teams/{team_id}', teamPath)).response.status).toBe(
      200,
    );
    const deletedAgain = await ownerApi.DELETE('/organizations/{organization_id}/teams/{team_id}', teamPath);
    expect(deletedAgain.error?.code).toBe('NOT_FOUND');

    // The organization's webhooks, each path with and without /api.
    const hook = await owner.POST('/organizations/{organization_id}/webhooks', {
      params: { path },
      body: { url: 'http://127.0.0.1:9/hook', event_types: ['organization.updated'] },
    });
    expect(hook.response.status).toBe(201);
    expect(hook.data?.secret).toMatch(/^whsec_/);
    const webhook_id = hook.data!.webhook_id;
    const hookPath = { params: { path: { ...path, webhook_id } } };
    const ftpUrl = await ownerApi.POST('/organizations/{organization_id}/webhooks', {
      params: { path },
      body: { url: 'ftp://127.0.0.1/hook', event_types: ['*'] },
    });
    expect(ftpUrl.error?.issues?.[0]?.field).toBe('url');
    const hooks = await owner.GET('/organizations/{organization_id}/webhooks', {
      params: { path, query: { limit: 1 } },
    });
    expect(hooks.data?.map((item) => item.webhook_id)).toEqual([webhook_id]);
    expect((await ownerApi.GET('/organizations/{organization_id}/webhooks', { params: { path } })).data).toHaveLength(
      1,
    );
    expect((await owner.GET('/organizations/{organization_id}/webhooks/{webhook_id}', hookPath)).data?.enabled).toBe(
      true,
    );
    const redescribedHook = await owner.PUT('/organizations/{organization_id}/webhooks/{webhook_id}', {
      ...hookPath,
      body: { description: 'Documented' },
    });
    expect(redescribedHook.data?.description).toBe('Documented');
    // A change the endpoint asks for, so that it has a delivery (its attempts fail: nobody listens).
    await ownerApi.PUT('/organizations/{organization_id}/webhooks/{webhook_id}', {
      ...hookPath,
      body: { event_types: ['*'] },
    });
    let deliveryId = '';
    await expect
      .poll(async () => {
        const log = await owner.GET('/organizations/{organization_id}/webhooks/{webhook_id}/deliveries', hookPath);
        deliveryId = log.data?.[0]?.delivery_id ?? '';
        return log.data?.[0]?.attempts ?? 0;
      })
      .toBeGreaterThan(0);
    const deliveryPath = { params: { path: { ...path, webhook_id, delivery_id: deliveryId } } };
    const page = await ownerApi.GET('/organizations/{organization_id}/webhooks/{webhook_id}/deliveries', {
      params: { path: { ...path, webhook_id }, query: { limit: 1 } },
    });
    expect(page.data).toHaveLength(1);
    const retried = await owner.POST(
      '/organizations/{organization_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry',
      deliveryPath,
    );
    expect([202, 409]).toContain(retried.response.status);
    await ownerApi.POST('/organizations/{organization_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
      params: { path: { ...path, webhook_id, delivery_id: '00000000-0000-7000-8000-000000000000' } },
    });
    const tested = await owner.POST('/organizations/{organization_id}/webhooks/{webhook_id}/test', hookPath);
    expect(tested.response.status).toBe(202);
    expect(tested.data?.payload?.type).toBe('webhook.test');
    const rotated = await owner.POST('/organizations/{organization_id}/webhooks/{webhook_id}/rotate-secret', hookPath);
    expect(rotated.data?.secret).toMatch(/^whsec_/);
    expect(rotated.data?.secret).not.toBe(hook.data?.secret);
    const rotatedAgain = await ownerApi.POST(
      '/organizations/{organization_id}/webhooks/{webhook_id}/rotate-secret',
      hookPath,
    );
    expect(rotatedAgain.response.status).toBe(200);
    expect(
      (await owner.DELETE('/organizations/{organization_id}/webhooks/{webhook_id}', hookPath)).response.status,
    ).toBe(200);
    const hookGone = await ownerApi.DELETE('/organizations/{organization_id}/webhooks/{webhook_id}', hookPath);
    expect(hookGone.error?.code).toBe('NOT_FOUND');
    expect((await ownerApi.GET('/organizations/{organization_id}/webhooks/{webhook_id}', hookPath)).error?.code).toBe(
      'NOT_FOUND',
    );

    const key = await owner.POST('/organizations/{organization_id}/api-keys', {
      params: { path },
      body: { name: 'CI', role: 'member' },
    });
    expect(key.response.status).toBe(201);
    expect(key.data?.secret).toMatch(/^oak_[A-Za-z0-9_-]{43}$/);
    const keyPath = { params: { path: { ...path, key_id: key.data!.key_id } } };
    expect((await owner.GET('/organizations/{organization_id}/api-keys', { params: { path } })).data).toEqual([
      expect.not.objectContaining({ secret: expect.anything() }),
    ]);
    expect((await owner.GET('/organizations/{organization_id}/api-keys/{key_id}', keyPath)).data?.prefix).toBe(
      key.data!.secret.slice(0, 12),
    );
    expect((await owner.DELETE('/organizations/{organization_id}/api-keys/{key_id}', keyPath)).response.status).toBe(
      200,
    );
    expect((await ownerApi.GET('/organizations/{organization_id}/api-keys/{key_id}', keyPath)).error?.code).toBe(
      'NOT_FOUND',
    );

    const { slug } = (await owner.GET('/organizations/{organization_id}', { params: { path } })).data!;
    expect(
      (await ownerApi.GET('/organizations/slug/{slug}', { params: { path: { slug } } })).data?.organization_id,
    ).toBe(organizationId);
    const metadata = await owner.PATCH('/organizations/{organization_id}/metadata', {
      params: { path },
      body: { public_metadata: { plan: 'pro' } },
    });
    expect(metadata.data?.public_metadata).toEqual({ plan: 'pro' });
    // The seat limit is the application key's: a person is refused.
    const limits = await owner.PUT('/organizations/{organization_id}/limits', {
      params: { path },
      body: { max_members: 10 },
    });
    expect(limits.response.status).toBe(403);
    const ownerPath = { params: { path: { ...path, user_id: ownerId } } };
    const ownerMetadata = await ownerApi.PATCH('/organizations/{organization_id}/members/{user_id}/metadata', {
      ...ownerPath,
      body: { public_metadata: { desk: 1 } },
    });
    expect(ownerMetadata.data?.public_metadata).toEqual({ desk: 1 });
    expect(
      (await owner.GET('/organizations/{organization_id}/members/{user_id}', ownerPath)).data?.public_metadata,
    ).toEqual({
      desk: 1,
    });
    // Domains and joining (behaviour §17): people whose verified e-mail is at a domain of the test's
    // own, which the adder's e-mail verifies at once, so that no resolver is asked.
    const domain = `${uniqueId('doc')}.example`;
    const verifiedClient = async (sub: string, base: '' | '/api' = '') => {
      const email = `${sub}@${domain}`;
      const token = await tokenFor(sub, { role: 'owner', claims: { email, email_verified: true } });
      const client = createFetchClient<paths>({
        baseUrl: `${server().baseUrl}${base}`,
        headers: { authorization: `Bearer ${token}` },
      });
      client.use(recordAnswers);
      const made = await client.POST('/users', { body: { first_name: 'Doc', last_name: 'Domains', email } });
      expect(made.response.status).toBe(201);
      return client;
    };
    const domainAdmin = await verifiedClient(uniqueId('doc-domains'));
    const joiner = await verifiedClient(uniqueId('doc-joiner'), '/api');
    const domainOrganization = (
      await domainAdmin.POST('/organizations', { body: { organization_name: 'Domains', organization_description: '' } })
    ).data!.organization_id;
    const domainsAt = { params: { path: { organization_id: domainOrganization } } };
    const addedDomain = await domainAdmin.POST('/organizations/{organization_id}/domains', {
      ...domainsAt,
      body: { domain },
    });
    expect(addedDomain.response.status).toBe(201);
    expect(addedDomain.data?.status).toBe('verified');
    const domainAt = {
      params: { path: { organization_id: domainOrganization, domain_id: addedDomain.data!.domain_id } },
    };
    expect((await domainAdmin.GET('/organizations/{organization_id}/domains', domainsAt)).data).toHaveLength(1);
    expect((await domainAdmin.GET('/organizations/{organization_id}/domains/{domain_id}', domainAt)).data?.domain).toBe(
      domain,
    );
    expect(
      (await domainAdmin.POST('/organizations/{organization_id}/domains/{domain_id}/verify', domainAt)).response.status,
    ).toBe(200);
    const suggesting = await domainAdmin.PUT('/organizations/{organization_id}/domains/{domain_id}', {
      ...domainAt,
      body: { enrollment: 'suggestion' },
    });
    expect(suggesting.data?.enrollment).toBe('suggestion');
    expect((await joiner.GET('/organizations/suggestions')).data?.map((row) => row.organization_id)).toEqual([
      domainOrganization,
    ]);
    const askToJoin = () => joiner.POST('/organizations/{organization_id}/join', domainsAt);
    const asked = await askToJoin();
    expect(asked.response.status).toBe(202);
    const requestAt = (request_id: string) => ({
      params: { path: { organization_id: domainOrganization, request_id } },
    });
    expect((await joiner.GET('/join-requests')).data).toHaveLength(1);
    expect((await domainAdmin.GET('/organizations/{organization_id}/join-requests', domainsAt)).data).toHaveLength(1);
    const rejected = await domainAdmin.POST('/organizations/{organization_id}/join-requests/{request_id}/reject', {
      ...requestAt(asked.data!.request_id!),
    });
    expect(rejected.response.status).toBe(200);
    const withdrawn = await joiner.DELETE('/join-requests/{request_id}', {
      params: { path: { request_id: (await askToJoin()).data!.request_id! } },
    });
    expect(withdrawn.response.status).toBe(200);
    const approved = await domainAdmin.POST('/organizations/{organization_id}/join-requests/{request_id}/approve', {
      ...requestAt((await askToJoin()).data!.request_id!),
      body: {},
    });
    expect(approved.response.status).toBe(201);
    expect(
      (await domainAdmin.DELETE('/organizations/{organization_id}/domains/{domain_id}', domainAt)).response.status,
    ).toBe(200);

    const directoryAt = { params: { path } };
    const directory = await owner.PUT('/organizations/{organization_id}/directory', {
      ...directoryAt,
      body: { default_role: 'member' },
    });
    expect(directory.data?.default_role).toBe('member');
    expect((await owner.GET('/organizations/{organization_id}/directory', directoryAt)).data?.groups).toBe(0);
    expect((await owner.GET('/organizations/{organization_id}/directory/users', directoryAt)).data).toEqual([]);
    expect((await owner.GET('/organizations/{organization_id}/directory/groups', directoryAt)).data).toEqual([]);

    const memberEmail = `${memberId}@example.com`;
    const inviteMember = () =>
      owner.POST('/organizations/{organization_id}/invitations', {
        params: { path },
        body: { email: memberEmail, role: 'admin' },
      });
    const declinable = await inviteMember();
    expect(declinable.response.status).toBe(201);
    const revocable = await ownerApi.POST('/organizations/{organization_id}/invitations', {
      params: { path },
      body: { email: 'revocable@example.com', role: 'member' },
    });
    expect(revocable.data?.status).toBe('pending');
    expect((await owner.GET('/organizations/{organization_id}/invitations', { params: { path } })).data).toHaveLength(
      2,
    );
    const revocation = { params: { path: { ...path, invitation_id: revocable.data!.invitation_id } } };
    expect(
      (await owner.DELETE('/organizations/{organization_id}/invitations/{invitation_id}', revocation)).response.status,
    ).toBe(200);
    const revokedAgain = await ownerApi.DELETE(
      '/organizations/{organization_id}/invitations/{invitation_id}',
      revocation,
    );
    expect(revokedAgain.error?.code).toBe('GONE');
    expect(
      (await ownerApi.GET('/organizations/{organization_id}/invitations', { params: { path } })).data?.map(
        (invitation) => invitation.email,
      ),
    ).toEqual([memberEmail]);

    expect((await member.GET('/invitations')).data?.map((invitation) => invitation.organization_name)).toEqual([
      'Renamed',
    ]);
    const declined = { params: { path: { invitation_id: declinable.data!.invitation_id } } };
    expect((await member.POST('/invitations/{invitation_id}/decline', declined)).response.status).toBe(200);
    expect((await memberApi.POST('/invitations/{invitation_id}/decline', declined)).response.status).toBe(410);
    expect((await memberApi.GET('/invitations')).data).toEqual([]);
    const accepted = { params: { path: { invitation_id: (await inviteMember()).data!.invitation_id } } };
    const membership = await member.POST('/invitations/{invitation_id}/accept', accepted);
    expect(membership.response.status).toBe(201);
    expect(membership.data).toEqual({ organization_id: organizationId, user_id: memberId, role: 'admin' });
    expect((await memberApi.POST('/invitations/{invitation_id}/accept', accepted)).error?.code).toBe('GONE');

    const handOver = (client: typeof owner, to: string) =>
      client.POST('/organizations/{organization_id}/transfer-ownership', {
        params: { path },
        body: { user_id: to },
      });
    expect((await handOver(owner, memberId)).response.status).toBe(200);
    expect((await handOver(memberApi, ownerId)).response.status).toBe(200);
    expect((await owner.DELETE('/organizations/{organization_id}', { params: { path } })).response.status).toBe(200);
    expect((await ownerApi.DELETE('/organizations/{organization_id}', { params: { path } })).error?.code).toBe(
      'FORBIDDEN',
    );

    // The application's lists (behaviour §16): a person is refused (tests/admin-lists.test.ts has the key's answers).
    expect((await owner.GET('/admin/users')).response.status).toBe(403);
    expect((await owner.GET('/admin/organizations')).response.status).toBe(403);
    const someone = { params: { path: { user_id: ownerId } } };
    expect((await owner.GET('/admin/users/{user_id}/memberships', someone)).response.status).toBe(403);

    const documentedOperations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect([...answered].sort()).toEqual(documentedOperations.sort());
    expect(undocumented).toEqual([]);
  });
});

/*
 * A tool that trusts the document must agree with the service on every value: what the document's
 * pattern, format and limits accept (ajv with ajv-formats, as tools check it) the service takes,
 * and what they refuse it answers with 400. Lone surrogates are the one rule the document leaves to
 * the service (see shared/text.ts), so the samples here are well-formed text.
 */
describeOnEachDatabase('the document and the service on names and e-mail addresses', (target) => {
  const server = useServer(target);
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);
  let document: Document;
  let owner: TestUser;
  let organizationId: string;

  beforeAll(async () => {
    document = (await server().call('GET', '/openapi.json')).body;
    owner = await registerUser(server());
    organizationId = await createOrganization(server(), owner);
  });

  /** Whether the document accepts `body` as the body of an operation. */
  function documentAcceptsBody(method: string, path: string, body: object): boolean {
    const schema = document.paths[path]?.[method]?.requestBody?.content['application/json'].schema;
    expect(schema, `${method} ${path}`).toBeDefined();
    return ajv.validate(schema!, body);
  }

  /** Whether the document accepts `value` as the body field `field` of an operation. */
  function documentAccepts(method: string, path: string, field: string, value: string): boolean {
    const body = document.paths[path]?.[method]?.requestBody?.content['application/json'].schema;
    const schema = body?.properties[field];
    expect(schema, `${method} ${path} ${field}`).toBeDefined();
    return ajv.validate(schema!, value);
  }

  /** Whether the document accepts `value` as the query parameter `name` of `GET path`. */
  function documentAcceptsQuery(path: string, name: string, value: string): boolean {
    const parameters = (document.paths[path]?.get?.parameters ?? []) as Array<{
      in: string;
      name: string;
      schema: object;
    }>;
    const parameter = parameters.find((each) => each.in === 'query' && each.name === name);
    expect(parameter, `get ${path} ${name}`).toBeDefined();
    return ajv.validate(parameter!.schema, value);
  }

  it('accept and refuse the same searches: blank ones are refused (behaviour §15)', async () => {
    const samples = fc.constantFrom(
      ' ',
      '\t',
      '\u3000',
      '\u200b',
      ' \u00ad ',
      '\ufeff',
      'a',
      ' a ',
      '\u200ba',
      'a'.repeat(100),
      'a'.repeat(101),
    );
    const lists = fc.constantFrom('/organizations', '/organization-user');
    await fc.assert(
      fc.asyncProperty(lists, fc.oneof(samples, wellFormedText), async (path, search) => {
        const answer = await server().call('GET', `${path}?search=${encodeURIComponent(search)}`, {
          token: owner.token,
          organizationId,
        });
        const label = `GET ${path} ${JSON.stringify(search)}: ${JSON.stringify(answer.body)}`;
        expect([200, 400], label).toContain(answer.status);
        expect(answer.status !== 400, label).toBe(documentAcceptsQuery(path, 'search', search));
      }),
      { numRuns: 60 },
    );
  });

  it('accept and refuse the same e-mail addresses', async () => {
    const invitations = `/organizations/{organization_id}/invitations`;
    const addresses = fc.oneof(
      addressWithLabels(() => uniqueId('doc')).map((sample) => sample.address),
      fc.emailAddress(),
    );
    await fc.assert(
      fc.asyncProperty(addresses, async (email) => {
        const token = await tokenFor(uniqueId('doc'), { role: 'owner' });
        const answers = {
          'post /users': await server().call('POST', '/users', {
            token,
            body: { first_name: 'Doc', last_name: 'Mail', email },
          }),
          'post /organization-user': await server().call('POST', '/organization-user', {
            token: owner.token,
            organizationId,
            body: { email, role: 'member' },
          }),
          [`post ${invitations}`]: await server().call(
            'POST',
            invitations.replace('{organization_id}', organizationId),
            {
              token: owner.token,
              body: { email, role: 'member' },
            },
          ),
        };
        for (const [operation, answer] of Object.entries(answers)) {
          const [method, path] = operation.split(' ') as [string, string];
          const label = `${operation} ${JSON.stringify(email)}: ${JSON.stringify(answer.body)}`;
          expect([200, 201, 400, 404, 409], label).toContain(answer.status);
          expect(answer.status !== 400, label).toBe(documentAccepts(method, path, 'email', email));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('accept and refuse the same names', async () => {
    const organization = `/organizations/{organization_id}`;
    const teams = `/organizations/{organization_id}/teams`;
    // Names are 1 to 100 characters once trimmed: the document counts them between the white space too.
    const atTheLimits = fc.constantFrom(
      ` ${'a'.repeat(100)}`,
      `\t${'a'.repeat(100)}\u3000\u3000`,
      ` ${'a'.repeat(101)} `,
      `${'😀'.repeat(100)}`,
      `${'😀'.repeat(101)}`,
      `a${' '.repeat(98)}b`,
      `a${' '.repeat(99)}b`,
    );
    const names = fc.oneof(
      paddedName.map((name) => name.sent),
      wellFormedText,
      atTheLimits,
    );
    const fields = fc.constantFrom(
      ['put', '/users', 'first_name'],
      ['put', '/users', 'last_name'],
      ['put', organization, 'organization_name'],
      ['post', '/organizations', 'organization_name'],
      ['post', teams, 'name'],
    );
    await fc.assert(
      fc.asyncProperty(fields, names, async ([method, path, field], name) => {
        const body = path === '/organizations' ? { [field]: name, organization_description: '' } : { [field]: name };
        const answer = await server().call(method.toUpperCase(), path.replace('{organization_id}', organizationId), {
          token: owner.token,
          body,
        });
        const label = `${method} ${path} ${field} ${JSON.stringify(name)}: ${JSON.stringify(answer.body)}`;
        // A team's name may be taken already (409): a refusal for the state, not the value.
        expect([200, 201, 400, 409], label).toContain(answer.status);
        expect(answer.status !== 400, label).toBe(documentAccepts(method, path, field, name));
      }),
      { numRuns: 80 },
    );
  });

  it('accept and refuse the same team roles: a team never gives owner (behaviour §12)', async () => {
    const teams = `/organizations/{organization_id}/teams`;
    for (const roles of [['owner'], ['member', 'owner'], ['member'], []]) {
      const sent = { name: uniqueId('roles'), roles };
      const answer = await server().call('POST', teams.replace('{organization_id}', organizationId), {
        token: owner.token,
        body: sent,
      });
      const label = `${JSON.stringify(sent)}: ${JSON.stringify(answer.body)}`;
      expect([201, 400], label).toContain(answer.status);
      expect(answer.status !== 400, label).toBe(documentAcceptsBody('post', teams, sent));
    }
  });

  it("accept and refuse the same expiries: an owner's membership never expires (behaviour §11)", async () => {
    const invitations = `/organizations/{organization_id}/invitations`;
    const inAYear = new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString();
    const member = await registerUser(server());
    await addMember(server(), owner, organizationId, member, 'member');
    for (const role of ['owner', 'admin']) {
      for (const expires_at of [undefined, inAYear, null]) {
        const body = { role, ...(expires_at !== undefined && { expires_at }) };
        const invitee = await registerUser(server());
        const answers: Array<[string, string, object, { status: number; body: unknown }]> = [
          [
            'post',
            '/organization-user',
            { email: invitee.email, ...body },
            await server().call('POST', '/organization-user', {
              token: owner.token,
              organizationId,
              body: { email: invitee.email, ...body },
            }),
          ],
          [
            'put',
            '/organization-user',
            { user_id: member.id, ...body },
            await server().call('PUT', '/organization-user', {
              token: owner.token,
              organizationId,
              body: { user_id: member.id, ...body },
            }),
          ],
          [
            'post',
            invitations,
            { email: `invited-${invitee.email}`, ...body },
            await server().call('POST', invitations.replace('{organization_id}', organizationId), {
              token: owner.token,
              body: { email: `invited-${invitee.email}`, ...body },
            }),
          ],
        ];
        for (const [method, path, sent, answer] of answers) {
          const label = `${method} ${path} ${JSON.stringify(sent)}: ${JSON.stringify(answer.body)}`;
          expect([200, 201, 400], label).toContain(answer.status);
          expect(answer.status !== 400, label).toBe(documentAcceptsBody(method, path, sent));
        }
        // Back to a member whose membership lasts, for the next round.
        const reset = await server().call('PUT', '/organization-user', {
          token: owner.token,
          organizationId,
          body: { user_id: member.id, role: 'member', expires_at: null },
        });
        expect(reset.status).toBe(200);
      }
    }
  });
});
