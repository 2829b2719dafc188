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
  GROUP_SCHEMA,
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

  const newUser = async (body: object = entraUser(`${uniqueId('patched')}@example.com`)) => {
    const created = await scim.send('POST', '/Users', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };

  describe('names a client writes never reach a prototype', () => {
    // Were the service's prototype polluted, the test's would be too (the service runs in-process).
    afterEach(() => {
      delete (Object.prototype as Record<string, unknown>).externalId;
    });

    it.each<[string, object, 200 | 'invalidPath' | 'invalidValue']>([
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

  describe('attribute names ignore case and may carry the core schema (RFC 7643 §2.1, RFC 7644 §3.10)', () => {
    it.each([
      ['path "Active"', { op: 'Replace', path: 'Active', value: 'False' }],
      ['a URN path', { op: 'replace', path: `${USER_SCHEMA}:active`, value: false }],
      ['a URN path in another case', { op: 'replace', path: `${USER_SCHEMA.toUpperCase()}:ACTIVE`, value: false }],
      ['a path-less "Active"', { op: 'Replace', value: { Active: 'False' } }],
      ['a path-less URN key', { op: 'replace', value: { [`${USER_SCHEMA}:active`]: false } }],
    ])('deactivates through %s', async (_, op) => {
      const id = await newUser();
      const answer = await scim.send('PATCH', `/Users/${id}`, patch(op));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.active).toBe(false);
      expect((await scim.send('GET', `/Users/${id}`)).body.active).toBe(false);
    });

    it('renames through DisplayName, a URN sub-attribute path and sub-attribute names in any case', async () => {
      const id = await newUser();
      const answer = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch(
          { op: 'replace', path: 'DisplayName', value: 'Amazing Grace' },
          { op: 'replace', path: `${USER_SCHEMA}:name.givenName`, value: 'Amazing' },
          { op: 'replace', path: 'NAME.FAMILYNAME', value: 'Hopper-Murray' },
          { op: 'replace', path: 'Emails[Type eq "work"].Value', value: 'ag@example.com' },
          { op: 'add', value: { EXTERNALID: 'grace-1' } },
        ),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toMatchObject({
        displayName: 'Amazing Grace',
        name: { givenName: 'Amazing', familyName: 'Hopper-Murray' },
        emails: [{ value: 'ag@example.com', type: 'work', primary: true }],
        externalId: 'grace-1',
      });
    });

    it('applies a path-less key with a value filter as the path form does', async () => {
      const id = await newUser();
      const answer = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'Replace', value: { 'emails[type eq "work"].value': 'filtered@example.com' } }),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.emails).toEqual([{ value: 'filtered@example.com', type: 'work', primary: true }]);
    });

    it('reads a POST and a PUT body in any case: "Active": false is kept', async () => {
      const email = `${uniqueId('cased')}@example.com`;
      const created = await scim.send('POST', '/Users', {
        schemas: [USER_SCHEMA],
        UserName: email,
        Active: false,
        Name: { GivenName: 'Ann', FAMILYNAME: 'Lee' },
        [`${USER_SCHEMA}:displayName`]: 'Ann Lee',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({
        userName: email,
        active: false,
        name: { givenName: 'Ann', familyName: 'Lee' },
        displayName: 'Ann Lee',
      });
      const replaced = await scim.send('PUT', `/Users/${created.body.id}`, {
        schemas: [USER_SCHEMA],
        USERNAME: email,
        ACTIVE: 'true',
      });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect(replaced.body.active).toBe(true);
    });

    it('renames a group through a URN path and adds members in any case', async () => {
      const member = await newUser();
      const name = uniqueId('Cased');
      const created = await scim.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], DisplayName: name });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const changed = await scim.send(
        'PATCH',
        `/Groups/${created.body.id}`,
        patch(
          { op: 'Replace', path: `${GROUP_SCHEMA}:displayName`, value: `${name} renamed` },
          { op: 'Add', path: 'Members', value: [{ Value: member }] },
        ),
      );
      expect(changed.status, JSON.stringify(changed.body)).toBe(204);
      const group = await scim.send('GET', `/Groups/${created.body.id}`);
      expect(group.body.displayName).toBe(`${name} renamed`);
      expect(group.body.members.map((one: { value: string }) => one.value)).toEqual([member]);
    });
  });

  describe('sub-attributes a change does not name are left as they are (RFC 7644 §3.5.2.1, §3.5.2.3)', () => {
    it.each([
      ['a dotted key without path', { op: 'Replace', value: { 'name.familyName': 'Murray' } }],
      ['a complex value without path', { op: 'replace', value: { name: { familyName: 'Murray' } } }],
      ['a complex value with path', { op: 'replace', path: 'name', value: { familyName: 'Murray' } }],
      ['an add without path', { op: 'add', value: { name: { familyName: 'Murray' } } }],
    ])('through %s', async (_, op) => {
      const id = await newUser();
      const answer = await scim.send('PATCH', `/Users/${id}`, patch(op));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.name).toMatchObject({ givenName: 'Grace', familyName: 'Murray' });
    });
  });

  describe('name.formatted is read-only (RFC 7643 §7): made of the given and family names', () => {
    it('ignores one sent in a POST, a PUT or a PATCH', async () => {
      const email = `${uniqueId('formatted')}@example.com`;
      const created = await scim.send('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName: email,
        name: { formatted: 'Dr. Ann Lee', givenName: 'Ann', familyName: 'Lee' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.name).toEqual({ givenName: 'Ann', familyName: 'Lee', formatted: 'Ann Lee' });
      const path = `/Users/${created.body.id}`;
      const replaced = await scim.send('PUT', path, {
        schemas: [USER_SCHEMA],
        userName: email,
        name: { formatted: 'Prof. Ann Lee', givenName: 'Ann', familyName: 'Lee' },
      });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      for (const op of [
        { op: 'replace', path: 'name.formatted', value: 'Ms. Ann Lee' },
        { op: 'Replace', value: { 'name.formatted': 'Ms. Ann Lee' } },
        { op: 'replace', path: 'name', value: { formatted: 'Ms. Ann Lee' } },
      ]) {
        const answer = await scim.send('PATCH', path, patch(op));
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body).toEqual(created.body);
      }
    });
  });

  describe('what a PATCH targets (RFC 7644 §3.5.2)', () => {
    it('refuses a remove without a path with 400 noTarget, for a User and a Group, and changes nothing', async () => {
      const id = await newUser();
      const before = (await scim.send('GET', `/Users/${id}`)).body;
      const group = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: uniqueId('Targets'),
        externalId: 'targets-1',
        members: [{ value: id }],
      });
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      for (const op of [
        { op: 'remove' },
        { op: 'Remove', value: { externalId: 'x' } },
        { op: 'remove', value: [{ value: id }] },
      ]) {
        for (const path of [`/Users/${id}`, `/Groups/${group.body.id}`]) {
          const answer = await scim.send('PATCH', path, patch({ op: 'replace', path: 'externalId', value: 'y' }, op));
          expectScimError(answer, 400, 'noTarget');
          expect(answer.body.detail).toBe('A remove needs a path that names what to remove');
        }
      }
      expect((await scim.send('GET', `/Users/${id}`)).body).toEqual(before);
      expect((await scim.send('GET', `/Groups/${group.body.id}`)).body).toEqual(group.body);
    });

    it('adds the value of a replace whose value filter matches nothing, as Entra ID expects', async () => {
      const id = await newUser();
      const answer = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'replace', path: 'emails[type eq "home"].value', value: 'home@example.com' }),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.emails).toEqual([
        expect.objectContaining({ type: 'work', primary: true }),
        { value: 'home@example.com', type: 'home' },
      ]);
    });
  });

  describe('a path’s value filter reads its strings as JSON strings (RFC 7644 §3.4.2.2)', () => {
    const typed = (email: string) => ({
      ...entraUser(email),
      emails: [
        { value: email, type: 'work', primary: true },
        { value: 'b@example.com', type: String.raw`a\b` },
        { value: 'c@example.com', type: 'x:y.z' },
      ],
    });

    it('changes the value whose type the filter names, escaped or not, and adds the one it names when none matches', async () => {
      const email = `${uniqueId('escaped')}@example.com`;
      const id = await newUser(typed(email));
      const answer = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch(
          { op: 'replace', path: String.raw`emails[type eq "a\\b"].value`, value: 'b2@example.com' },
          { op: 'replace', path: String.raw`emails[type eq "\u0078:y.z"].value`, value: 'c2@example.com' },
          { op: 'replace', path: String.raw`emails[type eq "h\u006Fme"].value`, value: 'home@example.com' },
        ),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.emails).toEqual([
        { value: email, type: 'work', primary: true },
        { value: 'b2@example.com', type: String.raw`a\b` },
        { value: 'c2@example.com', type: 'x:y.z' },
        { value: 'home@example.com', type: 'home' },
      ]);
      const removed = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'remove', path: String.raw`emails[type eq "a\u005cb" or type eq "\u0068ome"]` }),
      );
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      expect(removed.body.emails).toEqual([
        { value: email, type: 'work', primary: true },
        { value: 'c2@example.com', type: 'x:y.z' },
      ]);
    });

    it('refuses an escape JSON has not with 400 invalidPath, and changes nothing', async () => {
      const id = await newUser(typed(`${uniqueId('unescaped')}@example.com`));
      const before = (await scim.send('GET', `/Users/${id}`)).body;
      const path = String.raw`emails[type eq "\x"].value`;
      const answer = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'replace', path: 'externalId', value: 'changed' }, { op: 'replace', path, value: 'x@example.com' }),
      );
      expectScimError(answer, 400, 'invalidPath');
      expect(answer.body.detail).toBe(
        String.raw`${path}: the filter in [ ]: the escape \x at position 10 is not one of a JSON string: \" \\ \/ \b \f \n \r \t, or \u and four hexadecimal digits`,
      );
      expect((await scim.send('GET', `/Users/${id}`)).body).toEqual(before);
    });
  });

  describe('a removal that finds nothing changes nothing (behaviour §18)', () => {
    it('answers a User PATCH 200 with the user as they were, meta.lastModified included', async () => {
      const id = await newUser();
      const bare = await newUser({ ...entraUser(`${uniqueId('no-emails')}@example.com`), emails: undefined });
      for (const [user, path] of [
        [id, 'emails[type eq "zz"].value'],
        [id, 'emails[type eq "zz"]'],
        [id, 'emails[type eq "zz" and primary eq true].type'],
        [bare, 'emails[type eq "work"].value'],
        [bare, 'emails[type eq "work"]'],
      ]) {
        const before = (await scim.send('GET', `/Users/${user}`)).body;
        const answer = await scim.send('PATCH', `/Users/${user}`, patch({ op: 'remove', path }));
        expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
        expect(answer.body, path).toEqual(before);
        expect((await scim.send('GET', `/Users/${user}`)).body, path).toEqual(before);
      }
    });

    it('answers a Group PATCH 204 and leaves the group as it was', async () => {
      const member = await newUser();
      const group = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: uniqueId('Finds nothing'),
        members: [{ value: member }],
      });
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      for (const path of ['members[value eq "zz"].display', 'members[value eq "zz"]']) {
        const answer = await scim.send('PATCH', `/Groups/${group.body.id}`, patch({ op: 'remove', path }));
        expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(204);
        expect((await scim.send('GET', `/Groups/${group.body.id}`)).body, path).toEqual(group.body);
      }
    });
  });

  describe('refusals are in the service’s words, never a library’s', () => {
    it.each<[string, object, string, string]>([
      [
        'a replace whose value filter selects nothing and names no sub-attribute',
        { op: 'replace', path: 'emails[type eq "qq"]', value: { value: 'q@example.com' } },
        'noTarget',
        'emails[type eq "qq"]: no value matches the filter, and none can be made from it',
      ],
      ['an add without a value', { op: 'add', path: 'externalId' }, 'invalidValue', 'externalId: an add needs a value'],
      [
        'a remove with a value of what is no list',
        { op: 'remove', path: 'externalId', value: 'x' },
        'invalidValue',
        "externalId is not a list: a remove's value names values to take out of one",
      ],
      [
        'an active that is no boolean',
        { op: 'replace', path: 'active', value: 5 },
        'invalidValue',
        'active: Must be true or false, or the string "True" or "False"',
      ],
    ])('%s', async (_, operation, scimType, detail) => {
      const id = await newUser();
      const before = (await scim.send('GET', `/Users/${id}`)).body;
      const answer = await scim.send('PATCH', `/Users/${id}`, patch(operation));
      expectScimError(answer, 400, scimType);
      expect(answer.body.detail).toBe(detail);
      expect((await scim.send('GET', `/Users/${id}`)).body).toEqual(before);
    });
  });

  describe('null is unassigned (RFC 7643 §2.5): an add or replace of null clears, as a remove does', () => {
    // A name with no part left is left out (RFC 7643 §2.5), as is each part it has not.
    const cleared = { name: undefined, emails: [] };
    it.each<[string, object, Record<string, unknown>]>([
      ['replace name', { op: 'replace', path: 'name', value: null }, { name: undefined }],
      ['add name', { op: 'add', path: 'name', value: null }, { name: undefined }],
      ['replace emails', { op: 'replace', path: 'emails', value: null }, { emails: [] }],
      ['add emails', { op: 'Add', path: 'emails', value: null }, { emails: [] }],
      ['replace a filtered path', { op: 'replace', path: 'emails[type eq "work"]', value: null }, { emails: [] }],
      ['a path-less emails', { op: 'Replace', value: { emails: null } }, { emails: [] }],
      ['a path-less name and emails', { op: 'add', value: { name: null, emails: null } }, cleared],
      [
        'replace a sub-attribute',
        { op: 'replace', path: 'name.givenName', value: null },
        { name: { familyName: 'Hopper', formatted: 'Hopper' } },
      ],
    ])('%s: 200, the attribute cleared', async (_, op, expected) => {
      const id = await newUser();
      const answer = await scim.send('PATCH', `/Users/${id}`, patch(op));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const read = (await scim.send('GET', `/Users/${id}`)).body;
      for (const [attribute, value] of Object.entries(expected)) {
        expect(answer.body[attribute], attribute).toEqual(value);
        expect(read[attribute], attribute).toEqual(value);
      }
    });

    it('clears externalId and displayName, and refuses to clear userName (required) with 400 invalidValue', async () => {
      const id = await newUser();
      const answer = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'replace', path: 'externalId', value: null }, { op: 'replace', value: { displayName: null } }),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.externalId).toBeUndefined();
      expect(answer.body.displayName).toBeUndefined();
      const before = (await scim.send('GET', `/Users/${id}`)).body;
      for (const op of [
        { op: 'replace', path: 'userName', value: null },
        { op: 'Replace', value: { userName: null } },
      ]) {
        expectScimError(await scim.send('PATCH', `/Users/${id}`, patch(op)), 400, 'invalidValue');
      }
      expect((await scim.send('GET', `/Users/${id}`)).body).toEqual(before);
    });

    it('clears a group’s members and externalId, and refuses to clear its displayName', async () => {
      const member = await newUser();
      const created = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: uniqueId('Nulls'),
        externalId: 'nulls-1',
        members: [{ value: member }],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const path = `/Groups/${created.body.id}`;
      expectScimError(
        await scim.send('PATCH', path, patch({ op: 'replace', path: 'displayName', value: null })),
        400,
        'invalidValue',
      );
      const answer = await scim.send(
        'PATCH',
        path,
        patch({ op: 'replace', path: 'members', value: null }, { op: 'replace', value: { externalId: null } }),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(204);
      const group = (await scim.send('GET', path)).body;
      expect(group.displayName).toBe(created.body.displayName);
      expect(group.members).toEqual([]);
      expect(group.externalId).toBeUndefined();
    });
  });

  describe('a value that does not fit is 400, never 500, and says nothing of the service’s insides', () => {
    const values = [
      null,
      [null],
      [[]],
      [[{ value: 'a@example.com' }]],
      {},
      [{}],
      true,
      0,
      'x',
      ['x'],
      { value: null },
      [{ value: null }],
      { givenName: ['x'] },
    ];
    const expectFit = (answer: { status: number; body: any }, success: number, what: string) => {
      if (answer.status === success) return;
      expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(['invalidValue', 'invalidPath', 'noTarget'], what).toContain(answer.body.scimType);
      expect(answer.body.detail, what).not.toMatch(
        /Error\b|Cannot (read|convert|set)|is not (a function|iterable)|\bat \S+ \(/,
      );
    };

    it.each([
      'name',
      'name.givenName',
      'emails',
      'emails[type eq "work"]',
      'emails[type eq "work"].value',
      'displayName',
      'externalId',
      'active',
      'userName',
      '',
    ])('a User, path %j', async (path) => {
      const id = await newUser();
      for (const op of ['add', 'replace', 'remove']) {
        for (const value of values) {
          const operation = path === '' ? { op, value: { name: value, emails: value } } : { op, path, value };
          const what = JSON.stringify(operation);
          expectFit(await scim.send('PATCH', `/Users/${id}`, patch(operation)), 200, what);
        }
      }
    });

    it('a value that is no object for a complex attribute, which a later operation would go into', async () => {
      const id = await newUser();
      const answer = await scim.send(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'replace', path: 'name', value: 'x' }, { op: 'replace', path: 'name.givenName', value: 'y' }),
      );
      expectScimError(answer, 400, 'invalidValue');
      expect(answer.body.detail).toMatch(/^name: Must be an object/);
    });

    it.each(['members', 'members[value eq "x"]', 'displayName', 'externalId', ''])('a Group, path %j', async (path) => {
      const member = await newUser();
      const created = await scim.send('POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: uniqueId('Fits'),
        members: [{ value: member }],
      });
      for (const op of ['add', 'replace', 'remove']) {
        for (const value of values) {
          const operation = path === '' ? { op, value: { members: value, externalId: value } } : { op, path, value };
          const what = JSON.stringify(operation);
          expectFit(await scim.send('PATCH', `/Groups/${created.body.id}`, patch(operation)), 204, what);
        }
      }
    });
  });

  describe('a list where a single value goes is 400 invalidValue, as in a POST', () => {
    it.each([
      ['a path', { op: 'replace', path: 'name', value: [{ givenName: 'New' }] }],
      ['an add', { op: 'add', path: 'name', value: [{ givenName: 'New' }] }],
      ['no path', { op: 'replace', value: { name: [{ givenName: 'New' }] } }],
      ['a URN path', { op: 'replace', path: `${USER_SCHEMA}:name`, value: [{ givenName: 'New' }] }],
    ])('a list for name through %s', async (_, op) => {
      const id = await newUser();
      expectScimError(await scim.send('PATCH', `/Users/${id}`, patch(op)), 400, 'invalidValue');
      expect((await scim.send('GET', `/Users/${id}`)).body.name).toMatchObject({ givenName: 'Grace' });
    });

    it('a list for name in a POST', async () => {
      const body = { ...entraUser(`${uniqueId('listed')}@example.com`), name: [{ givenName: 'New' }] };
      expectScimError(await scim.send('POST', '/Users', body), 400, 'invalidValue');
    });
  });

  describe('a path that does not parse is 400 invalidPath (RFC 7644 §3.12)', () => {
    it('tells what is wrong with a filter in a path in the service’s words', async () => {
      const id = await newUser();
      for (const [path, detail] of [
        [
          'emails[type eq ]',
          'emails[type eq ]: the filter in [ ]: expected a value (a quoted string, a number, true, false or null) after position 7, found the end',
        ],
        [
          'emails[type eq work]',
          'emails[type eq work]: the filter in [ ]: expected a value (a quoted string, a number, true, false or null) at position 9, found "work"',
        ],
      ]) {
        const answer = await scim.send('PATCH', `/Users/${id}`, patch({ op: 'replace', path, value: 'x' }));
        expectScimError(answer, 400, 'invalidPath');
        expect(answer.body.detail).toBe(detail);
      }
    });

    it.each(['emails[type eq', 'emails[type eq "work"', 'emails[type eq ]', 'name.givenName.first', 'active.value'])(
      'a User path %s',
      async (path) => {
        const id = await newUser();
        expectScimError(
          await scim.send('PATCH', `/Users/${id}`, patch({ op: 'replace', path, value: 'x' })),
          400,
          'invalidPath',
        );
      },
    );

    it('a Group path members[value eq "zzz"', async () => {
      const created = await scim.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: uniqueId('Paths') });
      expectScimError(
        await scim.send('PATCH', `/Groups/${created.body.id}`, patch({ op: 'remove', path: 'members[value eq "zzz"' })),
        400,
        'invalidPath',
      );
    });
  });
});
