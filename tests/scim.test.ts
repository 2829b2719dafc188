/**
 * SCIM 2.0 provisioning (behaviour §18), driven as Okta and Microsoft Entra ID drive it: plain HTTP
 * with an organization API key, in the request shapes their guides show, in parallel and retried.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newKeySecret } from '../server/modules/api-keys/api-keys.service.ts';
import { createApplicationKey } from './support/application-keys.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import {
  clientOfLimitedOrganization,
  entraUser,
  expectScimError,
  GROUP_SCHEMA,
  oktaUser,
  organizationKey,
  patch,
  scimClient,
  type ScimClient,
} from './support/scim.ts';
import { useServer, type TestServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

async function membersOf(server: TestServer, owner: TestUser, organizationId: string) {
  const list = await server.call<Array<{ user_id: string; email: string; role: string }>>('GET', '/organization-user', {
    token: owner.token,
    organizationId,
  });
  expect(list.status).toBe(200);
  return list.body;
}

async function eventsOf(server: TestServer, owner: TestUser, organizationId: string) {
  const list = await server.call('GET', `/organizations/${organizationId}/events?limit=500`, { token: owner.token });
  expect(list.status).toBe(200);
  return list.body as Array<{ type: string; subject_user_id: string | null; actor_key_id: string | null; data: any }>;
}

async function teamMembers(server: TestServer, owner: TestUser, organizationId: string, teamId: string) {
  const list = await server.call('GET', `/organizations/${organizationId}/teams/${teamId}/members`, {
    token: owner.token,
  });
  expect(list.status, JSON.stringify(list.body)).toBe(200);
  return (list.body as Array<{ user_id: string }>).map((member) => member.user_id).sort();
}

/** A person who makes their record with a verified e-mail, as section 17 defines it. */
async function signUpVerified(server: TestServer, email: string): Promise<TestUser> {
  const id = uniqueId('late');
  const token = await tokenFor(id, { role: 'owner', claims: { email, email_verified: true } });
  const created = await server.call('POST', '/users', {
    token,
    body: { first_name: 'Late', last_name: 'Comer', email },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id, email, token };
}

describeOnEachDatabase('SCIM 2.0 (behaviour §18)', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let organizationId: string;
  let scim: ScimClient;

  beforeAll(async () => {
    owner = await registerUser(server(), 'scim-owner');
    organizationId = await createOrganization(server(), owner);
    scim = scimClient(server(), await organizationKey(server(), owner, organizationId));
  });

  describe('discovery and credentials', () => {
    it('describes what it serves: patch and filter (1000), not bulk, sort, changePassword or etag', async () => {
      const config = await scim.send('GET', '/ServiceProviderConfig');
      expect(config.status).toBe(200);
      expect(config.contentType).toMatch(/^application\/scim\+json/);
      expect(config.body).toMatchObject({
        patch: { supported: true },
        filter: { supported: true, maxResults: 1000 },
        bulk: { supported: false },
        sort: { supported: false },
        changePassword: { supported: false },
        etag: { supported: false },
      });
      const types = await scim.send('GET', '/ResourceTypes');
      expect(types.body.Resources.map((type: { name: string }) => type.name)).toEqual(['User', 'Group']);
      const schemas = await scim.send('GET', '/Schemas');
      const user = schemas.body.Resources.find((schema: { name: string }) => schema.name === 'User');
      expect(user.attributes.find((attribute: { name: string }) => attribute.name === 'userName')).toMatchObject({
        required: true,
        uniqueness: 'server',
      });
      // name.formatted is made of the other two, whatever a client sends (RFC 7643 §7).
      const name = user.attributes.find((attribute: { name: string }) => attribute.name === 'name');
      expect(
        Object.fromEntries(
          name.subAttributes.map((sub: { name: string; mutability: string }) => [sub.name, sub.mutability]),
        ),
      ).toEqual({ givenName: 'readWrite', familyName: 'readWrite', formatted: 'readOnly' });
      // What a User resource holds, no more: a user's groups are not among them (a group names its members).
      expect(user.attributes.map((attribute: { name: string }) => attribute.name)).toEqual([
        'userName',
        'externalId',
        'name',
        'displayName',
        'emails',
        'active',
      ]);
    });

    it('refuses a filter on the discovery endpoints with 403 (RFC 7644 §4), with a key or without', async () => {
      const anonymous = scimClient(server(), undefined);
      for (const path of [
        '/ServiceProviderConfig',
        '/ResourceTypes',
        '/ResourceTypes/User',
        '/Schemas',
        `/Schemas/${encodeURIComponent('urn:ietf:params:scim:schemas:core:2.0:User')}`,
      ]) {
        for (const client of [scim, anonymous]) {
          for (const filter of [encodeURIComponent('id eq "User"'), '']) {
            const answer = await client.send('GET', `${path}?filter=${filter}`);
            expectScimError(answer, 403);
            expect(answer.body.detail).toBe('The discovery endpoints take no filter: they answer all they hold');
          }
          expect((await client.send('GET', path)).status, path).toBe(200);
        }
      }
    });

    it('needs an organization key holding directory:sync: none or an unknown one 401, a member key, a person or an application key 403', async () => {
      expectScimError(await scimClient(server(), undefined).send('GET', '/Users'), 401);
      expectScimError(await scimClient(server(), 'oak_unknown').send('GET', '/Users'), 401);
      const memberKey = await organizationKey(server(), owner, organizationId, 'member');
      expectScimError(await scimClient(server(), memberKey).send('GET', '/Users'), 403);
      expectScimError(await scimClient(server(), owner.token).send('GET', '/Users'), 403);
      // An application key: 403 when it is live, 401 when no such key is (behaviour §16).
      expectScimError(await scimClient(server(), await createApplicationKey(server())).send('GET', '/Users'), 403);
      expectScimError(await scimClient(server(), newKeySecret('application_key')).send('GET', '/Users'), 401);
      expectScimError(
        await scimClient(server(), memberKey).send('POST', '/Users', oktaUser(`${uniqueId('no')}@example.com`)),
        403,
      );
    });

    it('refuses a key of a deleted organization with 401, after it was used, on a read and on a change', async () => {
      const gone = await createOrganization(server(), owner);
      const goneScim = scimClient(server(), await organizationKey(server(), owner, gone));
      expect((await goneScim.send('GET', '/Users')).status).toBe(200);
      expect((await server().call('DELETE', `/organizations/${gone}`, { token: owner.token })).status).toBe(200);
      expectScimError(await goneScim.send('GET', '/Users'), 401);
      expectScimError(await goneScim.send('POST', '/Users', oktaUser(`${uniqueId('gone')}@example.com`)), 401);
    });
  });

  describe('users as Okta provisions them', () => {
    it('looks up, creates (a member at once), reads, replaces and deactivates a user', async () => {
      const person = await registerUser(server(), 'okta');
      const lookup = await scim.send(
        'GET',
        `/Users?filter=${encodeURIComponent(`userName eq "${person.email}"`)}&startIndex=1&count=100`,
      );
      expect(lookup.status).toBe(200);
      expect(lookup.body).toMatchObject({ totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

      const created = await scim.send('POST', '/Users', oktaUser(person.email.toUpperCase()));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({
        userName: person.email.toUpperCase(),
        active: true,
        meta: { resourceType: 'User' },
      });
      expect(created.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      expect(created.body.password).toBeUndefined();
      const id = created.body.id as string;
      expect((await membersOf(server(), owner, organizationId)).find((m) => m.user_id === person.id)?.role).toBe(
        'member',
      );
      const added = (await eventsOf(server(), owner, organizationId)).find(
        (event) => event.type === 'member.added' && event.subject_user_id === person.id,
      );
      expect(added?.data).toEqual({ role: 'member', via: 'scim' });
      expect(added?.actor_key_id).not.toBeNull();

      const found = await scim.send('GET', `/Users?filter=${encodeURIComponent(`userName eq "${person.email}"`)}`);
      expect(found.body.totalResults).toBe(1);
      expect(found.body.Resources[0].id).toBe(id);
      expect((await scim.send('GET', `/Users/${id}`)).body).toEqual(created.body);

      const replaced = await scim.send('PUT', `/Users/${id}`, { ...oktaUser(person.email, 'Anne', 'Leigh'), id });
      expect(replaced.status).toBe(200);
      expect(replaced.body.name).toMatchObject({ givenName: 'Anne', familyName: 'Leigh' });

      const deactivated = await scim.send('PUT', `/Users/${id}`, { ...oktaUser(person.email), id, active: false });
      expect(deactivated.status).toBe(200);
      expect(deactivated.body.active).toBe(false);
      expect((await membersOf(server(), owner, organizationId)).some((m) => m.user_id === person.id)).toBe(false);
      const removed = (await eventsOf(server(), owner, organizationId)).find(
        (event) => event.type === 'member.removed' && event.subject_user_id === person.id,
      );
      expect(removed?.data).toEqual({ role: 'member', via: 'scim' });

      const reactivated = await scim.send('PATCH', `/Users/${id}`, patch({ op: 'replace', value: { active: true } }));
      expect(reactivated.status).toBe(200);
      expect((await membersOf(server(), owner, organizationId)).some((m) => m.user_id === person.id)).toBe(true);
    });

    it('answers a repeated create 409 uniqueness, ignoring case, and 20 parallel creates make one user', async () => {
      const email = `${uniqueId('twice')}@example.com`;
      const answers = await Promise.all(Array.from({ length: 20 }, () => scim.send('POST', '/Users', oktaUser(email))));
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
      for (const answer of answers.filter((one) => one.status !== 201)) expectScimError(answer, 409, 'uniqueness');
      expectScimError(await scim.send('POST', '/Users', oktaUser(email.toUpperCase())), 409, 'uniqueness');
      const found = await scim.send('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
      expect(found.body.totalResults).toBe(1);
    });

    it('never removes the last owner (409 mutability), and DELETE removes a member (204, then 404)', async () => {
      const ownerEntry = await scim.send('POST', '/Users', oktaUser(owner.email));
      expect(ownerEntry.status).toBe(201);
      const refused = await scim.send(
        'PATCH',
        `/Users/${ownerEntry.body.id}`,
        patch({ op: 'replace', path: 'active', value: false }),
      );
      expectScimError(refused, 409, 'mutability');
      expect((await membersOf(server(), owner, organizationId)).find((m) => m.user_id === owner.id)?.role).toBe(
        'owner',
      );
      expectScimError(await scim.send('DELETE', `/Users/${ownerEntry.body.id}`), 409, 'mutability');

      const person = await registerUser(server(), 'deleted');
      const entry = await scim.send('POST', '/Users', oktaUser(person.email));
      expect((await scim.send('DELETE', `/Users/${entry.body.id}`)).status).toBe(204);
      expect((await membersOf(server(), owner, organizationId)).some((m) => m.user_id === person.id)).toBe(false);
      expectScimError(await scim.send('GET', `/Users/${entry.body.id}`), 404);
      expectScimError(await scim.send('DELETE', `/Users/${entry.body.id}`), 404);
    });
  });

  describe('a user’s meta.lastModified (RFC 7643 §3.1)', () => {
    it('moves with every change of what the user holds, and with nothing else', async () => {
      const email = `${uniqueId('modified')}@example.com`;
      const created = await scim.send('POST', '/Users', oktaUser(email));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const path = `/Users/${created.body.id}`;
      const eventCount = async () => (await eventsOf(server(), owner, organizationId)).length;
      let lastModified = created.body.meta.lastModified as string;
      let events = await eventCount();
      const changes: Array<[string, string, object, boolean]> = [
        ['an identical PUT', 'PUT', oktaUser(email), false],
        ['a givenName to its value', 'PATCH', patch({ op: 'replace', path: 'name.givenName', value: 'Ann' }), false],
        ['an attribute not kept', 'PATCH', patch({ op: 'add', path: 'title', value: 'Admiral' }), false],
        [
          "the enterprise extension's manager",
          'PATCH',
          patch({
            op: 'replace',
            path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager',
            value: { value: 'someone' },
          }),
          false,
        ],
        ['id and meta.created', 'PATCH', patch({ op: 'replace', value: { id: 'x', 'meta.created': 'y' } }), false],
        ['active to its value', 'PATCH', patch({ op: 'replace', path: 'active', value: 'True' }), false],
        ['the displayName', 'PATCH', patch({ op: 'replace', path: 'displayName', value: 'Annie Lee' }), true],
        ['the same displayName', 'PATCH', patch({ op: 'replace', value: { displayName: 'Annie Lee' } }), false],
        ['the userName in another case', 'PUT', { ...oktaUser(email.toUpperCase()), displayName: 'Annie Lee' }, true],
        ['deactivated', 'PATCH', patch({ op: 'replace', path: 'active', value: false }), true],
        ['deactivated again', 'PATCH', patch({ op: 'replace', path: 'active', value: false }), false],
      ];
      for (const [change, method, body, changed] of changes) {
        // Timestamps are kept to the millisecond: a change must come in a later one to be seen.
        await new Promise((resolve) => setTimeout(resolve, 5));
        const answer = await scim.send(method, path, body);
        expect(answer.status, `${change}: ${JSON.stringify(answer.body)}`).toBe(200);
        const now = answer.body.meta.lastModified as string;
        if (changed) expect(Date.parse(now), change).toBeGreaterThan(Date.parse(lastModified));
        else expect(now, change).toBe(lastModified);
        expect((await scim.send('GET', path)).body.meta.lastModified, change).toBe(now);
        lastModified = now;
        if (!changed) expect(await eventCount(), change).toBe(events);
        events = await eventCount();
      }
    });
  });

  describe('users as Entra ID provisions them', () => {
    it('takes its PATCH shapes: "False" as a string, no path with dotted names, filtered paths', async () => {
      const person = await registerUser(server(), 'entra');
      const created = await scim.send('POST', '/Users', entraUser(person.email));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.id as string;
      const renamed = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch(
          {
            op: 'Replace',
            value: { displayName: 'Rear Admiral', 'name.givenName': 'Amazing', 'name.familyName': 'Grace' },
          },
          { op: 'Replace', path: 'emails[type eq "work"].value', value: person.email.toUpperCase() },
          { op: 'Add', path: 'title', value: 'Commodore' },
          { op: 'Replace', path: 'externalId', value: 'ghopper' },
        ),
      );
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      expect(renamed.body).toMatchObject({
        displayName: 'Rear Admiral',
        name: { givenName: 'Amazing', familyName: 'Grace' },
        emails: [{ value: person.email.toUpperCase(), type: 'work', primary: true }],
        externalId: 'ghopper',
      });
      // Each attribute alone, as identity providers look a user up: userName and e-mail ignoring case.
      for (const filter of [
        'externalId eq "ghopper"',
        `id eq "${id}"`,
        `userName eq "${person.email.toUpperCase()}"`,
        `emails.value eq "${person.email}"`,
      ]) {
        const found = await scim.send('GET', `/Users?filter=${encodeURIComponent(filter)}`);
        expect(
          found.body.Resources.map((user: { id: string }) => user.id),
          filter,
        ).toEqual([id]);
        expect(found.body.totalResults, filter).toBe(1);
        const past = await scim.send('GET', `/Users?filter=${encodeURIComponent(filter)}&startIndex=2`);
        expect(past.body, filter).toMatchObject({ totalResults: 1, startIndex: 2, itemsPerPage: 0, Resources: [] });
      }
      const byOtherCase = await scim.send('GET', `/Users?filter=${encodeURIComponent('externalId eq "GHOPPER"')}`);
      expect(byOtherCase.body).toMatchObject({ totalResults: 0, Resources: [] });

      const disabled = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'Replace', path: 'active', value: 'False' }),
      );
      expect(disabled.status).toBe(200);
      expect(disabled.body.active).toBe(false);
      expect((await membersOf(server(), owner, organizationId)).some((m) => m.user_id === person.id)).toBe(false);
      const again = await scim.send('PATCH', `/Users/${id}`, patch({ op: 'Replace', path: 'active', value: 'False' }));
      expect(again.status).toBe(200);

      expectScimError(
        await scim.send('PATCH', `/Users/${id}`, patch({ op: 'Replace', path: 'active', value: 'maybe' })),
        400,
        'invalidValue',
      );
      expectScimError(await scim.send('PATCH', `/Users/${id}`, { Operations: [] }), 400, 'invalidValue');
      expectScimError(
        await scim.send(
          'PATCH',
          `/Users/${crypto.randomUUID()}`,
          patch({ op: 'Replace', path: 'active', value: true }),
        ),
        404,
      );
    });

    it('makes a directory user a member when a person with that verified e-mail creates their record', async () => {
      const email = `${uniqueId('later')}@example.com`;
      const created = await scim.send('POST', '/Users', entraUser(email));
      expect(created.status).toBe(201);
      const person = await signUpVerified(server(), email);
      expect((await membersOf(server(), owner, organizationId)).find((m) => m.user_id === person.id)?.role).toBe(
        'member',
      );
    });

    it('answers hostile filters 400 invalidFilter, never 500', async () => {
      for (const filter of [
        'userName co "a"',
        'userName eq',
        '((((userName eq "a"',
        'userName eq "a" and',
        'password eq "x"',
        'userName eq 42',
        'not (userName eq "a")',
        'userName pr',
        `${'('.repeat(900)}userName eq "a"${')'.repeat(899)}`,
        'userName eq "a" or '.repeat(200) + 'userName eq "b"',
        'x'.repeat(5000),
        '"\u0000"',
        'emails[type eq "work"]',
      ]) {
        const answer = await scim.send('GET', `/Users?filter=${encodeURIComponent(filter)}`);
        expectScimError(answer, 400, 'invalidFilter');
        // The service's words, never the parser's tokens.
        expect(answer.body.detail, filter).toMatch(/^Invalid filter: /);
        expect(answer.body.detail, filter).not.toMatch(/EOT|is not json|\((Word|Quoted|Bracket|Number)\)|token/i);
      }
      const value = 'expected a value (a quoted string, a number, true, false or null)';
      for (const [filter, detail] of [
        ['userName eq', `${value} after position 11, found the end`],
        ['userName eq ann', `${value} at position 13, found "ann"`],
        ['userName eq "a" and', 'it ends too soon, after position 19'],
        ['userName eq "a")', '")" at position 16 is not expected there'],
        ["userName eq 'a'", `"'a'" at position 13 is no part of a filter`],
      ] as const) {
        const answer = await scim.send('GET', `/Users?filter=${encodeURIComponent(filter)}`);
        expect(answer.body.detail, filter).toBe(`Invalid filter: ${detail}`);
      }
      expectScimError(
        await scim.send('GET', `/Groups?filter=${encodeURIComponent('members eq "x"')}`),
        400,
        'invalidFilter',
      );
      const nested = `${'('.repeat(900)}userName eq "a"${')'.repeat(900)}`;
      expect((await scim.send('GET', `/Users?filter=${encodeURIComponent(nested)}`)).status).toBe(200);
    });

    it('reads a filter’s strings as JSON strings (RFC 7644 §3.4.2.2), and refuses one JSON refuses with 400 invalidFilter', async () => {
      const tag = uniqueId('json');
      const created = await scim.send('POST', '/Users', {
        ...entraUser(`Abc-${tag}@example.com`),
        externalId: `a"b\\c-${tag}`,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const group = await scim.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: `Quoted "${tag}"` });
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      const found = async (resources: string, filter: string) => {
        const answer = await scim.send('GET', `/${resources}?filter=${encodeURIComponent(filter)}`);
        expect(answer.status, `${filter}: ${JSON.stringify(answer.body)}`).toBe(200);
        return answer.body.Resources.map((resource: { id: string }) => resource.id);
      };
      // As the filter reads (String.raw): \u0041 is A, \" a quote, \\ one backslash.
      for (const filter of [
        String.raw`userName eq "\u0041bc-${tag}@example.com"`,
        String.raw`externalId eq "a\"b\\c-${tag}"`,
        String.raw`externalId eq "a\u0022b\u005cc-${tag}" and userName eq "abc-${tag}@example.com"`,
      ]) {
        expect(await found('Users', filter), filter).toEqual([created.body.id]);
      }
      expect(await found('Groups', String.raw`displayName eq "Quoted \"${tag}\""`)).toEqual([group.body.id]);
      expect(await found('Groups', String.raw`displayName eq "Quoted \u0022${tag}\u0022"`)).toEqual([group.body.id]);

      const escapes = String.raw`\" \\ \/ \b \f \n \r \t, or \u and four hexadecimal digits`;
      for (const [resources, filter, detail] of [
        [
          'Users',
          String.raw`userName eq "a\x"`,
          String.raw`the escape \x at position 15 is not one of a JSON string: ${escapes}`,
        ],
        [
          'Users',
          String.raw`userName eq "\u00G1"`,
          String.raw`the escape \u00G1 at position 14 is not one of a JSON string: ${escapes}`,
        ],
        [
          'Users',
          'userName eq "a\tb"',
          'the string at position 13 holds a control character at position 15, which a JSON string escapes',
        ],
        [
          'Users',
          String.raw`userName eq "\ud800"`,
          'the string at position 13 is not well-formed Unicode text (a lone surrogate)',
        ],
        [
          'Groups',
          String.raw`displayName eq "\q"`,
          String.raw`the escape \q at position 17 is not one of a JSON string: ${escapes}`,
        ],
      ] as const) {
        const answer = await scim.send('GET', `/${resources}?filter=${encodeURIComponent(filter)}`);
        expectScimError(answer, 400, 'invalidFilter');
        expect(answer.body.detail, filter).toBe(`Invalid filter: ${detail}`);
      }
    });

    it('pages with startIndex and count', async () => {
      const prefix = uniqueId('page');
      for (let index = 0; index < 5; index++) {
        expect((await scim.send('POST', '/Users', oktaUser(`${prefix}-${index}@example.com`))).status).toBe(201);
      }
      const filter = encodeURIComponent(
        Array.from({ length: 5 }, (_, index) => `userName eq "${prefix}-${index}@example.com"`).join(' or '),
      );
      const page = await scim.send('GET', `/Users?filter=${filter}&startIndex=2&count=2`);
      expect(page.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
      expect(page.body.Resources.map((user: { userName: string }) => user.userName)).toEqual([
        `${prefix}-1@example.com`,
        `${prefix}-2@example.com`,
      ]);
      const none = await scim.send('GET', `/Users?filter=${filter}&count=0`);
      expect(none.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
      // The last page, not full, and a page past the end: the total is the same.
      const last = await scim.send('GET', `/Users?filter=${filter}&startIndex=4&count=10`);
      expect(last.body).toMatchObject({ totalResults: 5, startIndex: 4, itemsPerPage: 2 });
      const past = await scim.send('GET', `/Users?filter=${filter}&startIndex=9&count=10`);
      expect(past.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
      // Any integer (RFC 7644 §3.4.2.4), however many digits: a huge startIndex is past the end, a
      // huge count the most a page holds, a negative one none, a startIndex below 1 the first.
      const huge = '9'.repeat(40);
      const far = await scim.send('GET', `/Users?filter=${filter}&startIndex=1000000000`);
      expect(far.body).toMatchObject({ totalResults: 5, startIndex: 1000000000, itemsPerPage: 0, Resources: [] });
      const farther = await scim.send('GET', `/Users?filter=${filter}&startIndex=${huge}&count=${huge}`);
      expect(farther.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
      const noGroups = await scim.send('GET', `/Groups?startIndex=${huge}&count=${huge}`);
      expect(noGroups.body).toMatchObject({ itemsPerPage: 0, Resources: [] });
      const all = await scim.send('GET', `/Users?filter=${filter}&count=${huge}`);
      expect(all.body).toMatchObject({ totalResults: 5, startIndex: 1, itemsPerPage: 5 });
      const first = await scim.send('GET', `/Users?filter=${filter}&startIndex=-${huge}&count=-${huge}`);
      expect(first.body).toMatchObject({ totalResults: 5, startIndex: 1, itemsPerPage: 0, Resources: [] });
      for (const query of ['count=ten', 'count=1.5', 'startIndex=1e3', 'startIndex=0x10', 'count=%2B5']) {
        const refused = await scim.send('GET', `/Users?${query}`);
        expectScimError(refused, 400, 'invalidValue');
        expect(refused.body.detail).toMatch(/^(count|startIndex) must be an integer$/);
      }
    });
  });

  describe('groups are teams', () => {
    let people: TestUser[];
    let ids: string[];

    beforeAll(async () => {
      people = [];
      ids = [];
      for (let index = 0; index < 22; index++) {
        const person = await registerUser(server(), `grp${index}`);
        const entry = await scim.send('POST', '/Users', oktaUser(person.email));
        expect(entry.status).toBe(201);
        people.push(person);
        ids.push(entry.body.id);
      }
    });

    it('creates, finds, patches (Okta and Entra shapes), replaces and deletes a group', async () => {
      const name = uniqueId('Engineering');
      const created = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: name,
        externalId: 'okta-grp-1',
        members: [{ value: ids[0] }],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const teamId = created.body.id as string;
      expect(await teamMembers(server(), owner, organizationId, teamId)).toEqual([people[0]!.id]);

      const found = await scim.send(
        'GET',
        `/Groups?filter=${encodeURIComponent(`displayName eq "${name.toUpperCase()}"`)}&excludedAttributes=members`,
      );
      expect(found.body.totalResults).toBe(1);
      expect(found.body.Resources[0].members).toBeUndefined();

      // Entra ID: add by a value list; Okta: remove by a filtered path; both again (they converge).
      const add = patch({ op: 'Add', path: 'members', value: [{ value: ids[1] }, { value: ids[2] }] });
      expect((await scim.send('PATCH', `/Groups/${teamId}`, add)).status).toBe(204);
      expect((await scim.send('PATCH', `/Groups/${teamId}`, add)).status).toBe(204);
      const remove = patch({ op: 'remove', path: `members[value eq "${ids[0]}"]` });
      expect((await scim.send('PATCH', `/Groups/${teamId}`, remove)).status).toBe(204);
      expect((await scim.send('PATCH', `/Groups/${teamId}`, remove)).status).toBe(204);
      const entraRemove = patch({ op: 'Remove', path: 'members', value: [{ value: ids[2] }] });
      expect((await scim.send('PATCH', `/Groups/${teamId}`, entraRemove)).status).toBe(204);
      expect(await teamMembers(server(), owner, organizationId, teamId)).toEqual([people[1]!.id]);

      const rename = patch({ op: 'Replace', path: 'displayName', value: `${name} renamed` });
      expect((await scim.send('PATCH', `/Groups/${teamId}`, rename)).status).toBe(204);
      const group = await scim.send('GET', `/Groups/${teamId}`);
      expect(group.body).toMatchObject({ displayName: `${name} renamed`, externalId: 'okta-grp-1' });
      expect(group.body.members.map((member: { value: string }) => member.value)).toEqual([ids[1]]);

      const replaced = await scim.send('PUT', `/Groups/${teamId}`, {
        schemas: [GROUP_SCHEMA],
        displayName: name,
        members: [{ value: ids[3] }, { value: ids[4] }],
      });
      expect(replaced.status).toBe(200);
      expect(await teamMembers(server(), owner, organizationId, teamId)).toEqual([people[3]!.id, people[4]!.id].sort());

      expectScimError(
        await scim.send(
          'PATCH',
          `/Groups/${teamId}`,
          patch({ op: 'add', path: 'members', value: [{ value: crypto.randomUUID() }] }),
        ),
        400,
        'invalidValue',
      );
      expectScimError(
        await scim.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: name.toLowerCase() }),
        409,
        'uniqueness',
      );
      const events = await eventsOf(server(), owner, organizationId);
      expect(events.find((event) => event.type === 'team.created' && event.data.team_id === teamId)?.data.via).toBe(
        'scim',
      );

      expect((await scim.send('DELETE', `/Groups/${teamId}`)).status).toBe(204);
      expectScimError(await scim.send('GET', `/Groups/${teamId}`), 404);
      expect(
        (await server().call('GET', `/organizations/${organizationId}/teams/${teamId}`, { token: owner.token })).status,
      ).toBe(404);
    });

    it('loses no member to 20 concurrent PATCHes of one group', async () => {
      const created = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: uniqueId('Parallel'),
      });
      const teamId = created.body.id as string;
      const answers = await Promise.all(
        ids
          .slice(0, 20)
          .map((id) =>
            scim.send('PATCH', `/Groups/${teamId}`, patch({ op: 'Add', path: 'members', value: [{ value: id }] })),
          ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(204));
      expect(await teamMembers(server(), owner, organizationId, teamId)).toEqual(
        people
          .slice(0, 20)
          .map((p) => p.id)
          .sort(),
      );
      const removals = await Promise.all(
        ids
          .slice(0, 10)
          .flatMap((id) =>
            [0, 1].map(() =>
              scim.send('PATCH', `/Groups/${teamId}`, patch({ op: 'remove', path: `members[value eq "${id}"]` })),
            ),
          ),
      );
      expect(removals.every((answer) => answer.status === 204)).toBe(true);
      expect(await teamMembers(server(), owner, organizationId, teamId)).toEqual(
        people
          .slice(10, 20)
          .map((p) => p.id)
          .sort(),
      );
    });

    it('moves meta.lastModified with every change of the group: members, externalId, name (RFC 7643 §3.1)', async () => {
      const [first, second] = await Promise.all(
        ['first', 'second'].map(async (name) => {
          const entry = await scim.send('POST', '/Users', oktaUser(`${uniqueId(name)}@example.com`));
          expect(entry.status, JSON.stringify(entry.body)).toBe(201);
          return entry.body.id as string;
        }),
      );
      const name = uniqueId('Modified');
      const created = await scim.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: name });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const path = `/Groups/${created.body.id}`;
      let lastModified = Date.parse(created.body.meta.lastModified);
      const expectModified = async (change: string, changed: boolean) => {
        const now = Date.parse((await scim.send('GET', path)).body.meta.lastModified);
        if (changed) expect(now, change).toBeGreaterThan(lastModified);
        else expect(now, change).toBe(lastModified);
        lastModified = now;
      };
      const changes: Array<[string, string, object, boolean]> = [
        ['a member added', 'PATCH', patch({ op: 'add', path: 'members', value: [{ value: first }] }), true],
        ['the same member again', 'PATCH', patch({ op: 'add', path: 'members', value: [{ value: first }] }), false],
        ['the externalId', 'PATCH', patch({ op: 'replace', path: 'externalId', value: 'grp-42' }), true],
        ['the same externalId', 'PATCH', patch({ op: 'replace', path: 'externalId', value: 'grp-42' }), false],
        [
          'the members replaced',
          'PUT',
          { schemas: [GROUP_SCHEMA], displayName: name, externalId: 'grp-42', members: [{ value: second }] },
          true,
        ],
        ['a member removed', 'PATCH', patch({ op: 'remove', path: `members[value eq "${second}"]` }), true],
        ['the name', 'PATCH', patch({ op: 'replace', path: 'displayName', value: `${name} 2` }), true],
      ];
      for (const [change, method, body, changed] of changes) {
        // Timestamps are kept to the millisecond: a change must come in a later one to be seen.
        await new Promise((resolve) => setTimeout(resolve, 5));
        const answer = await scim.send(method, path, body);
        expect(answer.status, `${change}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
        await expectModified(change, changed);
      }
      const team = await server().call('GET', `/organizations/${organizationId}/teams/${created.body.id}`, {
        token: owner.token,
      });
      expect(Date.parse(team.body.updated_at)).toBe(lastModified);
      // A member's directory user deleted: the group lost a member.
      for (const [change, method, target, body] of [
        ['a member added again', 'PATCH', path, patch({ op: 'add', path: 'members', value: [{ value: first }] })],
        ["a member's user deleted", 'DELETE', `/Users/${first}`, undefined],
      ] as const) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect((await scim.send(method, target, body)).status, change).toBeLessThan(300);
        await expectModified(change, true);
      }
      expect((await scim.send('GET', path)).body.members ?? []).toEqual([]);
    });

    it('takes a deactivated member out of the team and puts them back on reactivation', async () => {
      const created = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: uniqueId('Comeback'),
        members: [{ value: ids[21] }],
      });
      const teamId = created.body.id as string;
      expect(await teamMembers(server(), owner, organizationId, teamId)).toEqual([people[21]!.id]);
      await scim.send('PATCH', `/Users/${ids[21]}`, patch({ op: 'replace', path: 'active', value: false }));
      expect(await teamMembers(server(), owner, organizationId, teamId)).toEqual([]);
      await scim.send('PATCH', `/Users/${ids[21]}`, patch({ op: 'replace', path: 'active', value: true }));
      expect(await teamMembers(server(), owner, organizationId, teamId)).toEqual([people[21]!.id]);
    });
  });

  describe('seat limits', () => {
    it('refuses a provisioning past max_members with 409 and MEMBER_LIMIT in the detail', async () => {
      const client = await clientOfLimitedOrganization(server(), 2);
      const first = await registerUser(server(), 'seat');
      expect((await client.send('POST', '/Users', oktaUser(first.email))).status).toBe(201);
      const second = await registerUser(server(), 'seat');
      const refused = await client.send('POST', '/Users', oktaUser(second.email));
      expectScimError(refused, 409);
      expect(refused.body.detail).toMatch(/^MEMBER_LIMIT/);
      // A directory user without a record takes no seat.
      expect((await client.send('POST', '/Users', oktaUser(`${uniqueId('nobody')}@example.com`))).status).toBe(201);
    });
  });
});
