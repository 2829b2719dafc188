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

function loadOrCreateDevelopmentSecret(dataDir: string): string {
  const file = join(dataDir, 'jwt-secret');
  makeDirectory(dataDir);
  try {
    // 'wx' fails if the file exists, so two processes starting at once keep one secret.
    writeFileSync(file, randomBytes(48).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}

/** The HS256 secret in force, or undefined where only asymmetric keys are configured. */
export function resolveHmacSecret(settings: Settings): Uint8Array | undefined {
  const asymmetric = settings.JWT_JWKS_URL !== undefined || settings.JWT_PUBLIC_KEY !== undefined;
  let secret = settings.JWT_SECRET;
  if (secret === undefined) {
    if (asymmetric) return undefined;
    if (isProduction(settings)) {
      throw new SettingsError(
        'NODE_ENV=production needs a token key: set JWT_SECRET (at least 32 bytes), JWT_JWKS_URL or JWT_PUBLIC_KEY',
      );
    }
    secret = loadOrCreateDevelopmentSecret(settings.DATA_DIR);
  }
  const bytes = new TextEncoder().encode(secret);
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new SettingsError(`JWT_SECRET is too weak: it must be at least ${MIN_SECRET_BYTES} bytes long`);
  }
  return bytes;
}
