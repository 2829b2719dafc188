/** Real signed tokens for the tests, made with jose as an identity provider would. */
import { SignJWT, type JWTPayload } from 'jose';

export const TEST_SECRET = 'test-secret-that-is-at-least-32-bytes-long!';
const secretKey = new TextEncoder().encode(TEST_SECRET);

export interface TokenOptions {
  role?: string;
  expiresIn?: string | number;
  claims?: JWTPayload;
  key?: Uint8Array;
}

export function tokenFor(sub: string | undefined, options: TokenOptions = {}): Promise<string> {
  const payload: JWTPayload = { ...(options.role ? { role: options.role } : {}), ...options.claims };
  let jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m');
  if (sub !== undefined) jwt = jwt.setSubject(sub);
  return jwt.sign(options.key ?? secretKey);
}
