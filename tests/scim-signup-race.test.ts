/**
 * An identity provider's SCIM POST /Users of an e-mail racing the person's own POST /users with
 * that e-mail verified in their token (behaviour §18): an active directory user is a member at
 * once when a record has their userName as its e-mail, otherwise from the moment the person makes
 * their record. Whichever lands first, once both have answered the person is a member; never does
 * each miss the other, leaving them out until the directory's next change. Every round runs; what
 * went wrong in any of them is listed at the end.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, uniqueId } from './support/fixtures.ts';
import { oktaUser, organizationKey, scimClient, type ScimClient } from './support/scim.ts';
import { useServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

/**
 * Rounds, half with each request sent first. On MariaDB, without the directory's current read of
 * the record, neither saw the other in 8 and 4 pairs of two runs of 320 (2, 3 and 0 in runs of 180).
 */
const ROUNDS = 40;

/** Pairs a round sends at once, each person in an organization of their own. */
const PAIRS = 8;

describeOnEachDatabase('SCIM provisioning racing the person’s sign-up', (target) => {
  const server = useServer(target);
  /** The embedded database makes one change at a time: a third of the rounds keep the file's time down. */
  const rounds = target.name === 'embedded' ? Math.ceil(ROUNDS / 3) : ROUNDS;

  /** One person's sign-up and their provisioning, the second sent `delay` ms after the first. */
  async function pair(scim: ScimClient, directoryFirst: boolean, delay: number) {
    const id = uniqueId('person');
    const email = `${id}@example.com`;
    const token = await tokenFor(id, { role: 'owner', claims: { email, email_verified: true } });
    const later = async <T>(send: () => Promise<T>) => {
      await sleep(delay);
      return send();
    };
    const provision = () => scim.send('POST', '/Users', oktaUser(email));
    const signUp = () =>
      server().call('POST', '/users', { token, body: { first_name: 'Ann', last_name: 'Lee', email } });
    const [provisioned, signedUp] = await Promise.all(
      directoryFirst ? [provision(), later(signUp)] : [later(provision), signUp()],
    );
    return { id, provisioned, signedUp };
  }

  it('makes the person a member whichever comes first (§18)', async () => {
    const owner = await registerUser(server(), 'owner');
    const organizations: Array<{ organizationId: string; scim: ScimClient }> = [];
    for (let index = 0; index < PAIRS; index++) {
      const organizationId = await createOrganization(server(), owner);
      organizations.push({
        organizationId,
        scim: scimClient(server(), await organizationKey(server(), owner, organizationId)),
      });
    }
    const found: string[] = [];
    for (let round = 0; round < rounds; round++) {
      // The directory's request first in even rounds; the other 0 to 5 ms after it.
      const pairs = await Promise.all(
        organizations.map(({ scim }, index) => pair(scim, round % 2 === 0, (index + (round >> 1)) % 6)),
      );
      for (const [index, { id, provisioned, signedUp }] of pairs.entries()) {
        if (provisioned.status !== 201 || signedUp.status !== 201) {
          found.push(`round ${round}: SCIM answered ${provisioned.status}, the sign-up ${signedUp.status}`);
          continue;
        }
        const { organizationId } = organizations[index]!;
        const members = await server().call('GET', '/organization-user', { token: owner.token, organizationId });
        const ids = (members.body as Array<{ user_id: string }>).map((member) => member.user_id);
        if (!ids.includes(id))
          found.push(`round ${round}: ${id} is not a member of ${organizationId} after both answered`);
      }
    }
    expect(found).toEqual([]);
  });
});
