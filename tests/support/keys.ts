/** Organization API keys made over REST, as an organization's owner makes them (behaviour §16). */
import { expect } from 'vitest';
import type { TestServer } from './server.ts';

export interface CreatedKey {
  key_id: string;
  name: string;
  role: string;
  prefix: string;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  secret: string;
}

/** The shape of an organization key's secret: `oak_` and 32 random bytes in base64url. */
export const ORGANIZATION_KEY_SECRET = /^oak_[A-Za-z0-9_-]{43}$/;

/** Makes a key with `role` in the organization, as the holder of `token` (a person's or a key's). */
export async function createKey(
  server: Pick<TestServer, 'call'>,
  token: string,
  organizationId: string,
  role: string,
  extra: { name?: string; expires_at?: string } = {},
): Promise<CreatedKey> {
  const created = await server.call('POST', `/organizations/${organizationId}/api-keys`, {
    token,
    body: { name: extra.name ?? `Key with ${role}`, role, ...extra },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as CreatedKey;
}
