/**
 * Who calls: the bearer token, an HS256 JWT checked on node:crypto, and whether they may create
 * users and organizations.
 */
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { forbidden, unauthorized } from './errors.ts';

// A key object made once: createHmac given the raw bytes makes one on every call (~10 µs a token).
const secret = createSecretKey(Buffer.from(process.env.JWT_SECRET ?? ''));
const requireCreatorRole = process.env.REQUIRE_CREATOR_ROLE !== 'false';

export interface Caller {
  userId: string;
  role: unknown;
}

const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Verified tokens by their exact text, as the service keeps them: until they expire and at most a
 * minute, the oldest dropped past 1,000 (a Map keeps insertion order).
 */
const verified = new Map<string, { caller: Caller; until: number }>();

export function callerOf(request: IncomingMessage): Caller {
  const authorization = request.headers.authorization;
  if (!authorization?.startsWith('Bearer ')) throw unauthorized();
  const known = verified.get(authorization);
  if (known && known.until > Date.now()) return known.caller;
  const entry = verifiedCaller(authorization);
  verified.delete(authorization);
  if (verified.size >= 1000) verified.delete(verified.keys().next().value!);
  verified.set(authorization, entry);
  return entry.caller;
}

function verifiedCaller(authorization: string): { caller: Caller; until: number } {
  const [header, payload, signature, extra] = authorization.slice(7).split('.');
  if (!header || !payload || !signature || extra !== undefined) throw unauthorized();
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthorized();
  let claims;
  try {
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'HS256') throw unauthorized();
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  } catch {
    throw unauthorized();
  }
  const now = Date.now() / 1000;
  if (typeof claims.exp !== 'number' || claims.exp + CLOCK_TOLERANCE_SECONDS < now) throw unauthorized();
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf - CLOCK_TOLERANCE_SECONDS > now))
    throw unauthorized();
  if (typeof claims.sub !== 'string' || claims.sub.length < 1 || claims.sub.length > 128) throw unauthorized();
  return {
    caller: { userId: claims.sub, role: claims.role },
    until: Math.min((claims.exp + CLOCK_TOLERANCE_SECONDS) * 1000, Date.now() + 60_000),
  };
}

export function assertMayCreate(caller: Caller): void {
  if (requireCreatorRole && caller.role !== 'owner' && caller.role !== 'admin')
    throw forbidden('Creating this needs the owner or admin role in the token');
}
