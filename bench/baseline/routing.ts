/**
 * Which request goes where, and how every answer is written, with the service's per-request duties
 * when asked.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { getMemberByKey, KEY_BEARER } from './api-keys.ts';
import { badRequest, forbidden, HttpError, JsonText, notFound, unavailable } from './errors.ts';
import { organizationIdIn, organizationIdOf, readBody, text } from './input.ts';
import { addMember, changeRole, getMember, listMembers, removeMember } from './memberships.ts';
import { createOrganization } from './organizations.ts';
import { searchMembers } from './search.ts';
import { checkPermissions } from './permissions.ts';
import { callerOf } from './tokens.ts';
import { errnoOf, LOCK_WAIT_TIMEOUT, STATEMENT_TIMEOUT, TIMEOUT_MS, type Scope } from './transactions.ts';
import { createUser, getUser } from './users.ts';

const MEMBER_PATH = '/organization-user/';
/** `POST /organizations/{organization_id}/permissions/check`, also under /api. */
const CHECK_PATH = /^(?:\/api)?\/organizations\/([^/]*)\/permissions\/check$/;

/** The user id in a member read's path. */
function memberPathUserId(path: string): string {
  let userId;
  try {
    userId = decodeURIComponent(path.slice(MEMBER_PATH.length));
  } catch {
    throw badRequest('user_id: malformed percent-encoding');
  }
  return text(userId, 'user_id', 1, 128);
}

/** A status, a body and the headers of an answer. */
type Answer = [number, unknown, Record<string, string>?];

async function handle(request: IncomingMessage, scope: Scope): Promise<Answer> {
  const [path, query] = (request.url ?? '/').split('?') as [string, string | undefined];
  if (request.headers.authorization?.startsWith(KEY_BEARER)) {
    // Keys are served on the read the bench sends with one, (m).
    if (!path.startsWith(MEMBER_PATH) || request.method !== 'GET')
      throw forbidden('This baseline serves keys on GET /organization-user/{id} only');
    return getMemberByKey(request.headers.authorization, organizationIdOf(request), memberPathUserId(path), scope);
  }
  const caller = callerOf(request);
  const method = request.method;
  if (path === '/users' || path === '/api/users') {
    if (method === 'GET') return getUser(caller, scope);
    if (method === 'POST') return createUser(caller, await readBody(request), scope);
  } else if (path === '/organizations' || path === '/api/organizations') {
    if (method === 'POST') return createOrganization(caller, await readBody(request), scope);
  } else if (path === '/organization-user') {
    const organizationId = organizationIdOf(request);
    if (method === 'GET') {
      const selection = new URLSearchParams(query);
      if (selection.size === 0) return listMembers(caller, organizationId, scope);
      return searchMembers(caller, organizationId, selection, path, scope);
    }
    if (method === 'POST') return addMember(caller, organizationId, await readBody(request), scope);
    if (method === 'PUT') return changeRole(caller, organizationId, await readBody(request), scope);
    if (method === 'DELETE') return removeMember(caller, organizationId, await readBody(request), scope);
  } else if (path.startsWith(MEMBER_PATH) && method === 'GET') {
    return getMember(caller, organizationIdOf(request), memberPathUserId(path), scope);
  } else if (method === 'POST') {
    const check = CHECK_PATH.exec(path);
    if (check) return checkPermissions(caller, organizationIdIn(check[1]!), await readBody(request), scope);
  }
  throw notFound('No such route');
}

/**
 * BASELINE_DUTIES=true: the baseline also does per request what the service does that its users
 * rely on, so that the bench measures both ways (the issue's "both ways"): a request id, sent back
 * as `x-request-id`; one pino JSON line per request with it (method, URL, status, duration), as
 * the service logs; and the service's security headers (server/http/protection.ts), the same
 * bytes on every answer. Off by default: the bare baseline is the bar the targets name.
 */
const DUTIES = process.env.BASELINE_DUTIES === 'true';
const requestLog = DUTIES ? pino() : undefined;
const SECURITY_HEADERS: Record<string, string> = DUTIES
  ? {
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'cross-origin-resource-policy': 'same-origin',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    }
  : {};

function answer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...SECURITY_HEADERS, ...headers });
  response.end(body instanceof JsonText ? body.text : JSON.stringify(body));
}

function answerError(response: ServerResponse, error: unknown) {
  const errno = errnoOf(error);
  if (errno === LOCK_WAIT_TIMEOUT || errno === STATEMENT_TIMEOUT)
    error = unavailable('The database is busy, try again');
  // mysql2 marks the errors of a connection that failed or could not be made (the database gone).
  else if ((error as { fatal?: boolean }).fatal) error = unavailable('The database is unavailable, try again');
  if (!(error instanceof HttpError)) {
    console.error(error);
    error = new HttpError(500, 'INTERNAL_SERVER_ERROR', 'Internal error');
  }
  const { status, code, message, issues } = error as HttpError;
  answer(
    response,
    status,
    issues ? { code, message, issues } : { code, message },
    status === 503 ? { 'retry-after': '1' } : {},
  );
}

function logged(request: IncomingMessage, response: ServerResponse): void {
  const reqId = randomUUID();
  const started = performance.now();
  response.setHeader('x-request-id', reqId);
  response.on('finish', () =>
    requestLog!.info(
      {
        reqId,
        method: request.method,
        url: request.url,
        status: response.statusCode,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      },
      'request',
    ),
  );
}

/** A little past the budget, so that the request's own waits end it first, as the service's. */
const PROCESSING_LIMIT_MS = TIMEOUT_MS + 200;

/** Serves one request within its budget of DB_TIMEOUT_MS, and its processing limit. */
export function serve(request: IncomingMessage, response: ServerResponse): void {
  if (DUTIES) logged(request, response);
  const scope: Scope = { deadline: Date.now() + TIMEOUT_MS, givenUp: false };
  // One timer per request: at the end of its budget it ends a wait for a connection (the other
  // waits end by then by themselves), then becomes the processing limit.
  let timer = setTimeout(() => {
    scope.stopWaiting?.();
    timer = setTimeout(() => {
      scope.givenUp = true;
      answerError(response, unavailable('The request took too long and was given up'));
    }, PROCESSING_LIMIT_MS - TIMEOUT_MS);
  }, TIMEOUT_MS);
  handle(request, scope).then(
    ([status, body, headers]) => {
      clearTimeout(timer);
      if (!scope.givenUp) answer(response, status, body, headers);
    },
    (error: unknown) => {
      clearTimeout(timer);
      if (!scope.givenUp) answerError(response, error);
    },
  );
}
