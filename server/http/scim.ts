/**
 * SCIM 2.0 at `/scim/v2` (RFC 7644, behaviour §18): Fastify routes over the scim domain, in a scope
 * of their own that reads and answers `application/scim+json` and answers every refusal with the
 * SCIM error body (`status` a string, `scimType` where the RFC names one). Each request is
 * authorized as an operation of the key's organization (platform/authorization/key-organization.ts):
 * an organization API key holding `directory:sync`. The key is let in by the routes' `preParsing`
 * hook, before the body is read: a request without a key that verifies is 401 whatever its body
 * holds, and the body is not read (behaviour §5). The discovery documents need no key.
 */
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preParsingHookHandler,
  RouteShorthandOptions,
} from 'fastify';
import { ERROR_STATUS } from '../../shared/errors.ts';
import { MAX_BODY_BYTES } from '../../shared/limits.ts';
import * as scim from '../modules/scim/index.ts';
import type { VerifyToken } from '../platform/auth/tokens.ts';
import {
  inKeysOrganization,
  keysOrganization,
  type KeyOfOrganization,
} from '../platform/authorization/key-organization.ts';
import { isDatabaseTimeout, isDatabaseUnavailable } from '../platform/database/failures.ts';
import { DomainError } from '../platform/errors.ts';
import type { Context } from '../platform/rpc/context.ts';
import { enterKeyRequest } from '../platform/requests-in-flight.ts';
import type { contextFactory } from './context.ts';
import { announcesBody, fastifyJsonParser, parseJsonBodiesAs, strictlyDecoded } from './json-body.ts';
import { callerOf } from './request-caller.ts';

export { SCIM_PREFIX } from '../modules/scim/index.ts';

/**
 * Fastify's refusals of a body, in the service's words: its own name `application/json` whatever
 * media type was sent.
 */
const BODY_REFUSALS: Partial<Record<string, string>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body is empty, and this request takes a JSON object',
  FST_ERR_CTP_BODY_TOO_LARGE: `The body is larger than ${MAX_BODY_BYTES / 1024} KiB`,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'The body must be application/scim+json (or application/json)',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The body is not as long as its Content-Length says',
};

/** The methods whose requests say everything in their URL: an empty body is none. */
const BODILESS = new Set(['DELETE', 'GET']);

/**
 * Whether Fastify will read the request's body, by its own rule: a method that may carry one, with a
 * content type or any body bytes announced.
 */
const readsBody = (request: FastifyRequest): boolean =>
  request.method !== 'GET' &&
  request.method !== 'HEAD' &&
  (request.headers['content-type'] !== undefined || announcesBody(request));

type Id = { Params: { id: string } };
type List = { Querystring: scim.ListQuery };

/** A failure as SCIM's error body and its status (RFC 7644 §3.12). */
function scimError(error: unknown, request: FastifyRequest): { status: number; body: object } {
  let status = 500;
  let detail = 'Internal server error';
  let scimType: string | undefined;
  if (error instanceof DomainError) {
    status = ERROR_STATUS[error.code];
    // MEMBER_LIMIT is a conflict SCIM has no type for: the detail names the code (behaviour §16).
    detail = error.code === 'MEMBER_LIMIT' ? `MEMBER_LIMIT: ${error.message}` : error.message;
    scimType = error instanceof scim.ScimProblem ? error.scimType : undefined;
  } else if (isDatabaseTimeout(error) || isDatabaseUnavailable(error)) {
    status = 503;
    detail = 'The database is unavailable, try again later';
  } else if (typeof (error as FastifyError).statusCode === 'number' && (error as FastifyError).statusCode! < 500) {
    // Fastify's own refusals before the handler: a body that is not JSON, a media type not served.
    status = (error as FastifyError).statusCode!;
    detail = BODY_REFUSALS[(error as FastifyError).code] ?? (error as Error).message;
    if (status === 400) scimType = 'invalidSyntax';
  } else {
    request.log.error({ err: error }, 'SCIM request failed');
  }
  return { status, body: scim.scimErrorBody(status, detail, scimType) };
}

/**
 * Where SCIM's absolute URLs (a 201's Location, every `meta.location`, a group member's `$ref`)
 * start: PUBLIC_URL's SCIM path when it is set, whatever Host header a request carries; otherwise
 * the request's own scheme and Host, which Fastify takes from the connection and the Host header,
 * or from X-Forwarded-Proto and X-Forwarded-Host where a proxy TRUST_PROXY names sent it (app.ts).
 * Behaviour §18.
 */
function scimBase(publicUrl: string | undefined): (request: FastifyRequest) => string {
  if (publicUrl !== undefined) return () => `${publicUrl}${scim.SCIM_PREFIX}`;
  return (request) => `${request.protocol}://${request.host}${scim.SCIM_PREFIX}`;
}

/** `publicUrl`: PUBLIC_URL, the service's base URL as its clients reach it, if it is set. */
export function scimPlugin(
  createContext: ReturnType<typeof contextFactory>,
  authenticate: VerifyToken,
  publicUrl: string | undefined,
) {
  // eslint-disable-next-line @typescript-eslint/require-await -- a Fastify plugin: its promise tells Fastify it is done
  return async (app: FastifyInstance) => {
    const parseJsonText = fastifyJsonParser(app);
    // A DELETE or GET sent with a content type and an empty body has no body, as it needs none.
    const parseJson: typeof parseJsonText = (request, text, done) => {
      if (text === '' && BODILESS.has(request.method)) done(null, undefined);
      else parseJsonText(request, text, done);
    };
    // Both media types decoded strictly, as REST and tRPC bodies are: bytes that are not UTF-8 are 400 invalidSyntax.
    parseJsonBodiesAs(app, parseJson);
    app.addContentTypeParser('application/scim+json', { parseAs: 'buffer' }, strictlyDecoded(parseJson));
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (String(reply.getHeader('content-type') ?? '').startsWith('application/json')) {
        void reply.header('content-type', scim.SCIM_CONTENT_TYPE);
      }
      done(null, payload);
    });
    app.setErrorHandler((error, request, reply) => {
      const { status, body } = scimError(error, request);
      // Refused before the body was read: what follows on the connection cannot be taken for a request.
      if (!request.raw.complete) void reply.header('connection', 'close');
      return reply.status(status).type(scim.SCIM_CONTENT_TYPE).send(body);
    });
    // A path under /scim/v2 that is not served is this scope's 404, so that this scope's hooks (the
    // media type above) answer it. The root's preParsing hook answers it first, 404 or 405 with
    // Allow, in SCIM's body (http/error-body.ts); this handler answers the routes' callNotFound.
    app.setNotFoundHandler((request) => {
      throw new scim.ScimProblem('NOT_FOUND', undefined, `No route for ${request.method} ${request.url.split('?')[0]}`);
    });

    const base = scimBase(publicUrl);

    const onKeyUseFailure = (request: FastifyRequest) => (error: unknown) =>
      request.log.error({ err: error }, 'recording a key use failed');
    /** What the hook let in, for the handler: the request's context and the key's organization. */
    const admitted = new WeakMap<FastifyRequest, { ctx: Context; key: KeyOfOrganization }>();
    /**
     * The key routes' `preParsing` hook: the caller verified once (request-caller.ts) and let in as
     * a key of its organization, or refused (401, 403), before Fastify reads the body.
     */
    const keyFirst: preParsingHookHandler = (request, _reply, payload, done) => {
      const ctx = createContext({ req: request });
      callerOf(request, authenticate)
        .then((caller) => {
          enterKeyRequest(ctx.requestsInFlight, caller, ctx.answering);
          const beforeBody = readsBody(request);
          return keysOrganization(ctx.db, caller, 'directory:sync', onKeyUseFailure(request), { beforeBody });
        })
        .then(
          (key) => {
            admitted.set(request, { ctx, key });
            done(null, payload);
          },
          (error: unknown) => done(error as Error),
        );
    };
    const withKey: RouteShorthandOptions = { preParsing: keyFirst };

    /** Runs `work` as an operation of the key's organization that needs `directory:sync`. */
    const inDirectory = <T>(request: FastifyRequest, work: (scope: scim.ScimScope) => Promise<T>): Promise<T> => {
      const { ctx, key } = admitted.get(request)!;
      return inKeysOrganization(ctx.db, key, 'directory:sync', ctx.settings.roles, onKeyUseFailure(request), (org) =>
        work({ org, base: base(request) }),
      );
    };
    const created = (reply: FastifyReply, resource: { meta: { location: string } }) =>
      reply.status(201).header('location', resource.meta.location).send(resource);
    const noContent = (reply: FastifyReply) => reply.status(204).send();

    // The discovery documents need no key, and take no filter (RFC 7644 §4).
    app.get<List>('/ServiceProviderConfig', (request) => {
      scim.refuseFilter(request.query);
      return scim.serviceProviderConfig(base(request));
    });
    app.get<List>('/ResourceTypes', (request) => {
      scim.refuseFilter(request.query);
      const types = scim.resourceTypes(base(request));
      return scim.listResponse(types, types.length, 1);
    });
    app.get<Id & List>('/ResourceTypes/:id', (request, reply) => {
      scim.refuseFilter(request.query);
      const found = scim.resourceTypes(base(request)).find((type) => type.id === request.params.id);
      return found ?? reply.callNotFound();
    });
    app.get<List>('/Schemas', (request) => {
      scim.refuseFilter(request.query);
      const schemas = scim.schemaDocuments(base(request));
      return scim.listResponse(schemas, schemas.length, 1);
    });
    app.get<Id & List>('/Schemas/:id', (request, reply) => {
      scim.refuseFilter(request.query);
      const found = scim.schemaDocuments(base(request)).find((schema) => schema.id === request.params.id);
      return found ?? reply.callNotFound();
    });

    app.post('/Users', withKey, async (request, reply) =>
      created(reply, await inDirectory(request, (scope) => scim.createUser(scope, request.body))),
    );
    app.get<List>('/Users', withKey, (request) =>
      inDirectory(request, (scope) => scim.listUsers(scope, request.query)),
    );
    app.get<Id>('/Users/:id', withKey, (request) =>
      inDirectory(request, (scope) => scim.getUser(scope, request.params.id)),
    );
    app.put<Id>('/Users/:id', withKey, (request) =>
      inDirectory(request, (scope) => scim.replaceUser(scope, request.params.id, request.body)),
    );
    app.patch<Id>('/Users/:id', withKey, (request) =>
      inDirectory(request, (scope) => scim.patchUser(scope, request.params.id, request.body)),
    );
    app.delete<Id>('/Users/:id', withKey, async (request, reply) => {
      await inDirectory(request, (scope) => scim.deleteUser(scope, request.params.id));
      return noContent(reply);
    });

    app.post('/Groups', withKey, async (request, reply) =>
      created(reply, await inDirectory(request, (scope) => scim.createGroup(scope, request.body))),
    );
    app.get<List>('/Groups', withKey, (request) =>
      inDirectory(request, (scope) => scim.listGroups(scope, request.query)),
    );
    app.get<Id & List>('/Groups/:id', withKey, (request) =>
      inDirectory(request, (scope) => scim.getGroup(scope, request.params.id, !scim.excludesMembers(request.query))),
    );
    app.put<Id>('/Groups/:id', withKey, (request) =>
      inDirectory(request, (scope) => scim.replaceGroup(scope, request.params.id, request.body)),
    );
    app.patch<Id>('/Groups/:id', withKey, async (request, reply) => {
      await inDirectory(request, (scope) => scim.patchGroup(scope, request.params.id, request.body));
      return noContent(reply);
    });
    app.delete<Id>('/Groups/:id', withKey, async (request, reply) => {
      await inDirectory(request, (scope) => scim.deleteGroup(scope, request.params.id));
      return noContent(reply);
    });
  };
}
