/**
 * `npm run token -- --sub USER_ID [--role owner|admin|member] [--exp 1h]`: prints a signed HS256
 * development token for the configured secret (JWT_SECRET, or the development secret in DATA_DIR).
 * Wrong options end with one line and exit code 2; `--help` prints the usage.
 */
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { ROLES, builtInRoleSchema, userIdSchema } from '../../shared/fields.ts';
import { resolveHmacSecret } from '../platform/auth/secret.ts';
import { readSettings, type Settings } from '../platform/config.ts';
import { exitWithFailure } from './failures.ts';

const USAGE = `Usage: npm run -s token -- --sub USER_ID [--role ROLE] [--exp DURATION]

Prints a signed development token (HS256) for the configured JWT_SECRET, or for the
development secret that npm start keeps in DATA_DIR. Adds JWT_ISSUER and JWT_AUDIENCE if set.

  --sub USER_ID    the caller's user id, 1 to 128 characters (required)
  --role ROLE      ${ROLES.join(', ')}: the role POST /users and POST /organizations read
  --exp DURATION   lifetime: a number and a unit, as 30s, 15m, 1h, 7d (default 1h)
  --help           this text`;

function usageError(message: string): never {
  console.error(`npm run token: ${message} (npm run token -- --help shows the usage)`);
  process.exit(2);
}

function readOptions() {
  try {
    return parseArgs({
      options: {
        sub: { type: 'string' },
        role: { type: 'string' },
        exp: { type: 'string', default: '1h' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    // Node's messages for unknown options, missing values and stray arguments are one line each.
    return usageError((error as Error).message);
  }
}

/** The token, unsigned; every option checked. */
function buildToken(options: ReturnType<typeof readOptions>): SignJWT {
  if (options.sub === undefined) usageError('--sub is required');
  if (!userIdSchema.safeParse(options.sub).success) usageError('--sub must be 1 to 128 characters');
  if (options.role !== undefined && !builtInRoleSchema.safeParse(options.role).success) {
    usageError(`--role must be one of ${ROLES.join(', ')} (got "${options.role}")`);
  }
  const token = new SignJWT(options.role === undefined ? {} : { role: options.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.sub)
    .setIssuedAt();
  try {
    // jose parses the duration; its own error for a bad one does not name the option.
    return token.setExpirationTime(options.exp);
  } catch {
    return usageError(`--exp must be a number and a unit, as 30s, 15m, 1h or 7d (got "${options.exp}")`);
  }
}

const options = readOptions();
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const token = buildToken(options);

let settings: Settings | undefined;
try {
  settings = readSettings();
  const secret = resolveHmacSecret(settings);
  if (!secret) {
    console.error(
      'npm run token: only asymmetric keys are configured (JWT_JWKS_URL / JWT_PUBLIC_KEY): mint tokens with their private key',
    );
    process.exit(2);
  }
  if (settings.JWT_ISSUER) token.setIssuer(settings.JWT_ISSUER);
  if (settings.JWT_AUDIENCE) token.setAudience(settings.JWT_AUDIENCE);
  console.log(await token.sign(secret));
} catch (error) {
  exitWithFailure(error, settings);
}
