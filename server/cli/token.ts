/**
 * `npm run token -- --sub USER_ID --role owner [--exp 1h]`: prints a signed HS256 development
 * token for the configured secret (JWT_SECRET, or the development secret under ./data/).
 */
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { readSettings } from '../config.ts';
import { resolveHmacSecret } from '../auth/secret.ts';

const { values } = parseArgs({
  options: {
    sub: { type: 'string' },
    role: { type: 'string' },
    exp: { type: 'string', default: '1h' },
  },
});

if (!values.sub) {
  console.error('Usage: npm run token -- --sub USER_ID [--role owner|admin|member] [--exp 1h]');
  process.exit(2);
}

const settings = readSettings();
const secret = resolveHmacSecret(settings);
if (!secret) {
  console.error(
    'Only asymmetric keys are configured (JWT_JWKS_URL / JWT_PUBLIC_KEY): mint tokens with their private key',
  );
  process.exit(2);
}

let token = new SignJWT(values.role ? { role: values.role } : {})
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setSubject(values.sub)
  .setIssuedAt()
  .setExpirationTime(values.exp);
if (settings.JWT_ISSUER) token = token.setIssuer(settings.JWT_ISSUER);
if (settings.JWT_AUDIENCE) token = token.setAudience(settings.JWT_AUDIENCE);
console.log(await token.sign(secret));
