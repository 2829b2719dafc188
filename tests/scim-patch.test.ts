/**
 * SCIM PATCH and the names it reads (behaviour §18): attribute names in any case and with the core
 * schema's URN, sub-attributes a change does not name left as they are, malformed paths refused as
 * such, and no name a client writes ever reaching an object's prototype.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import {
  entraUser,
  expectScimError,
  organizationKey,
  patch,
  scimClient,
  USER_SCHEMA,
  type ScimClient,
} from './support/scim.ts';
import { useServer } from './support/server.ts';

describeOnEachDatabase('SCIM PATCH and attribute names (behaviour §18)', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let scim: ScimClient;
  let elsewhere: ScimClient;

  beforeAll(async () => {
    owner = await registerUser(server(), 'scim-patch-owner');
    const organizationId = await createOrganization(server(), owner);
    scim = scimClient(server(), await organizationKey(server(), owner, organizationId));
    const other = await createOrganization(server(), owner);
    elsewhere = scimClient(server(), await organizationKey(server(), owner, other));
  });

  const newUser = async (body = entraUser(`${uniqueId('patched')}@example.com`)) => {
    const created = await scim.send('POST', '/Users', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };

  describe('names a client writes never reach a prototype', () => {
    // Were the service's prototype polluted, the test's would be too (the service runs in-process).
    afterEach(() => {
      delete (Object.prototype as Record<string, unknown>).externalId;
    });

    it.each([
      ['a key without path', { op: 'Replace', value: { '__proto__.externalId': 'POLLUTED' } }, 200],
      ['a constructor key', { op: 'add', value: { 'constructor.prototype.externalId': 'POLLUTED' } }, 200],
      ['a key inside a value', { op: 'replace', path: 'name', value: { '__proto__.externalId': 'POLLUTED' } }, 200],
      ['a nested key', { op: 'replace', value: { name: { 'givenName.__proto__.externalId': 'POLLUTED' } } }, 200],
      ['a sub-attribute path', { op: 'replace', path: 'name.__proto__', value: { externalId: 'POLLUTED' } }, 200],
      ['a deeper path', { op: 'replace', path: 'name.__proto__.externalId', value: 'POLLUTED' }, 'invalidPath'],
      ['a filter', { op: 'add', path: 'emails[__proto__ eq "x"].value', value: 'POLLUTED' }, 'invalidPath'],
      ['an object for a single value', { op: 'add', path: 'displayName', value: { '__proto__.x': 1 } }, 'invalidValue'],
    ])(
      'through %s: dropped or refused, and a user made elsewhere afterwards has no externalId',
      async (_, op, answered) => {
        const id = await newUser();
        const answer = await scim.send('PATCH', `/Users/${id}`, patch(op));
        if (answered === 200) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        else expectScimError(answer, 400, answered);
        const fresh = await elsewhere.send('POST', '/Users', {
          schemas: [USER_SCHEMA],
          userName: `${uniqueId('fresh')}@example.com`,
        });
        expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
        expect(fresh.body.externalId).toBeUndefined();
        expect(({} as Record<string, unknown>).externalId).toBeUndefined();
      },
    );
  });
});
