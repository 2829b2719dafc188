/**
 * `GET /openapi.json`, shown at `/docs` by reference-page.ts. trpc-to-openapi generates the document
 * from the procedures' meta; `completeDocument` is the one place that corrects what it cannot
 * express, so that a client generated from the document works against the REST layer as it is.
 */
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import {
  forEachOpenApiProcedure,
  generateOpenApiDocument,
  getInputOutputParsers,
  instanceofZodTypeObject,
  unwrapZodType,
  type OpenAPIObject,
} from 'trpc-to-openapi';
import type { ZodType } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import { ERROR_CODES } from '../../shared/errors.ts';
import { PERMISSION_NAME } from '../../shared/roles.ts';
import { bracketMembers, WHITE_SPACE_MEMBERS } from '../../shared/text.ts';
import type { AppRouter } from '../modules/router.ts';
import { OWNERS_ONLY, RoleCatalogue } from '../platform/role-catalogue.ts';
import { procedureMetas } from '../platform/rpc/init.ts';
import { ERROR_DESCRIPTIONS } from '../platform/rpc/rest-meta.ts';
import { isAliased } from './api-alias.ts';

type ObjectSchema = {
  type?: string;
  properties?: Record<string, object>;
  required?: string[];
  anyOf?: object[];
  // Set by declareOwnersNeverExpire only.
  if?: object;
  then?: object;
};
type Operation = {
  operationId?: string;
  servers?: Array<{ url: string; description?: string }>;
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: object; description?: string }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: ObjectSchema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: object }> }>;
};
type PathItem = Record<string, Operation>;

const ERROR_BODY_SCHEMA = {
  type: 'object' as const,
  description: 'Every error: a code to branch on and a message for a person.',
  properties: {
    code: { type: 'string' as const, enum: [...ERROR_CODES] },
    message: { type: 'string' as const },
    issues: {
      type: 'array' as const,
      description: 'The fields of a body, query or header that failed validation',
      items: {
        type: 'object' as const,
        properties: { field: { type: 'string' as const }, problem: { type: 'string' as const } },
        required: ['field', 'problem'],
      },
    },
  },
  required: ['code', 'message'],
};

function operations(document: OpenAPIObject): Array<[string, string, Operation]> {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as PathItem).map(
      ([method, operation]) => [path, method, operation] as [string, string, Operation],
    ),
  );
}

/** The interface's 201s and 202s live in each procedure's `successStatus`; the generator only knows 200. */
function applySuccessStatuses(document: OpenAPIObject, router: AppRouter): void {
  for (const [, meta] of procedureMetas(router)) {
    const openapi = meta?.openapi;
    const status = meta?.successStatus;
    if (!openapi || !status) continue;
    const operation = (document.paths?.[openapi.path] as PathItem | undefined)?.[openapi.method.toLowerCase()];
    if (operation?.responses['200']) {
      const description = status === 201 ? 'Created' : 'Accepted';
      operation.responses[String(status)] = { ...operation.responses['200'], description };
      if (meta.alsoAccepted) operation.responses['202'] = { ...operation.responses['200'], description: 'Accepted' };
      delete operation.responses['200'];
    }
  }
}

/** The REST layer reads a DELETE's fields from its JSON body (and the query); document the body. */
function documentDeleteBodies(document: OpenAPIObject): void {
  for (const [, method, operation] of operations(document)) {
    const queryFields = operation.parameters?.filter((parameter) => parameter.in === 'query') ?? [];
    if (method !== 'delete' || queryFields.length === 0) continue;
    operation.parameters = operation.parameters?.filter((parameter) => parameter.in !== 'query');
    operation.requestBody = {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: Object.fromEntries(queryFields.map((field) => [field.name, field.schema ?? {}])),
            required: queryFields.filter((field) => field.required).map((field) => field.name),
          },
        },
      },
    };
  }
}

/** A string field zod trims and then refuses when empty: a name. */
const isTrimmedNonBlank = (field: ZodType) => !field.safeParse(' ').success && field.safeParse(' x ').data === 'x';

/**
 * Unicode's default-ignorable code points as ranges, from regenerate-unicode-properties (the
 * package Babel builds its Unicode regular expressions with), since the document's patterns cannot
 * name a property (RE2 and Python's re know no `\p{Default_Ignorable_Code_Point}`), and finding
 * them by testing every code point against the property slowed the start.
 * tests/unit/text.test.ts checks that they are the property the service's own checks use.
 */
export function defaultIgnorableRanges(): Array<[number, number]> {
  const { characters } = createRequire(import.meta.url)(
    'regenerate-unicode-properties/Binary_Property/Default_Ignorable_Code_Point.js',
  ) as { characters: { toArray(): number[] } };
  const ranges: Array<[number, number]> = [];
  for (const code of characters.toArray()) {
    const last = ranges.at(-1);
    if (last && last[1] === code - 1) last[1] = code;
    else ranges.push([code, code]);
  }
  return ranges;
}

/**
 * A pattern that finds a character that is neither white space nor default-ignorable: what a name
 * must hold (behaviour §4.4). Not `\S`: engines disagree on what `\s` is, and in none is it
 * exactly the White_Space that names are trimmed of.
 */
export const NAME_CHARACTER = `[^${WHITE_SPACE_MEMBERS}${bracketMembers(defaultIgnorableRanges())}]`;

/** Has `property` need a character other than white space and invisible ones. */
function requireNameCharacter(property: object): void {
  // A pattern of its own stays: JSON Schema takes one per schema, so the second goes in allOf.
  const own = property as { pattern?: string; allOf?: object[] };
  if (own.pattern === undefined) own.pattern = NAME_CHARACTER;
  else own.allOf = [...(own.allOf ?? []), { pattern: NAME_CHARACTER }];
}

/**
 * What zod checks and the generated JSON Schema cannot say, found by asking each input's zod schema:
 * a name, or a query's search, needs a character other than white space and invisible ones
 * (`NAME_CHARACTER`), and a body whose fields are all optional but which refuses `{}` (`PUT /users`)
 * needs at least one of them (`anyOf`), unless the operation declares its body optional (then
 * not required at all).
 */
function declareRefinements(document: OpenAPIObject, router: AppRouter): void {
  forEachOpenApiProcedure(router._def.procedures, ({ procedure, meta }) => {
    const { method, path } = meta.openapi;
    const operation = (document.paths?.[path] as PathItem | undefined)?.[method.toLowerCase()];
    const input = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
    if (!operation || !instanceofZodTypeObject(input)) return;
    const trimmedNonBlank = (name: string) => {
      const field = input.shape[name] as ZodType | undefined;
      return field !== undefined && isTrimmedNonBlank(field);
    };
    for (const parameter of operation.parameters ?? []) {
      if ('in' in parameter && parameter.in === 'query' && parameter.schema && trimmedNonBlank(parameter.name)) {
        requireNameCharacter(parameter.schema);
      }
    }
    const schema = operation.requestBody?.content['application/json']?.schema;
    if (!schema?.properties) return;
    for (const [name, property] of Object.entries(schema.properties)) {
      if (trimmedNonBlank(name)) requireNameCharacter(property);
    }
    if (meta.bodyOptional) operation.requestBody!.required = false;
    else if (!schema.required?.length && !input.safeParse({}).success) {
      schema.anyOf = Object.keys(schema.properties).map((name) => ({ required: [name] }));
    }
  });
}

/**
 * An owner's membership never expires (behaviour §11): a body that gives the role `owner` has no
 * `expires_at`, or `null` where it takes one (a change of role, which it clears). The service
 * checks it after the caller's permission (members.sql.ts, `assertOwnerDoesNotExpire`), so no zod
 * schema holds it for the generator to state; every body with both fields gets it here.
 */
function declareOwnersNeverExpire(document: OpenAPIObject): void {
  for (const [, , operation] of operations(document)) {
    const schema = operation.requestBody?.content['application/json']?.schema;
    if (!schema?.properties?.role || !schema.properties.expires_at) continue;
    schema.if = { properties: { role: { const: 'owner' } }, required: ['role'] };
    schema.then = { properties: { expires_at: { type: 'null' } } };
  }
}

/**
 * One error body schema for every error status, instead of the generator's per-code variants, and
 * each status described as what it means: the generator keeps one description per tRPC code, so
 * the statuses without one of their own (410, 414, 431, 500) all took the first one it met.
 */
function useOneErrorBody(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  const schemas = (components.schemas ??= {});
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.ErrorBody = ERROR_BODY_SCHEMA;
  for (const [, , operation] of operations(document)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      // A new object: the generator's are shared between statuses.
      if (Number(status) >= 400) {
        operation.responses[status] = {
          description: ERROR_DESCRIPTIONS[Number(status)] ?? response.description,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
        };
      }
    }
  }
}

/**
 * The paths also served under /api (api-alias.ts) are listed once, at their own path: each of their
 * operations names the two servers it is served from, which a generated client and "Try it out"
 * may choose between, and the document's description says so for those who read it. Listing every
 * such operation a second time under /api made the reference twice as long, each entry twice.
 * `base` is what the servers start with: PUBLIC_URL, or nothing (`/` and `/api`).
 */
function declareApiAliases(document: OpenAPIObject, base: string): void {
  for (const [path, , operation] of operations(document)) {
    if (isAliased(path)) operation.servers = [{ url: base || '/' }, { url: `${base}/api`, description: API_ALIAS }];
  }
}

const API_ALIAS = 'The same operation under /api';

/**
 * Lists the permissions this deployment knows (the service's and its roles file's) as the `enum`
 * of every permission name in a request body, so that the document is as strict as the service
 * (behaviour §5, §11): the names' pattern alone would let through names the service refuses. A
 * role's permissions leave out the owners' own, which no role may hold.
 */
function listKnownPermissions(document: OpenAPIObject, roles: RoleCatalogue): void {
  const known = [...roles.permissions.keys()];
  const grantable = known.filter((permission) => !(OWNERS_ONLY as readonly string[]).includes(permission));
  const visit = (schema: unknown): void => {
    if (typeof schema !== 'object' || schema === null) return;
    const named = schema as { pattern?: string; enum?: string[]; 'x-grantable'?: boolean };
    if (named.pattern === PERMISSION_NAME.source) named.enum = named['x-grantable'] ? grantable : known;
    delete named['x-grantable'];
    for (const value of Object.values(schema)) visit(value);
  };
  for (const [, , operation] of operations(document)) visit(operation.requestBody);
}

/**
 * The servers' base: PUBLIC_URL when it is set (behaviour §5), else none, which leaves them `/` and
 * `/api` on the origin the document was fetched from. Absolute, where the list Link is a path: a
 * document is kept and read apart from the request that fetched it (a client generator, a gateway
 * importing it), and a relative server would then lose the host, and under a proxy's path the path.
 */
function completeDocument(
  generated: OpenAPIObject,
  router: AppRouter,
  roles: RoleCatalogue,
  publicUrl: string | undefined,
): OpenAPIObject {
  const document = structuredClone(generated);
  if (publicUrl !== undefined) document.servers = [{ url: publicUrl }];
  applySuccessStatuses(document, router);
  documentDeleteBodies(document);
  declareRefinements(document, router);
  listKnownPermissions(document, roles);
  declareOwnersNeverExpire(document);
  useOneErrorBody(document);
  declareApiAliases(document, publicUrl ?? '');
  const bearer = document.components?.securitySchemes?.Authorization;
  if (bearer && 'scheme' in bearer) bearer.bearerFormat = 'JWT';
  return document;
}

export const API_TITLE = 'Organization and user management service';

/** `publicUrl`: PUBLIC_URL, the service's base URL as its clients reach it, if it is set. */
export function buildOpenApiDocument(
  router: AppRouter,
  roles = new RoleCatalogue(),
  publicUrl?: string,
): OpenAPIObject {
  const generated = generateOpenApiDocument(router, {
    title: API_TITLE,
    description:
      'Users, organizations and their members, each with a role: the built-in owner, admin and member, or a ' +
      'role the application (its roles file) or the organization defines, each a set of permissions. ' +
      'Organizations also have teams, which give their members more roles, invitations, an audit trail of every ' +
      'change, and webhooks. Every call carries a JWT bearer token. The same operations are tRPC procedures at ' +
      '/trpc.\n\nEvery path under /users, /organizations, /invitations, /teams and /permissions is also served ' +
      'under /api (/api/users, /api/organizations/{organization_id}…): the same operation, listed here once, with ' +
      '/api as its second server. The membership paths (/organization-user) are served only without it.',
    version: packageJson.version,
    baseUrl: '/',
  });
  return completeDocument(generated, router, roles, publicUrl);
}

/**
 * The document, built by its first reader rather than at start, where it was a good part of the
 * start's time (docs/performance.md, "Measured choices in the code").
 */
export function openApiDocumentOnDemand(
  router: AppRouter,
  roles: RoleCatalogue,
  publicUrl: string | undefined,
): () => OpenAPIObject {
  let built: OpenAPIObject | undefined;
  return () => (built ??= buildOpenApiDocument(router, roles, publicUrl));
}

/** GET /openapi.json: `document` gives the document, built when first asked for. */
export function openApiPlugin(document: () => OpenAPIObject) {
  // eslint-disable-next-line @typescript-eslint/require-await -- a Fastify plugin: its promise tells Fastify it is done
  return async (app: FastifyInstance) => {
    app.get('/openapi.json', () => document());
  };
}
