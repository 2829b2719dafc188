/**
 * HS256 verification on node:crypto, the one place where the service does not leave the JWS work
 * to jose. jose 6 verifies only through WebCrypto, whose HMAC runs as an async job on the libuv
 * thread pool: several times the CPU per token of node:crypto here (`npm run bench:tokens`), paid
 * on every request. The claims (exp, nbf, iss, aud, required ones) are
 * still checked by jose: `UnsecuredJWT.decode` is its public entry to that check without a
 * signature, and it is only reached with a payload whose signature has just been verified.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { errors, UnsecuredJWT, type JWTClaimVerificationOptions, type JWTPayload } from 'jose';

/** `{"alg":"none"}`: the header under which jose's claim check accepts the verified payload. */
const UNSIGNED_HEADER = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');

/**
 * An HS256 signature as base64url writes it: 32 bytes are 43 characters, the last of which carries
 * 4 bits and two spare zero bits (A, E, I, …). Buffer's decoder skips characters it does not know
 * and ignores spare bits, so without this `<token>!!`, or one with its last character changed from
 * A to B, would verify.
 */
const SIGNATURE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

function signatureMatches(key: KeyObject, signingInput: string, signature: string): boolean {
  if (!SIGNATURE.test(signature)) return false;
  const expected = createHmac('sha256', key).update(signingInput).digest();
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A verifier for compact HS256 tokens whose header the caller has already read (alg HS256, no
 * `crit`). Throws jose's own errors, so callers handle both paths alike.
 */
export function hs256Verifier(secret: Uint8Array, options: JWTClaimVerificationOptions) {
  const key = createSecretKey(secret);
  return (token: string): JWTPayload => {
    const [header, payload, signature, extra] = token.split('.');
    if (header === undefined || payload === undefined || signature === undefined || extra !== undefined) {
      throw new errors.JWSInvalid('Compact JWS must have three parts');
    }
    if (!signatureMatches(key, `${header}.${payload}`, signature)) {
      throw new errors.JWSSignatureVerificationFailed();
    }
    return UnsecuredJWT.decode(`${UNSIGNED_HEADER}.${payload}.`, options).payload;
  };
}
