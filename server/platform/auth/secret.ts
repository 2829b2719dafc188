/**
 * The HS256 secret: `JWT_SECRET`, or in development a random secret created once under DATA_DIR so
 * that `npm start` and `npm run token` agree without any setting.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProduction, SettingsError, type Settings } from '../config.ts';
import { makeDirectory } from '../make-directory.ts';

export const MIN_SECRET_BYTES = 32;

const encode = (text: string) => new TextEncoder().encode(text);

/** The read of DATA_DIR's jwt-secret failed for what stands there: what it is, for the line that says so. */
const UNREADABLE_SECRET: Record<string, string> = { EISDIR: 'is a directory', ENOENT: 'is a link to nothing' };

function loadOrCreateDevelopmentSecret(dataDir: string): Uint8Array {
  const file = join(dataDir, 'jwt-secret');
  makeDirectory(dataDir);
  try {
    // 'wx' fails if the file exists, so two processes starting at once keep one secret.
    writeFileSync(file, randomBytes(48).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // What stands there was not made by the service: say so, not blame JWT_SECRET, which is unset.
  const fix = 'remove it to have a new secret made there, or set JWT_SECRET';
  let secret: Uint8Array;
  try {
    secret = encode(readFileSync(file, 'utf8').trim());
  } catch (error) {
    const what = UNREADABLE_SECRET[(error as NodeJS.ErrnoException).code ?? ''];
    if (what) throw new SettingsError(`DATA_DIR's development secret ${file} ${what}: ${fix}`);
    throw error;
  }
  if (secret.byteLength < MIN_SECRET_BYTES) {
    throw new SettingsError(`DATA_DIR's development secret ${file} holds fewer than ${MIN_SECRET_BYTES} bytes: ${fix}`);
  }
  return secret;
}

/** The HS256 secret in force, or undefined where only asymmetric keys are configured. */
export function resolveHmacSecret(settings: Settings): Uint8Array | undefined {
  const asymmetric = settings.JWT_JWKS_URL !== undefined || settings.JWT_PUBLIC_KEY !== undefined;
  if (settings.JWT_SECRET === undefined) {
    if (asymmetric) return undefined;
    if (isProduction(settings)) {
      throw new SettingsError(
        'NODE_ENV=production needs a token key: set JWT_SECRET (at least 32 bytes), JWT_JWKS_URL or JWT_PUBLIC_KEY',
      );
    }
    return loadOrCreateDevelopmentSecret(settings.DATA_DIR);
  }
  const bytes = encode(settings.JWT_SECRET);
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new SettingsError(`JWT_SECRET is too weak: it must be at least ${MIN_SECRET_BYTES} bytes long`);
  }
  return bytes;
}
