/**
 * SCIM's absolute URLs (behaviour §18): a 201's Location, every resource's and discovery document's
 * `meta.location` and a group member's `$ref` start with PUBLIC_URL when it is set, whatever Host
 * and X-Forwarded-* headers a request carries; without it, with the request's scheme and Host.
 */
import { describe, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, uniqueId } from './support/fixtures.ts';
import { GROUP_SCHEMA, oktaUser, organizationKey, scimClient } from './support/scim.ts';
import { useServer, type TestServer } from './support/server.ts';

/** A client that names the service otherwise than PUBLIC_URL does, and claims a proxy's forwarding too. */
const HOSTILE_HEADERS = {
  host: 'attacker.invalid',
  'x-forwarded-host': 'forwarded.invalid',
  'x-forwarded-proto': 'https',
  forwarded: 'host=forwarded.invalid;proto=https',
};

type Located = { id: string; meta: { location: string } };

/**
 * Every absolute URL SCIM answers a client sending HOSTILE_HEADERS, by what it locates, beside the
 * URL each should be under `scimBase`: a created user's and group's Location and `meta.location`,
 * a read's, the lists', a member's `$ref` and every discovery document's.
 */
async function urlsAnswered(server: TestServer, scimBase: string) {
  const owner = await registerUser(server, 'public-url');
  const organizationId = await createOrganization(server, owner);
  const scim = scimClient(server, await organizationKey(server, owner, organizationId), HOSTILE_HEADERS);
  const answered: Record<string, string | null | undefined> = {};
  const expected: Record<string, string> = {};

  const user = await scim.send<Located>('POST', '/Users', oktaUser(`${uniqueId('located')}@example.com`));
  expect(user.status, JSON.stringify(user.body)).toBe(201);
  const userUrl = `${scimBase}/Users/${user.body.id}`;
  Object.assign(answered, { 'POST /Users Location': user.location, 'POST /Users meta': user.body.meta.location });
  Object.assign(expected, { 'POST /Users Location': userUrl, 'POST /Users meta': userUrl });
  answered['GET /Users/:id'] = (await scim.send<Located>('GET', `/Users/${user.body.id}`)).body.meta.location;
  expected['GET /Users/:id'] = userUrl;

  const groupBody = { schemas: [GROUP_SCHEMA], displayName: uniqueId('Located'), members: [{ value: user.body.id }] };
  const group = await scim.send<Located & { members: Array<{ $ref: string }> }>('POST', '/Groups', groupBody);
  expect(group.status, JSON.stringify(group.body)).toBe(201);
  const groupUrl = `${scimBase}/Groups/${group.body.id}`;
  Object.assign(answered, {
    'POST /Groups Location': group.location,
    'POST /Groups meta': group.body.meta.location,
    'POST /Groups member $ref': group.body.members[0]?.$ref,
  });
  Object.assign(expected, { 'POST /Groups Location': groupUrl, 'POST /Groups meta': groupUrl });
  expected['POST /Groups member $ref'] = userUrl;

  for (const path of ['/Users', '/Groups', '/ResourceTypes', '/Schemas']) {
    const list = await scim.send<{ Resources: Located[] }>('GET', path);
    expect(list.status, path).toBe(200);
    for (const resource of list.body.Resources) {
      answered[`GET ${path} ${resource.id}`] = resource.meta.location;
      expected[`GET ${path} ${resource.id}`] = `${scimBase}${path}/${resource.id}`;
    }
  }
  for (const path of ['/ServiceProviderConfig', '/ResourceTypes/User', `/Schemas/${GROUP_SCHEMA}`]) {
    answered[`GET ${path}`] = (await scim.send<Located>('GET', path)).body.meta.location;
    expected[`GET ${path}`] = `${scimBase}${path}`;
  }
  return { answered, expected };
}

describeOnEachDatabase('SCIM URLs (behaviour §18)', (target) => {
  describe.each([
    ['https://orgs.example.com', 'https://orgs.example.com/scim/v2'],
    // Under a path, in other letter case, with the default port and a trailing slash: as URL writes it, without the slash.
    ['HTTPS://Example.COM:443/orgs/', 'https://example.com/orgs/scim/v2'],
  ])('with PUBLIC_URL=%s', (publicUrl, scimBase) => {
    const server = useServer(target, { PUBLIC_URL: publicUrl });

    it('starts every one with it, whatever Host and X-Forwarded-* headers the request carries', async () => {
      const { answered, expected } = await urlsAnswered(server(), scimBase);
      expect(answered).toEqual(expected);
    });
  });

  describe('without PUBLIC_URL', () => {
    const server = useServer(target);

    it("starts every one with the request's Host header over plain HTTP, never with X-Forwarded-*", async () => {
      const { answered, expected } = await urlsAnswered(server(), `http://${HOSTILE_HEADERS.host}/scim/v2`);
      expect(answered).toEqual(expected);
    });
  });
});
