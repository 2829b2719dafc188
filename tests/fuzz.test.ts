/**
 * Property-based hostile input (fast-check) over every REST endpoint's body, headers and path: no
 * 5xx, the error body keeps its shape, and a rejected request changes nothing in the database.
 */
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';

const RUNS = 40;
const printable = (max: number) => fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${max}}$`));

const ENDPOINTS: Array<[string, string]> = [
  ['POST', '/users'],
  ['GET', '/api/users'],
  ['PUT', '/users'],
  ['GET', '/organizations'],
  ['POST', '/api/organizations'],
  ['POST', '/organization-user'],
  ['PUT', '/organization-user'],
  ['DELETE', '/organization-user'],
  ['GET', '/organization-user'],
  ['GET', '/organization-user/{user_id}'],
];

describeOnEachDatabase('hostile input', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let member: TestUser;
  let organizationId: string;

  beforeAll(async () => {
    owner = await registerUser(server(), 'fuzz-owner');
    member = await registerUser(server(), 'fuzz-member');
    organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, member, 'member');
  });

  /** Every row of the three tables, as one comparable value. */
  async function databaseState(): Promise<string> {
    const connection = server().service.orm.em.getConnection();
    const tables = await Promise.all(
      ['users', 'organizations', 'organization_users'].map((table) =>
        connection.execute(`select * from ${table} order by 1, 2`),
      ),
    );
    return JSON.stringify(tables);
  }

  const fieldValue = fc.oneof(
    fc.jsonValue(),
    printable(40),
    fc.constantFrom('owner', 'admin', 'member', 'Owner', '', ' ', 'a@b.c'),
    fc.constant('x'.repeat(300)),
  );
  const bodies = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        first_name: fieldValue,
        last_name: fieldValue,
        email: fieldValue,
        role: fieldValue,
        user_id: fieldValue,
        organization_name: fieldValue,
        organization_description: fieldValue,
        __proto__: fieldValue,
      },
      { requiredKeys: [] },
    ),
  );
  const requests = fc.record({
    endpoint: fc.constantFrom(...ENDPOINTS),
    body: fc.option(
      fc.oneof(
        bodies.map((value) => JSON.stringify(value)),
        printable(80),
      ),
      { nil: undefined },
    ),
    contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', undefined),
    organizationId: fc.option(fc.oneof(fc.constant('__valid__'), fc.uuid(), printable(50)), { nil: undefined }),
    token: fc.constantFrom('owner', 'member', 'garbage', 'none'),
    userId: fc.oneof(printable(140), fc.constant('__owner__')),
    query: fc.option(printable(40), { nil: undefined }),
  });

  it('never answers 5xx, keeps the error body shape, and changes nothing when it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        const [method, template] = request.endpoint;
        const userId = request.userId === '__owner__' ? owner.id : request.userId;
        let path = template.replace('{user_id}', encodeURIComponent(userId));
        if (request.query !== undefined)
          path += `?${encodeURIComponent(request.query)}=${encodeURIComponent(request.query)}`;
        const headers: Record<string, string> = {};
        if (request.contentType && method !== 'GET' && request.body !== undefined)
          headers['content-type'] = request.contentType;
        if (request.organizationId !== undefined) {
          headers.organization_id = request.organizationId === '__valid__' ? organizationId : request.organizationId;
        }
        if (request.token === 'owner') headers.authorization = `Bearer ${owner.token}`;
        if (request.token === 'member') headers.authorization = `Bearer ${member.token}`;
        if (request.token === 'garbage') headers.authorization = 'Bearer abc.def.ghi';

        // fetch cannot send a GET body; the server never reads one there anyway.
        const body = method === 'GET' ? undefined : request.body;
        const before = await databaseState();
        const response = await fetch(`${server().baseUrl}${path}`, { method, headers, body });
        const text = await response.text();
        expect(response.status, `${method} ${path} ${request.body}`).toBeLessThan(500);
        if (response.status >= 400) {
          const body = JSON.parse(text);
          expect(Object.keys(body).every((key) => ['code', 'message', 'issues'].includes(key))).toBe(true);
          expect(body).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
          expect(await databaseState()).toBe(before);
        }
      }),
      { numRuns: RUNS * ENDPOINTS.length },
    );
    // The owner is still the owner, whatever was thrown at the service.
    const owners = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
    expect(owners.body.filter((row: { role: string }) => row.role === 'owner').length).toBeGreaterThanOrEqual(1);
  });
});
