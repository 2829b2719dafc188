/**
 * Bearer credentials (behaviour §2, §16): a person's JWT, or a key's secret.
 *
 * A JWT is verified here. HS256 uses the shared secret (signature on node:crypto, see hs256.ts);
 * RS256, ES256 and EdDSA use a JWKS endpoint or a PEM public key, through jose. Each algorithm is
 * tied to its own key, so an HS256 token signed with a public key (algorithm confusion) and
 * `alg: none` never verify.
 *
 * A key's secret (`oak_…`, an organization's API key; `sak_…`, an application key) is only checked
 * for its shape and turned into its SHA-256 here: whether a key with that hash exists, is live and
 * may act is one indexed read, made by the authorization guard with the request's first statement
 * (authorization/access.ts), so that a revoked key is refused at once on every instance.
 */
import { createPublicKey, hash, type KeyObject } from 'node:crypto';
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JWTClaimVerificationOptions,
  type JWTPayload,
  type JWTVerifyGetKey,
  type ProtectedHeaderParameters,
} from 'jose';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { z } from 'zod';
import { SettingsError, type Settings } from '../config.ts';
import { badRequest, DomainError, unauthorized } from '../errors.ts';
import { userIdSchema } from '../../../shared/fields.ts';
import { hs256Verifier } from './hs256.ts';
import { resolveHmacSecret } from './secret.ts';

/** A person, by their token. */
export interface PersonCaller {
  kind: 'person';
  /** The token's `sub`. */
  userId: string;
  /** The token's `role` claim; it only matters for the two creation endpoints (behaviour §3.1). */
  tokenRole: string | undefined;
  /** The token's `email` claim, lower-cased, when it is verified (`email_verified: true`, behaviour §17). */
  verifiedEmail: string | undefined;
}

/** A key, by the hash of its secret: not yet known to exist (see the module comment). */
export interface KeyCaller {
  kind: 'organization_key' | 'application_key';
  /** base64url SHA-256 of the secret: what the key's row is found by. */
  secretHash: string;
}

export type Caller = PersonCaller | KeyCaller;

export type VerifyToken = (authorizationHeader: string | undefined) => Promise<Caller>;

/** The prefix of each kind of key's secret, then 32 random bytes in base64url (43 characters). */
export const KEY_PREFIXES = { organization_key: 'oak_', application_key: 'sak_' } as const;
const KEY_SECRET = /^(oak|sak)_[A-Za-z0-9_-]{43}$/;

/** The hash a key's secret is stored and found by. */
export const secretHashOf = (secret: string): string => hash('sha256', secret, 'base64url');

/** A key's secret as a caller, or 401 when it is not of a key's shape. */
function keyCaller(secret: string): KeyCaller {
  if (!KEY_SECRET.test(secret)) throw unauthorized('Invalid API key');
  const kind = secret.startsWith(KEY_PREFIXES.organization_key) ? 'organization_key' : 'application_key';
  return { kind, secretHash: secretHashOf(secret) };
}

const CLOCK_TOLERANCE_SECONDS = 30;
/** A bearer token longer than this is rejected unread: real tokens are far smaller. */
const MAX_TOKEN_LENGTH = 8192;
const ASYMMETRIC_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
/**
 * Verified tokens kept, by their exact text: a page's many calls carry the same token, and
 * verifying it again (signature, header and claims) was a large share of a read's CPU. An entry lasts
 * until the token expires, and at most a minute, so that a key taken out of a JWKS stops
 * verifying within a minute, as it would with jose's own key cache.
 */
const VERIFIED_TOKENS_KEPT = 1000;
const VERIFIED_TOKEN_LIFE_MS = 60_000;

/**
 * The claims a token is refused for (401). `email` and `email_verified` are not among them: they
 * only qualify a caller's e-mail as verified (verifiedEmailOf), and a token whose `email_verified`
 * is not `true` (identity providers that send the string "true" among them) just does not qualify.
 */
const claimsSchema = z.object({
  sub: userIdSchema,
  role: z.string().optional(),
});

/** What each claim the service reads must be, for the 401 that names the one that is not. */
const CLAIM_RULES: Record<keyof z.infer<typeof claimsSchema>, string> = {
  sub: 'a string of 1 to 128 characters without control characters',
  role: 'a string when present',
};

/** The token's `email`, lower-cased, when `email_verified` is `true` and it can be an address (behaviour §17). */
function verifiedEmailOf({ email, email_verified }: JWTPayload): string | undefined {
  return email_verified === true && typeof email === 'string' && email.length <= 254 ? email.toLowerCase() : undefined;
}

function invalidClaims(error: z.ZodError) {
  const claim = String(error.issues[0]?.path[0] ?? 'sub') as keyof typeof CLAIM_RULES;
  return unauthorized(`Token claim ${claim} must be ${CLAIM_RULES[claim] ?? CLAIM_RULES.sub}`);
}

/**
 * The one algorithm JWT_PUBLIC_KEY verifies. A key jose would refuse for it (ES256 is P-256 only,
 * RS256 needs 2048 bits) is refused at start: every token would get 503 otherwise.
 */
function algorithmOfPublicKey(key: KeyObject): string {
  const { namedCurve, modulusLength = 0 } = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
      if (modulusLength < 2048) {
        throw new SettingsError(`JWT_PUBLIC_KEY is an RSA key of ${modulusLength} bits: RS256 needs 2048 or more`);
      }
      return 'RS256';
    case 'ec':
      if (namedCurve !== 'prime256v1') {
        throw new SettingsError(`JWT_PUBLIC_KEY is an EC key on ${namedCurve}: ES256 needs P-256 (prime256v1)`);
      }
      return 'ES256';
    case 'ed25519':
      return 'EdDSA';
    default:
      throw new SettingsError(`JWT_PUBLIC_KEY has an unsupported key type: ${key.asymmetricKeyType}`);
  }
}

interface AsymmetricKeys {
  algorithms: string[];
  resolve: JWTVerifyGetKey;
}

/** The token keys could not be obtained: the service's outage, answered 503 (behaviour §2). */
class KeysUnavailable extends Error {
  override name = 'KeysUnavailable';
}

/**
 * Whether jose failed to obtain the key set rather than to find a key in it: no answer in time, an
 * answer that is not 200 or not JSON (jose's generic JOSEError, thrown for nothing else), not a
 * JWKS, or no connection at all (not a JOSEError).
 */
const failedToObtainKeys = (error: unknown) =>
  !(error instanceof joseErrors.JOSEError) ||
  error instanceof joseErrors.JWKSTimeout ||
  error instanceof joseErrors.JWKSInvalid ||
  error.code === joseErrors.JOSEError.code;

type KeyLog = Pick<Logger, 'warn' | 'info'>;

/** The JWKS's keys; a failure to obtain them is logged once per failing stretch, not per request. */
function remoteKeys(url: string, cooldownMs: number, log: KeyLog): JWTVerifyGetKey {
  // jose caches the key set, refetches on an unknown `kid` at most once per cooldown, and gives
  // up on a slow endpoint after the timeout instead of holding requests.
  const jwks = createRemoteJWKSet(new URL(url), {
    timeoutDuration: 2000,
    cooldownDuration: cooldownMs,
    cacheMaxAge: 10 * 60_000,
  });
  // Logged without any user, password or query string the URL may carry.
  const { origin, pathname } = new URL(url);
  const shownUrl = origin + pathname;
  let failing = false;
  return async (header, token) => {
    try {
      const key = await jwks(header, token);
      if (failing) log.info('token keys: the JWKS endpoint answers again');
      failing = false;
      return key;
    } catch (error) {
      if (!failedToObtainKeys(error)) throw error;
      if (!failing) log.warn({ err: error, url: shownUrl }, 'token keys: cannot obtain the JWKS, answering 503');
      failing = true;
      throw new KeysUnavailable('Token keys are unavailable', { cause: error });
    }
  };
}

function asymmetricKeys(settings: Settings, log: KeyLog): AsymmetricKeys | undefined {
  if (settings.JWT_JWKS_URL) {
    const resolve = remoteKeys(settings.JWT_JWKS_URL, settings.JWT_JWKS_COOLDOWN_MS, log);
    return { algorithms: [...ASYMMETRIC_ALGORITHMS], resolve };
  }
  if (settings.JWT_PUBLIC_KEY) {
    let key: KeyObject;
    try {
      key = createPublicKey(settings.JWT_PUBLIC_KEY.replace(/\\n/g, '\n'));
    } catch {
      throw new SettingsError('JWT_PUBLIC_KEY is not a PEM public key');
    }
    return { algorithms: [algorithmOfPublicKey(key)], resolve: () => key };
  }
  return undefined;
}

/**
 * Two credentials in one request: two Authorization headers (the HTTP layer joins them with a
 * comma), or one header with two after its `Bearer`, separated by a comma or a space, the second
 * with a `Bearer` of its own or without (`Bearer oak_… eyJ…`).
 */
const SEVERAL_CREDENTIALS = /,\s*Bearer\s|^Bearer\s+[^\s,]+(?:\s*,\s*|\s+)\S/i;

function bearerToken(header: string | undefined): string {
  // A token and a key together: which one acts would be a guess, so neither does (behaviour §16).
  if (header !== undefined && SEVERAL_CREDENTIALS.test(header)) {
    throw badRequest('Send one credential, a token or a key, in one Authorization header');
  }
  const match = /^Bearer +([^\s]+) *$/i.exec(header ?? '');
  if (!match?.[1] || match[1].length > MAX_TOKEN_LENGTH) throw unauthorized();
  return match[1];
}

/** The token's protected header, or 401 when it has none that parses. */
function protectedHeaderOf(token: string): ProtectedHeaderParameters {
  try {
    return decodeProtectedHeader(token);
  } catch {
    throw unauthorized();
  }
}

export function createTokenVerifier(settings: Settings, log: KeyLog): VerifyToken {
  const claimChecks: JWTClaimVerificationOptions = {
    issuer: settings.JWT_ISSUER,
    audience: settings.JWT_AUDIENCE,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp'],
  };
  const secret = resolveHmacSecret(settings);
  const verifyHs256 = secret ? hs256Verifier(secret, claimChecks) : undefined;
  const asymmetric = asymmetricKeys(settings, log);

  /** Each algorithm verifies only with its own key: HS256 with the secret, the others with jose. */
  const verifiedPayload = async (token: string): Promise<JWTPayload> => {
    const header = protectedHeaderOf(token);
    if (header.alg === 'HS256') {
      // No JWS extension is supported; jose would refuse an unrecognised `crit` just the same.
      if (!verifyHs256 || header.crit !== undefined) throw unauthorized();
      return verifyHs256(token);
    }
    if (!asymmetric) throw unauthorized();
    const { payload } = await jwtVerify(token, asymmetric.resolve, {
      ...claimChecks,
      algorithms: asymmetric.algorithms,
    });
    return payload;
  };

  const verified = new LRUCache<string, PersonCaller>({ max: VERIFIED_TOKENS_KEPT });

  return async (authorizationHeader) => {
    const token = bearerToken(authorizationHeader);
    if (token.startsWith(KEY_PREFIXES.organization_key) || token.startsWith(KEY_PREFIXES.application_key)) {
      return keyCaller(token);
    }
    const known = verified.get(token);
    if (known) return known;
    let payload: JWTPayload;
    try {
      payload = await verifiedPayload(token);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // A key set that cannot be obtained is our outage, not the caller's fault.
      if (error instanceof KeysUnavailable || !(error instanceof joseErrors.JOSEError)) {
        throw new DomainError('SERVICE_UNAVAILABLE', 'Token keys are unavailable, try again later');
      }
      throw unauthorized(error instanceof joseErrors.JWTExpired ? 'Token has expired' : 'Invalid bearer token');
    }
    const claims = claimsSchema.safeParse(payload);
    if (!claims.success) throw invalidClaims(claims.error);
    const caller: PersonCaller = {
      kind: 'person',
      userId: claims.data.sub,
      tokenRole: claims.data.role,
      verifiedEmail: verifiedEmailOf(payload),
    };
    // exp is a required claim, checked above with the clock tolerance: the entry ends with it.
    const validForMs = (payload.exp! + CLOCK_TOLERANCE_SECONDS) * 1000 - Date.now();
    // (A ttl of 0 would keep the entry for ever: a token about to expire is not kept at all.)
    if (validForMs >= 1) verified.set(token, caller, { ttl: Math.min(validForMs, VERIFIED_TOKEN_LIFE_MS) });
    return caller;
  };
}
