/**
 * The contract's error body `{code, message, issues?}` (CONTRACT 5) for errors raised outside tRPC:
 * Fastify's own (malformed JSON, body too large, unknown route) and unexpected failures.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ErrorBody, ErrorCode } from '../../shared/errors.ts';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

const errorCodeForStatus = (status: number): ErrorCode =>
  CODE_BY_STATUS[status] ?? (status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');

const FRIENDLY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Malformed JSON in request body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty but Content-Type is application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is larger than 64 KiB',
};

function errorBodyFor(error: FastifyError): { status: number; body: ErrorBody } {
  const status =
    error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
  const message = status >= 500 ? 'Internal server error' : (FRIENDLY_MESSAGES[error.code] ?? error.message);
  return { status, body: { code: errorCodeForStatus(status), message } };
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, body } = errorBodyFor(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ code: 'NOT_FOUND', message: `No route for ${request.method} ${request.url.split('?')[0]}` }),
  );
}
