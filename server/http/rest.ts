/**
 * The REST compatibility layer: each procedure with trpc-to-openapi meta served at its legacy path,
 * with trpc-to-openapi's rules for which procedures are exposed.
 *
 * Why not trpc-to-openapi's own Fastify plugin: per request it builds a Fetch `Request` (only to
 * get an AbortSignal, whose abort on close then builds a DOMException), binds ten functions onto
 * Fastify's request and reply, matches the path by scanning regular expressions and creates a
 * caller proxy. Under `npm run bench` that was the largest single cost of a request. Here each
 * procedure is a Fastify route, called as tRPC's own adapters call it, and the error body is built
 * directly in the contract's shape instead of being rewritten after the fact.
 */
import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  forEachOpenApiProcedure,
  getInputOutputParsers,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  unwrapZodType,
} from 'trpc-to-openapi';
import { z } from 'zod';
import type { AppRouter } from '../modules/router.ts';
import type { VerifyToken } from '../platform/auth/tokens.ts';
import { authenticateFirst } from './authentication.ts';
import type { contextFactory } from './context.ts';
import { httpStatusOf, logFailure, publicErrorBody } from '../platform/errors.ts';
import type { Meta } from '../platform/rpc/init.ts';
import { fastifyJsonParser, parseJsonBodiesAs } from './json-body.ts';
import { asksForWholeList, STREAMED_PAGE_SIZE, wholeList } from './streamed-list.ts';

type CreateContext = ReturnType<typeof contextFactory>;
type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const JSON_TYPE = 'application/json; charset=utf-8';

const takesJsonBody = (method: HttpMethod) => method === 'POST' || method === 'PUT' || method === 'PATCH';

/** `/organization-user/{user_id}` (OpenAPI) → `/organization-user/:user_id` (Fastify). */
const fastifyPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ':$1');

/**
 * The procedure's input from the request: the JSON body for POST and PUT (none when all its input
 * is in the path; an empty object when an optional one is absent), else the query string, with the path parameters on top. DELETE also takes a
 * JSON body: the interface sends `{user_id}` in the body of DELETE /organization-user.
 */
function inputOf(request: FastifyRequest, method: HttpMethod, withBody: boolean, numberFields: string[]): unknown {
  const params = request.params as Record<string, string>;
  let source: unknown;
  if (withBody) source = request.body === undefined ? {} : request.body;
  else if (takesJsonBody(method)) source = {};
  else
    source = {
      ...numbersRead(request.query as Record<string, unknown>, numberFields),
      ...(method === 'DELETE' && isPlainObject(request.body) ? request.body : {}),
    };
  return isPlainObject(source) ? { ...source, ...params } : source;
}

/**
 * The number fields of a query string read as numbers when they are written in decimal digits;
 * anything else (`0x2`, ` 1e0 `, a field given twice) stays as it came, and the schema refuses it.
 * Written here, not by trpc-to-openapi's `coerceSchema`: that turns the procedure's own schema
 * into a coercing one in place, so tRPC callers too could send `true` or `[3]` for a number.
 */
function numbersRead(query: Record<string, unknown>, numberFields: string[]): Record<string, unknown> {
  let read: Record<string, unknown> | undefined;
  for (const field of numberFields) {
    const value = query[field];
    if (typeof value === 'string' && /^\d{1,15}$/.test(value)) (read ??= { ...query })[field] = Number(value);
  }
  return read ?? query;
}

/** The fields of a query's schema that are numbers (`limit`), which a query string carries as text. */
function numberFieldsOf(procedure: Parameters<typeof getInputOutputParsers>[0], method: HttpMethod): string[] {
  const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
  if (takesJsonBody(method) || !instanceofZodTypeObject(schema)) return [];
  return Object.entries(schema.shape)
    .filter(([, field]) => unwrapZodType(field, false) instanceof z.ZodNumber)
    .map(([name]) => name);
}

/**
 * A POST or PUT that needs a body must carry JSON; a DELETE, a POST whose input is all in its path,
 * or one whose body is optional (`bodyOptional`, rest-meta.ts), may carry a body, and when it does,
 * JSON too.
 */
function assertJsonBody(request: FastifyRequest, required: boolean): void {
  if (!required && request.body === undefined) return;
  const contentType = request.headers['content-type'];
  if (!/^application\/json\s*(?:;|$)/i.test(contentType ?? '')) {
    throw new TRPCError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `Expected a JSON body with Content-Type: application/json; got ${contentType ? 'Content-Type: ' + JSON.stringify(contentType) : 'no Content-Type'}`,
    });
  }
  if (request.body === undefined) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: 'The request body is empty: this operation needs a JSON object',
    });
  }
}

function sendError(reply: FastifyReply, cause: unknown): FastifyReply {
  const error = cause instanceof TRPCError ? cause : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause });
  logFailure(error, reply.log);
  return reply.status(httpStatusOf(error)).send(publicErrorBody(error));
}

/** Whether the procedure takes any input at all (trpc-to-openapi's rule: z.void() takes none). */
function acceptsInput(procedure: Parameters<typeof getInputOutputParsers>[0]): boolean {
  const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
  return !instanceofZodTypeLikeVoid(schema);
}

/**
 * Whether a POST or PUT reads a JSON body: not when every input field is a path parameter (POST
 * /invitations/{invitation_id}/accept), so that it can be called with no body and no content-type,
 * as the OpenAPI document (which then declares no request body) tells clients to.
 */
function readsBody(procedure: Parameters<typeof getInputOutputParsers>[0], method: HttpMethod, restPath: string) {
  if (!takesJsonBody(method)) return false;
  const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
  if (!instanceofZodTypeObject(schema)) return true;
  const pathParameters = new Set([...restPath.matchAll(/\{(\w+)\}/g)].map((match) => match[1]));
  return Object.keys(schema.shape).some((field) => !pathParameters.has(field));
}

export function restPlugin(router: AppRouter, createContext: CreateContext, authenticate: VerifyToken) {
  // eslint-disable-next-line @typescript-eslint/require-await -- a Fastify plugin: its promise tells Fastify it is done
  return async (app: FastifyInstance) => {
    // An empty body is no body, whatever its Content-Type says: a body that may be left out may
    // also come empty, as clients that always send the header send it.
    const parseJson = fastifyJsonParser(app);
    parseJsonBodiesAs(app, (request, text, done) =>
      text === '' ? done(null, undefined) : parseJson(request, text, done),
    );
    const authenticated = authenticateFirst(app, authenticate, (request) => createContext({ req: request }).db);
    forEachOpenApiProcedure(router._def.procedures, ({ path, type, procedure, meta }) => {
      const { method, path: restPath } = meta.openapi as { method: HttpMethod; path: string };
      const successStatus = (meta as Meta).successStatus ?? 200;
      const withInput = acceptsInput(procedure);
      const numberFields = numberFieldsOf(procedure, method);
      const withBody = readsBody(procedure, method, restPath);
      const bodyRequired = withBody && (meta as Meta).bodyOptional !== true;
      const streamsWholeList = method === 'GET' && (meta as Meta).wholeListStreamed === true;

      app.route({
        method,
        url: fastifyPath(restPath),
        preParsing: authenticated,
        handler: async (request, reply) => {
          try {
            if (method !== 'GET') assertJsonBody(request, bodyRequired);
            const ctx = createContext({ req: request });
            const input = withInput ? inputOf(request, method, withBody, numberFields) : undefined;
            // The procedure with its middlewares, input and output checks, called as tRPC's own adapters
            // call it, less their lookup of the procedure by its path (two more async calls a request).
            const call = (rawInput: unknown) => {
              const read = Promise.resolve(rawInput);
              return procedure({ ctx, path, type, getRawInput: () => read, signal: undefined, batchIndex: 0 });
            };
            if (streamsWholeList && asksForWholeList(request.query)) {
              ctx.listPaging.pageSize = STREAMED_PAGE_SIZE;
              const body = await wholeList(async (cursor) => ({
                items: (await call({ ...(input as object), cursor })) as unknown[],
                next: ctx.listPaging.nextCursor,
              }));
              delete ctx.responseHeaders.link;
              return reply.status(200).headers(ctx.responseHeaders).type(JSON_TYPE).send(body);
            }
            const data: unknown = await call(input);
            return reply
              .status(ctx.restStatus.value ?? successStatus)
              .headers(ctx.responseHeaders)
              .send(data);
          } catch (cause) {
            return sendError(reply, cause);
          }
        },
      });
    });
  };
}
