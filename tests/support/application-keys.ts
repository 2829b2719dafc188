/**
 * The application's keys for tests (behaviour §16): written as `npm run app-key -- create` writes
 * one (server/cli/app-key.ts), into the database of an in-process server.
 */
import { newKeySecret } from '../../server/modules/api-keys/api-keys.service.ts';
import { secretHashOf } from '../../server/platform/auth/tokens.ts';
import { locateDatabase } from '../../server/platform/database/engine.ts';
import { newId } from '../../server/platform/database/ids.ts';
import { toDbTimestamp, type Database } from '../../server/platform/database/schema.ts';
import type { TestServer } from './server.ts';

/** A new application key's secret (`sak_…`). */
export async function createApplicationKey(server: TestServer, name = 'Test application'): Promise<string> {
  const secret = newKeySecret('application_key');
  const { engine } = locateDatabase(server.databaseUrl);
  await server.service.orm.em
    .getKysely<Database>()
    .insertInto('application_keys')
    .values({
      id: newId(),
      name,
      prefix: secret.slice(0, 12),
      secret_hash: secretHashOf(secret),
      created_at: toDbTimestamp(engine, new Date()),
      revoked_at: null,
      last_used_at: null,
    })
    .execute();
  return secret;
}
