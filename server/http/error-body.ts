/**
 * Every error answered outside a procedure, in the shape its caller reads (behaviour §5): the
 * contract's body `{code, message}` on REST, tRPC's error shape under /trpc (what the typed client
 * turns into an ApiError). That covers Fastify's own errors (malformed JSON, body too large, wrong
 * media type), the router's (bad URL escape, path parameter too long), those Node's HTTP parser
 * raises before there is a request at all (headers too large, URL too long, a slow client), unknown
 * paths (404), methods a known path does not serve (405 with `Allow`), and unexpected failures.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type {
  ConnectionError,
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '../../shared/errors.ts';
import { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_HEADER_LINES } from '../../shared/limits.ts';
import { SCIM_CONTENT_TYPE, SCIM_PREFIX, scimErrorBody } from '../modules/scim/index.ts';
import { trpcCarrierCode } from '../platform/errors.ts';
import { allowedMethodsRecorder } from './allowed-methods.ts';
import { announcesBody } from './json-body.ts';
import { loggedUrl, requestId } from './logging.ts';
import { SECURITY_HEADERS } from './protection.ts';
import { repeatsHost } from './repeated-headers.ts';
import { traceAnswer } from './tracing.ts';

/** Path parameters longer than this are answered 414 (see app.ts). */
export const MAX_PARAM_LENGTH = 5000;

/** The one map of shared/errors.ts, read the other way. */
const CODE_BY_STATUS = Object.fromEntries(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]),
) as Record<number, ErrorCode>;

/** 414 and 431 have no code of their own among tRPC's names: they are bad requests, told apart by status. */
const errorCodeForStatus = (status: number): ErrorCode =>
  CODE_BY_STATUS[status] ?? (status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');

/** The refusal of a body that is not well-formed JSON, on REST and tRPC alike. */
export const MALFORMED_JSON_BODY = 'Malformed JSON in request body';

const FRIENDLY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: MALFORMED_JSON_BODY,
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty but Content-Type is application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: `Request body is larger than ${MAX_BODY_BYTES / 1024} KiB`,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Expected a JSON body with Content-Type: application/json',
  FST_ERR_BAD_URL: 'The URL holds a malformed percent-escape',
  FST_ERR_MAX_PARAM_LENGTH: `A path segment is longer than ${MAX_PARAM_LENGTH} characters`,
};

const isTrpcPath = (url: string | undefined): boolean => url !== undefined && /^\/trpc(?:[/?]|$)/.test(url);

/** tRPC's error shape, as the router's error formatter makes it, for errors no procedure raised. */
function trpcErrorShape(status: number, message: string) {
  const code = errorCodeForStatus(status);
  return {
    error: { code: TRPC_ERROR_CODES_BY_KEY[trpcCarrierCode(code)], message, data: { code, httpStatus: status } },
  };
}

const SCIM_PATH = new RegExp(`^${SCIM_PREFIX}(?:[/?]|$)`);
const isScimPath = (url: string | undefined): boolean => url !== undefined && SCIM_PATH.test(url);

/** The body of an error answered at `url`: tRPC's shape under /trpc, SCIM's under /scim/v2 (behaviour §18), else the contract's. */
export function errorPayload(url: string | undefined, status: number, message: string): object {
  if (isTrpcPath(url)) return trpcErrorShape(status, message);
  if (isScimPath(url)) return scimErrorBody(status, message);
  return { code: errorCodeForStatus(status), message } satisfies ErrorBody;
}

function describeError(error: FastifyError): { status: number; message: string } {
  const status =
    error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
  const message = status >= 500 ? 'Internal server error' : (FRIENDLY_MESSAGES[error.code] ?? error.message);
  return { status, message };
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: FastifyError): FastifyReply {
  const { status, message } = describeError(error);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  // Found before routing (a malformed escape), so no hook of the SCIM scope gives SCIM's media type.
  if (isScimPath(request.url)) void reply.type(SCIM_CONTENT_TYPE);
  return reply.status(status).send(errorPayload(request.url, status, message));
}

/**
 * Fastify's `frameworkErrors`: a malformed percent-escape (400) or a path parameter over
 * `MAX_PARAM_LENGTH` (414), found while routing, before any hook runs.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No hook runs for these: the request id, the security headers, the span and the log line are given here.
  const traceId = traceAnswer(request.method, request.headers, () => {
    void sendError(request, reply.headers(SECURITY_HEADERS).header('x-request-id', request.id), error);
    return reply.statusCode;
  });
  const status = reply.statusCode;
  request.log.info({ method: request.method, url: loggedUrl(request.url), status, traceId }, 'request');
}

/**
 * Answers a request that Node hands to a listener of its own, which Fastify never sees, as the
 * hooks answer the others: with a request id, in a span of its own (http/tracing.ts), and with its
 * line in the log (http/logging.ts). `answer` is given the request id and returns the status.
 */
function answerOutsideFastify(
  log: FastifyBaseLogger,
  request: IncomingMessage,
  answer: (reqId: string) => number,
): void {
  const reqId = requestId(request);
  let status = 0;
  const traceId = traceAnswer(request.method ?? '', request.headers, () => (status = answer(reqId)));
  log.info({ reqId, method: request.method, url: loggedUrl(request.url ?? ''), status, traceId }, 'request');
}

const SECURITY_HEADER_LINES = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/** The request line, when the packet Node's parser gave up on starts with one. */
const REQUEST_LINE = /^[A-Z]+ (\S*)( HTTP\/\d\.\d\r?\n)?/;

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused a request before it became one.
 * Headers over `MAX_HEADER_BYTES` are 431, a URL that alone is over it 414, a request not received
 * within the request timeout 408, and anything else malformed (a control character in a header, an
 * unknown method) 400. Under /trpc when the path is known, in tRPC's shape. Headers are never
 * logged: they may hold a token.
 */
export function answerClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Node's parser errors carry the packet it gave up on (Fastify's type for it is not a Buffer's).
  const packet: unknown = error.rawPacket;
  const start = Buffer.isBuffer(packet) ? packet.subarray(0, MAX_HEADER_BYTES).toString('latin1') : '';
  const requestLine = REQUEST_LINE.exec(start);
  const url = requestLine?.[1];
  let status = 400;
  let message = 'Malformed HTTP request';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'The request was not received in time';
  } else if (error.code === 'HPE_HEADER_OVERFLOW' && requestLine && requestLine[2] === undefined) {
    status = 414;
    message = `The URL is longer than ${MAX_HEADER_BYTES / 1024} KiB`;
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    // Node's parser raises the same error for either limit.
    status = 431;
    message = `The request has more than ${MAX_HEADER_LINES} header lines, or its request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KiB`;
  } else if (error.code === 'HPE_INVALID_HEADER_TOKEN') {
    message = 'A header holds a character HTTP does not allow';
  }
  this.log.info({ status, parserError: error.code }, 'client error');
  // Bytes after a request still being answered (pipelined): that request is answered, then Node
  // closes the connection. Cut off, its client would take it as not done although it may be
  // (behaviour §10). (`_httpMessage` is the response Node itself looks at here.)
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) return;
  answerAndClose(socket, url, status, message);
}

/** An error answered on the bare socket, which is then closed: what follows cannot be trusted to frame a request. */
function answerAndClose(socket: Duplex, url: string | undefined, status: number, message: string, headers = ''): void {
  if (socket.writable) {
    const body = JSON.stringify(errorPayload(url, status, message));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${SECURITY_HEADER_LINES}${headers}Content-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * The server's `checkExpectation` listener: an `Expect` other than `100-continue` is 417, in the
 * shape its path's callers read, with the security headers (Node's own 417 has neither).
 */
export function refuseExpectation(log: FastifyBaseLogger, request: IncomingMessage, response: ServerResponse): void {
  const message = `Expect ${JSON.stringify(String(request.headers.expect).slice(0, 40))} is not supported; only 100-continue is`;
  answerOutsideFastify(log, request, (reqId) => {
    response
      .writeHead(417, {
        ...SECURITY_HEADERS,
        'content-type': 'application/json; charset=utf-8',
        connection: 'close',
        'x-request-id': reqId,
      })
      .end(JSON.stringify(errorPayload(request.url, 417, message)));
    return 417;
  });
}

/**
 * The server's `connect` listener: a CONNECT request (a proxy's tunnel) is 405. Without a
 * listener Node closes its socket without an answer.
 */
export function refuseConnect(log: FastifyBaseLogger, request: IncomingMessage, socket: Duplex): void {
  answerOutsideFastify(log, request, (reqId) => {
    // An empty Allow: the authority a CONNECT names is no resource here, and serves no method.
    const headers = `Allow: \r\nx-request-id: ${reqId}\r\n`;
    answerAndClose(socket, request.url, 405, 'CONNECT is not served here: this is not a proxy', headers);
    return 405;
  });
}

/**
 * 408 for a request whose body does not arrive within the request timeout. Node's own
 * `requestTimeout` only covers a request until its headers are in (it then answers 408 itself);
 * once Fastify is reading the body nothing would answer, and the socket timeout would cut it off.
 */
function armBodyTimeout(request: FastifyRequest, reply: FastifyReply, timeoutMs: number): void {
  if (request.raw.complete || !announcesBody(request)) return;
  const timer = setTimeout(
    () => {
      if (reply.sent) return;
      reply.raw.once('finish', () => request.raw.destroy());
      void reply
        .header('connection', 'close')
        .status(408)
        .send(errorPayload(request.url, 408, 'The request body was not received in time'));
    },
    Math.max(0, timeoutMs - reply.elapsedTime),
  );
  request.raw.once('end', () => clearTimeout(timer));
  request.raw.once('close', () => clearTimeout(timer));
}

/**
 * Why the request's Host is refused (RFC 9112 §3.2), if it is: HTTP/1.1 requires one, and Node's
 * own refusal of a request without it has no body; two are refused as Authorization's are
 * (repeated-headers.ts).
 */
function refusalOfHost(request: FastifyRequest): string | undefined {
  if (request.headers.host === undefined) {
    return request.raw.httpVersion === '1.1' ? 'The request has no Host header, which HTTP/1.1 requires' : undefined;
  }
  return repeatsHost(request.raw) ? 'The request has more than one Host header' : undefined;
}

export function registerErrorHandlers(app: FastifyInstance): void {
  const allowedMethods = allowedMethodsRecorder(app);
  const answerUnrouted = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allow = allowedMethods(path);
    // A served method that found nothing (a file missing under /docs/) is a plain 404.
    if (allow === undefined || allow.split(', ').includes(request.method)) {
      return reply.status(404).send(errorPayload(request.url, 404, `No route for ${request.method} ${path}`));
    }
    const message = `${path} does not serve ${request.method}; it serves ${allow}`;
    return reply
      .status(405)
      .header('allow', allow)
      .send(errorPayload(request.url, 405, message));
  };
  app.setErrorHandler((error: FastifyError, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler(answerUnrouted);
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => refuseConnect(app.log, request, socket));
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    refuseExpectation(app.log, request, response),
  );
  const requestTimeoutMs = app.server.requestTimeout;
  // preParsing: after the onRequest hooks (security headers, rate limit), before a body is read, so
  // an unrouted request is answered 404 or 405 whatever its body holds.
  app.addHook('preParsing', (request, reply, payload, done) => {
    const hostRefusal = refusalOfHost(request);
    if (hostRefusal !== undefined) {
      void reply
        .header('connection', 'close')
        .status(400)
        .send(errorPayload(request.url, 400, hostRefusal));
      return;
    }
    if (request.is404) {
      void answerUnrouted(request, reply);
      return;
    }
    if (requestTimeoutMs > 0) armBodyTimeout(request, reply, requestTimeoutMs);
    done(null, payload);
  });
}
