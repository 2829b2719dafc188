/**
 * Property-based tests driven by the service's own /openapi.json (fast-check): for every documented
 * operation, requests the document calls valid and requests broken in one way each. Every answer
 * must have a status the document declares for that operation and a body that matches the schema
 * it declares for that status. A valid request is never refused as malformed (the document is as
 * strict as the service); a broken one is refused and changes nothing in the database.
 *
 * Requests are generated from the document's JSON Schemas by `arbitraryFor`
 * (support/schema-arbitrary.ts); ajv (the validator Fastify itself uses) checks every value and
 * every answer against the document.
 */
import fc from 'fast-check';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { NAME_CHARACTER } from '../server/http/openapi.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { ajv, arbitraryFor, type Schema } from './support/schema-arbitrary.ts';
import { useServer } from './support/server.ts';

const RUNS_PER_OPERATION = 25;
/** A few hundred requests per test, on a shared two-core machine. */
const TIMEOUT_MS = 240_000;

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: { 'application/json': { schema: Schema } } }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const DOT_SEGMENT = /^\.{1,2}$/;

/** A name that must not be blank: the document asks for a character that is neither white space nor invisible. */
const mustNotBeBlank = (property: Schema) =>
  [property, ...(property.allOf ?? [])].some((schema) => schema.pattern === NAME_CHARACTER);

/** Opaque values a client only ever echoes (a cursor from a `Link`), left out of made-up requests. */
const OPAQUE_PARAMETERS = new Set(['cursor']);

/** A request as the document describes it: path, query and header parameters, and a JSON body. */
interface RequestParts {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string | undefined;
  contentType: string | undefined;
  caller: 'owner' | 'member' | 'none' | 'garbage';
}

/** Ways to break a valid request, each one the document declares a refusal for. */
type Breakage =
  | 'no token'
  | 'garbage token'
  | 'header not a UUID'
  | 'body field missing'
  | 'body field of the wrong type'
  | 'body field too long'
  | 'body field blank'
  | 'empty body object'
  | 'malformed JSON'
  | 'JSON that is not an object'
  | 'not JSON'
  | 'body over 64 KiB'
  | 'path parameter too long'
  | 'path parameter over the router limit'
  | 'query parameter out of range'
  | 'headers over 16 KiB';

function breakagesFor(operation: Operation): Breakage[] {
  const parameters = operation.parameters ?? [];
  const body = operation.requestBody?.content['application/json'].schema;
  const breakages: Breakage[] = ['no token', 'garbage token', 'headers over 16 KiB'];
  if (parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'organization_id')) {
    breakages.push('header not a UUID');
  }
  if (parameters.some((parameter) => parameter.in === 'path')) {
    breakages.push('path parameter too long', 'path parameter over the router limit');
  }
  if (parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'limit')) {
    breakages.push('query parameter out of range');
  }
  if (body) {
    breakages.push('empty body object', 'malformed JSON', 'JSON that is not an object', 'not JSON', 'body over 64 KiB');
    breakages.push('body field of the wrong type', 'body field too long');
    if (body.required?.length) breakages.push('body field missing');
    if (Object.values(body.properties ?? {}).some(mustNotBeBlank)) {
      breakages.push('body field blank');
    }
  }
  return breakages;
}

function breakRequest(parts: RequestParts, breakage: Breakage, operation: Operation): RequestParts {
  const broken = structuredClone(parts);
  const bodySchema = operation.requestBody?.content['application/json'].schema;
  const body = (parts.body === undefined ? {} : JSON.parse(parts.body)) as Record<string, unknown>;
  const fields = Object.entries(bodySchema?.properties ?? {});
  const setBody = (value: unknown) => (broken.body = JSON.stringify(value));
  switch (breakage) {
    case 'no token':
      broken.caller = 'none';
      break;
    case 'garbage token':
      broken.caller = 'garbage';
      break;
    case 'header not a UUID':
      broken.headers.organization_id = 'not-a-uuid';
      break;
    case 'headers over 16 KiB':
      broken.headers['x-padding'] = 'a'.repeat(17 * 1024);
      break;
    case 'path parameter too long':
      for (const name of Object.keys(broken.path)) broken.path[name] = 'a'.repeat(129);
      break;
    case 'path parameter over the router limit':
      for (const name of Object.keys(broken.path)) broken.path[name] = 'a'.repeat(5001);
      break;
    case 'query parameter out of range':
      broken.query.limit = '0';
      break;
    case 'empty body object':
      setBody({});
      break;
    case 'malformed JSON':
      broken.body = '{"a":';
      break;
    case 'JSON that is not an object':
      broken.body = '[1,2]';
      break;
    case 'not JSON':
      broken.contentType = 'text/plain';
      break;
    case 'body over 64 KiB':
      setBody({ ...body, padding: 'x'.repeat(65 * 1024) });
      break;
    case 'body field missing':
      setBody(Object.fromEntries(Object.entries(body).filter(([name]) => name !== bodySchema!.required![0])));
      break;
    case 'body field of the wrong type':
      setBody({ ...body, [fields[0]![0]]: 12345 });
      break;
    case 'body field too long': {
      const [name, schema] = fields.find(([, property]) => property.maxLength !== undefined) ?? fields[0]!;
      setBody({ ...body, [name]: 'x'.repeat((schema.maxLength ?? 1000) + 1) });
      break;
    }
    case 'body field blank': {
      const [name] = fields.find(([, property]) => mustNotBeBlank(property))!;
      setBody({ ...body, [name]: ' \t\u0085\u3000' });
      break;
    }
  }
  return broken;
}

describeOnEachDatabase('requests generated from /openapi.json', (target) => {
  // Webhook URLs on loopback are accepted (and only those are generated, below).
  const server = useServer(target, { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  let document: Document;
  let owner: TestUser;
  let member: TestUser;
  let organizationId: string;
  let teamId: string;

  beforeAll(async () => {
    document = (await server().call('GET', '/openapi.json')).body;
    ajv.removeSchema('openapi.json');
    ajv.addSchema({ $id: 'openapi.json', components: document.components });
  });
  // Valid requests may rightly delete the organization or hand it over: each test gets its own.
  beforeEach(async () => {
    owner = await registerUser(server(), 'fuzz-owner');
    member = await registerUser(server(), 'fuzz-member');
    organizationId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, member, 'admin');
    const team = await server().call('POST', `/organizations/${organizationId}/teams`, {
      token: owner.token,
      body: { name: 'Fuzzed', roles: ['member'] },
    });
    expect(team.status).toBe(201);
    teamId = team.body.team_id;
  });

  /** Every row of every table, as one comparable value. */
  async function databaseState(): Promise<string> {
    const connection = server().service.orm.em.getConnection();
    const tables = await Promise.all(
      [
        'users',
        'organizations',
        'organization_users',
        'invitations',
        'organization_roles',
        'teams',
        'team_roles',
        'team_members',
        'webhooks',
        'organization_events',
        'idempotency_keys',
      ].map((table) => connection.execute(`select * from ${table} order by 1, 2`)),
    );
    return JSON.stringify(tables);
  }

  /** Real ids and e-mails mixed into made-up ones, so that valid requests also reach their 2xx. */
  function withKnownValues(name: string, schema: Schema): fc.Arbitrary<unknown> {
    // A webhook URL is resolved and called: only a loopback port nobody listens on, never a made-up host.
    if (name === 'url') return fc.constantFrom('http://127.0.0.1:9/hook', 'http://[::1]:9/hook');
    const known: Record<string, string[]> = {
      user_id: [owner.id, member.id],
      email: [owner.email, member.email],
      organization_id: [organizationId],
      team_id: [teamId],
    };
    const generated = arbitraryFor(schema);
    return known[name] ? fc.oneof(fc.constantFrom(...known[name]), generated) : generated;
  }

  function validRequests(operation: Operation): fc.Arbitrary<RequestParts> {
    const parameters = (operation.parameters ?? []).filter(
      (parameter) => parameter.required || !OPAQUE_PARAMETERS.has(parameter.name),
    );
    const group = (location: Parameter['in']) =>
      fc.record(
        Object.fromEntries(
          parameters
            .filter((parameter) => parameter.in === location)
            .map((parameter) => {
              const values = withKnownValues(parameter.name, parameter.schema).map(String);
              // A path segment "." or ".." (escaped or not) is resolved away by every URL parser,
              // fetch's included, before the request leaves: such an id cannot be put in a path.
              return [
                parameter.name,
                location === 'path' ? values.filter((value) => !DOT_SEGMENT.test(value)) : values,
              ];
            }),
        ),
        { requiredKeys: parameters.filter((p) => p.in === location && p.required).map((p) => p.name) },
      ) as fc.Arbitrary<Record<string, string>>;
    const bodySchema = operation.requestBody?.content['application/json'].schema;
    const body = bodySchema
      ? fc
          .record(
            Object.fromEntries(
              Object.entries(bodySchema.properties ?? {}).map(([name, property]) => [
                name,
                withKnownValues(name, property),
              ]),
            ),
            { requiredKeys: bodySchema.required ?? [] },
          )
          .filter((value) => ajv.validate(bodySchema, value))
          .map((value) => JSON.stringify(value))
      : fc.constant(undefined);
    return fc.record({
      path: group('path'),
      query: group('query'),
      headers: group('header'),
      body,
      contentType: fc.constant(bodySchema ? 'application/json' : undefined),
      caller: fc.constantFrom('owner' as const, 'member' as const),
    });
  }

  async function send(template: string, method: string, parts: RequestParts) {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(parts.path[name] ?? ''));
    const query = new URLSearchParams(parts.query).toString();
    const headers: Record<string, string> = { ...parts.headers };
    if (parts.contentType) headers['content-type'] = parts.contentType;
    if (parts.caller === 'owner') headers.authorization = `Bearer ${owner.token}`;
    if (parts.caller === 'member') headers.authorization = `Bearer ${member.token}`;
    if (parts.caller === 'garbage') headers.authorization = 'Bearer abc.def.ghi';
    const response = await fetch(`${server().baseUrl}${path}${query ? `?${query}` : ''}`, {
      method: method.toUpperCase(),
      headers,
      body: parts.body,
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: text ? JSON.parse(text) : undefined,
    };
  }

  /** The answer has a status the operation declares and a body matching that status's schema. */
  function expectDocumented(operation: Operation, label: string, answer: Awaited<ReturnType<typeof send>>): void {
    const declared = operation.responses[String(answer.status)];
    expect(
      declared,
      `${label}: status ${answer.status} is not declared (${JSON.stringify(answer.body)})`,
    ).toBeDefined();
    expect(answer.type, label).toBe('application/json; charset=utf-8');
    const schema = declared!.content?.['application/json'].schema;
    if (!schema) return;
    const validate = ajv.compile(schema.$ref ? { $ref: `openapi.json${schema.$ref}` } : schema);
    expect(validate(answer.body), `${label}: ${JSON.stringify(answer.body)} ${ajv.errorsText(validate.errors)}`).toBe(
      true,
    );
  }

  /** A 400 whose every issue is a role the organization does not have. */
  const namesUnknownRoles = (body: { issues?: Array<{ field: string; problem: string }> }) =>
    !!body.issues?.length && body.issues.every((issue) => /^role/.test(issue.field) && /^No role /.test(issue.problem));

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it(
    'answers valid requests with a documented status and body, never as malformed',
    { timeout: TIMEOUT_MS },
    async () => {
      for (const { path, method, operation } of operations()) {
        await fc.assert(
          fc.asyncProperty(validRequests(operation), async (parts) => {
            const label = `${method.toUpperCase()} ${path} ${JSON.stringify(parts)}`;
            const answer = await send(path, method, parts);
            expectDocumented(operation, label, answer);
            // The document accepted this request, so the service may refuse it only for who asks or
            // for the state it finds (403, 404, 409), never as a malformed one; or for naming a role
            // the organization does not have, which no document can list (behaviour §3); or, when it
            // carries an Idempotency-Key the runs drew before for another request, 422 (behaviour §10).
            const states = [200, 201, 403, 404, 409, ...('Idempotency-Key' in parts.headers ? [422] : [])];
            if (answer.status !== 400 || !namesUnknownRoles(answer.body)) {
              expect(states, `${label}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
            }
          }),
          { numRuns: RUNS_PER_OPERATION },
        );
      }
    },
  );

  it(
    'refuses requests broken in one way with a documented status and body, and changes nothing',
    { timeout: TIMEOUT_MS },
    async () => {
      for (const { path, method, operation } of operations()) {
        const broken = fc
          .tuple(validRequests(operation), fc.constantFrom(...breakagesFor(operation)))
          .map(([parts, breakage]) => ({ breakage, parts: breakRequest(parts, breakage, operation) }));
        await fc.assert(
          fc.asyncProperty(broken, async ({ breakage, parts }) => {
            const label = `${method.toUpperCase()} ${path} (${breakage}) ${JSON.stringify(parts).slice(0, 300)}`;
            const before = await databaseState();
            const answer = await send(path, method, parts);
            expectDocumented(operation, label, answer);
            expect(answer.status, `${label}: ${JSON.stringify(answer.body)}`).toBeGreaterThanOrEqual(400);
            expect(answer.status, label).toBeLessThan(500);
            expect(await databaseState(), label).toBe(before);
          }),
          { numRuns: RUNS_PER_OPERATION },
        );
      }
      // Whatever was thrown at it, the organization still has its owner.
      const members = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
      expect(members.body.filter((row: { role: string }) => row.role === 'owner').length).toBeGreaterThanOrEqual(1);
    },
  );
});
