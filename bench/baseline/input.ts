/** A request's body and the values the contract's rules accept. */
import type { IncomingMessage } from 'node:http';
import { badRequest, HttpError } from './errors.ts';

const MAX_BODY_BYTES = 65_536;

export function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  if (!request.headers['content-type']?.startsWith('application/json'))
    return Promise.reject(new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/json'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      if (size > MAX_BODY_BYTES) return reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', 'Body over 64 KiB'));
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error();
        resolve(body);
      } catch {
        reject(badRequest('Malformed JSON'));
      }
    });
  });
}

// eslint-disable-next-line no-control-regex -- the control characters the text rules refuse
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
// zod 4's e-mail pattern, so that both servers accept the same addresses.
const EMAIL = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ROLES = new Set(['owner', 'admin', 'member']);

export function text(value: unknown, field: string, min: number, max: number, trim = false): string {
  if (typeof value !== 'string') throw badRequest(`${field}: expected a string`);
  const result = trim ? value.trim() : value;
  if (result.length < min || result.length > max) throw badRequest(`${field}: ${min} to ${max} characters`);
  if (CONTROL_CHARACTER.test(result) || !result.isWellFormed()) throw badRequest(`${field}: not plain text`);
  return result;
}

export function email(value: unknown): string {
  const address = text(value, 'email', 1, 254);
  if (!EMAIL.test(address)) throw badRequest('email: not an e-mail address');
  return address.toLowerCase();
}

export function role(value: unknown): string {
  if (typeof value !== 'string' || !ROLES.has(value)) throw badRequest('role: owner, admin or member');
  return value;
}

export function organizationIdOf(request: IncomingMessage): string {
  const value = request.headers['organization_id'];
  if (typeof value !== 'string' || !UUID.test(value)) throw badRequest('organization_id: expected a UUID');
  return value;
}

/** An organization id in a path: any case, lower-cased as the service does. */
export function organizationIdIn(value: string): string {
  if (!UUID.test(value)) throw badRequest('organization_id: expected a UUID');
  return value.toLowerCase();
}
