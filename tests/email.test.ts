/**
 * E-mail addresses, on every endpoint that takes one (users, members, invitations): a domain label
 * is letters, digits and hyphens, neither first nor last a hyphen; at most 254 characters in all;
 * stored lower-cased. A refused address is a 400 naming the field and changes nothing.
 */
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { addressWithLabels } from './support/text-samples.ts';
import { tokenFor } from './support/tokens.ts';

const HYPHEN_AT_A_LABEL_END = [
  'ann@foo-.example.com',
  'ann@-foo.example.com',
  'bob@example-.com',
  'bob@-example.com',
  'bob@a.b-.c.example.com',
  'bob@-.com',
];

/** `length` characters in all, its domain labels of 63 characters at most. */
function addressOfLength(length: number): string {
  const local = uniqueId('long');
  const domainLength = length - local.length - 1 - '.com'.length;
  const labels = Array.from({ length: Math.ceil(domainLength / 64) }, () => 'a'.repeat(63));
  const domain = labels.join('.').slice(0, domainLength).replace(/\.$/, 'b');
  return `${local}@${domain}.com`;
}

describeOnEachDatabase('e-mail addresses', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let organizationId: string;

  beforeAll(async () => {
    owner = await registerUser(server());
    organizationId = await createOrganization(server(), owner);
  });

  const invitations = () =>
    server().call('GET', `/organizations/${organizationId}/invitations`, { token: owner.token });

  /** The status and issues of each endpoint that takes an e-mail, sent this address. */
  async function sendEverywhere(address: string) {
    const token = await tokenFor(uniqueId('mail'), { role: 'owner' });
    const invited = await server().call('POST', `/organizations/${organizationId}/invitations`, {
      token: owner.token,
      body: { email: address, role: 'member' },
    });
    const user = await server().call('POST', '/users', {
      token,
      body: { first_name: 'Mail', last_name: 'Tester', email: address },
    });
    const member = await server().call('POST', '/organization-user', {
      token: owner.token,
      organizationId,
      body: { email: address, role: 'member' },
    });
    const stored = await server().call('GET', '/users', { token });
    return { invited, user, member, stored };
  }

  async function expectRefused(address: string) {
    const before = (await invitations()).body;
    const { invited, user, member, stored } = await sendEverywhere(address);
    for (const [endpoint, answer] of Object.entries({ invited, user, member })) {
      expect(answer.status, `${endpoint} ${address}`).toBe(400);
      expect(answer.body.issues, `${endpoint} ${address}`).toEqual([{ field: 'email', problem: expect.any(String) }]);
    }
    expect(stored.status).toBe(404);
    expect((await invitations()).body).toEqual(before);
  }

  async function expectAccepted(address: string) {
    const { invited, user, member, stored } = await sendEverywhere(address);
    expect(invited.status, address).toBe(201);
    expect(invited.body.email).toBe(address.toLowerCase());
    expect(user.status, address).toBe(201);
    expect(stored.body.email).toBe(address.toLowerCase());
    expect(member.status, address).toBe(201);
  }

  it('refuses a domain label that starts or ends with a hyphen', async () => {
    for (const address of HYPHEN_AT_A_LABEL_END) await expectRefused(address);
  });

  it('accepts hyphens inside labels, and stores the address lower-cased', async () => {
    await expectAccepted(`Ann.${uniqueId('Lee')}+Tag@Foo-Bar.Ex--ample.COM`);
  });

  it('keeps the other limits: 254 characters in all, labels of 63, the rules of the local part', async () => {
    await expectAccepted(addressOfLength(254));
    await expectRefused(addressOfLength(255));
    await expectAccepted(`${uniqueId('label')}@${'a'.repeat(63)}.com`);
    await expectRefused(`${uniqueId('label')}@${'a'.repeat(64)}.com`);
    for (const local of ['.ann', 'ann.', 'a..nn', "ann'", 'an n', 'ann@b']) await expectRefused(`${local}@example.com`);
    await expectAccepted(`o'${uniqueId('brien')}_x@example.com`);
  });

  it('answers a generated address as its domain labels say, on every endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(
        addressWithLabels(() => uniqueId('g')),
        async ({ address, valid }) => {
          if (valid) await expectAccepted(address);
          else await expectRefused(address);
        },
      ),
      { numRuns: 25 },
    );
  });
});
