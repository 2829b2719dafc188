/**
 * Sets an organization's seat limit (behaviour §16). Straight in the database until the service's
 * `PUT /organizations/{organization_id}/limits` is there; the one place to change when it is.
 */
import type { Database } from '../../server/platform/database/schema.ts';
import { openBesideService } from './databases.ts';
import type { TestServer } from './server.ts';

export async function setMaxMembers(
  server: Pick<TestServer, 'databaseUrl'>,
  organizationId: string,
  maxMembers: number | null,
) {
  const orm = await openBesideService(server.databaseUrl);
  try {
    await orm.em
      .getKysely<Database>()
      .updateTable('organizations')
      .set({ max_members: maxMembers })
      .where('id', '=', organizationId)
      .execute();
  } finally {
    await orm.close();
  }
}
