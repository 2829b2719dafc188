/** Seeding an organization through the REST API, as `npm run bench` and `npm run bench:ab` do. */
import { pooled } from '../tests/support/pooled.ts';

/** A seeding call as seeded user `as`, which must succeed: the answer's JSON body. */
export type SeedCall = (
  method: string,
  path: string,
  as: number,
  body: object,
  organizationId?: string,
) => Promise<any>;

/**
 * An organization named `name`, owned by user `owner`, with users `owner + 1` to
 * `owner + members - 1` (already created) added as members, 32 at a time: its id.
 */
export async function seedOrganization(
  call: SeedCall,
  owner: number,
  members: number,
  name: string,
  email: (user: number) => string,
): Promise<string> {
  const { organization_id } = await call('POST', '/organizations', owner, {
    organization_name: name,
    organization_description: '',
  });
  await pooled(members - 1, 32, (offset) =>
    call('POST', '/organization-user', owner, { email: email(owner + offset + 1), role: 'member' }, organization_id),
  );
  return organization_id;
}
