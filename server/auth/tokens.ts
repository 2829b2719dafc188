/**
 * Bearer token verification (CONTRACT 2) with jose. HS256 uses the shared secret; RS256, ES256 and
 * EdDSA use a JWKS endpoint or a PEM public key. Each algorithm is tied to its own key, so an HS256
 * token signed with a public key (algorithm confusion) and `alg: none` never verify.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { SettingsError, type Settings } from '../config.ts';
import { DomainError, unauthorized } from '../errors.ts';
import { userIdSchema } from '../../shared/schemas.ts';
import { resolveHmacSecret } from './secret.ts';

export interface Caller {
  /** The token's `sub`. */
  userId: string;
  /** The token's `role` claim; it only matters for the two creation endpoints (CONTRACT 3.1). */
  tokenRole: string | undefined;
}

export type VerifyToken = (authorizationHeader: string | undefined) => Promise<Caller>;

const CLOCK_TOLERANCE_SECONDS = 30;
/** A bearer token longer than this is rejected unread: real tokens are far smaller. */
const MAX_TOKEN_LENGTH = 8192;
const ASYMMETRIC_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;

const claimsSchema = z.object({ sub: userIdSchema, role: z.string().optional() });

function algorithmOfPublicKey(key: KeyObject): string {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RS256';
    case 'ec':
      return 'ES256';
    case 'ed25519':
      return 'EdDSA';
    default:
      throw new SettingsError(`JWT_PUBLIC_KEY has an unsupported key type: ${key.asymmetricKeyType}`);
  }
}

interface AsymmetricKeys {
  algorithms: string[];
  resolve: JWTVerifyGetKey | KeyObject;
}

function asymmetricKeys(settings: Settings): AsymmetricKeys | undefined {
  if (settings.JWT_JWKS_URL) {
    // jose caches the key set, refetches on an unknown `kid` at most once per cooldown, and gives
    // up on a slow endpoint after the timeout instead of holding requests.
    const jwks = createRemoteJWKSet(new URL(settings.JWT_JWKS_URL), {
      timeoutDuration: 2000,
      cooldownDuration: settings.JWT_JWKS_COOLDOWN_MS,
      cacheMaxAge: 10 * 60_000,
    });
    return { algorithms: [...ASYMMETRIC_ALGORITHMS], resolve: jwks };
  }
  if (settings.JWT_PUBLIC_KEY) {
    let key: KeyObject;
    try {
      key = createPublicKey(settings.JWT_PUBLIC_KEY.replace(/\\n/g, '\n'));
    } catch {
      throw new SettingsError('JWT_PUBLIC_KEY is not a PEM public key');
    }
    return { algorithms: [algorithmOfPublicKey(key)], resolve: key };
  }
  return undefined;
}

function bearerToken(header: string | undefined): string {
  const match = /^Bearer +([^\s]+) *$/i.exec(header ?? '');
  if (!match?.[1] || match[1].length > MAX_TOKEN_LENGTH) throw unauthorized();
  return match[1];
}

export function createTokenVerifier(settings: Settings): VerifyToken {
  const secretBytes = resolveHmacSecret(settings);
  // Imported once: handing jose raw bytes makes it import a WebCrypto key on every verification.
  const secret = secretBytes
    ? crypto.subtle.importKey('raw', secretBytes as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [
        'verify',
      ])
    : undefined;
  const asymmetric = asymmetricKeys(settings);
  const algorithms = [...(secret ? ['HS256'] : []), ...(asymmetric?.algorithms ?? [])];

  const keyFor: JWTVerifyGetKey = async (header, token) => {
    if (header.alg === 'HS256' && secret) return secret;
    if (!asymmetric) throw unauthorized();
    return typeof asymmetric.resolve === 'function' ? asymmetric.resolve(header, token) : asymmetric.resolve;
  };

  return async (authorizationHeader) => {
    const token = bearerToken(authorizationHeader);
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, keyFor, {
        algorithms,
        issuer: settings.JWT_ISSUER,
        audience: settings.JWT_AUDIENCE,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // A key set that cannot be fetched is our outage, not the caller's fault.
      if (error instanceof joseErrors.JWKSTimeout || !(error instanceof joseErrors.JOSEError)) {
        throw new DomainError('SERVICE_UNAVAILABLE', 'Token keys are unavailable, try again later');
      }
      throw unauthorized(error instanceof joseErrors.JWTExpired ? 'Token has expired' : 'Invalid bearer token');
    }
    const claims = claimsSchema.safeParse(payload);
    if (!claims.success)
      throw unauthorized('Token claims missing or invalid: sub must be a string of 1 to 128 characters');
    return { userId: claims.data.sub, tokenRole: claims.data.role };
  };
}
