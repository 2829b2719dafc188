/**
 * The Standard Webhooks signature (behaviour §13): `v1,` and the base64 HMAC-SHA256, keyed by the
 * secret's bytes (base64 after `whsec_`), of `<webhook-id>.<webhook-timestamp>.<body>`; one per
 * secret that signs, space-separated, so a receiver holding either secret during a rotation
 * verifies. Written with node:crypto rather than the `standardwebhooks` package, which signs with
 * one secret at a time; the tests verify every delivery with that package.
 */
import { createHmac } from 'node:crypto';

const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(content).digest('base64')}`)
    .join(' ');
}
