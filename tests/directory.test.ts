/**
 * The directory's settings (behaviour §18): its default role, set under the no-escalation rule
 * (§11) by whoever holds directory:sync or domains:manage, and what the identity provider provisioned over SCIM, seen
 * from the service's side.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { createRole, giveRole } from './support/roles.ts';
import { GROUP_SCHEMA, oktaUser, organizationKey, scimClient, type ScimClient } from './support/scim.ts';
import { useServer, type TestServer } from './support/server.ts';
import { tokenFor } from './support/tokens.ts';

const directoryPath = (organizationId: string) => `/organizations/${organizationId}/directory`;

/** A person who makes their record with a verified e-mail (behaviour §2). */
async function signUpVerified(server: TestServer, email: string): Promise<TestUser> {
  const id = uniqueId('joiner');
  const token = await tokenFor(id, { role: 'owner', claims: { email, email_verified: true } });
  const created = await server.call('POST', '/users', { token, body: { first_name: 'Jo', last_name: 'Iner', email } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id, email, token };
}

describeOnEachDatabase('The directory settings (behaviour §18)', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let organizationId: string;
  let scim: ScimClient;

  const putDirectory = (actor: TestUser, body: unknown) =>
    server().call('PUT', directoryPath(organizationId), { token: actor.token, body });
  const getDirectory = (actor: TestUser) => server().call('GET', directoryPath(organizationId), { token: actor.token });

  beforeAll(async () => {
    owner = await registerUser(server(), 'directory-owner');
    organizationId = await createOrganization(server(), owner);
    scim = scimClient(server(), await organizationKey(server(), owner, organizationId));
    await createRole(server(), owner, organizationId, 'support', ['organization:read']);
  });

  it('starts with the default role member, nothing provisioned and no changes', async () => {
    const read = await getDirectory(owner);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body).toEqual({
      default_role: 'member',
      users: { active: 0, inactive: 0 },
      groups: 0,
      last_changes: [],
    });
  });

  it('sets the default role to a role of the organization, records directory.updated once, and is read back', async () => {
    const set = await putDirectory(owner, { default_role: 'support' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.default_role).toBe('support');
    expect((await putDirectory(owner, { default_role: 'support' })).status).toBe(200);
    expect((await getDirectory(owner)).body.default_role).toBe('support');
    const events = await server().call('GET', `/organizations/${organizationId}/events?type=directory.updated`, {
      token: owner.token,
    });
    expect(events.body).toEqual([
      expect.objectContaining({
        actor_user_id: owner.id,
        data: { changes: { default_role: { from: 'member', to: 'support' } } },
      }),
    ]);
  });

  it('keeps its default role from being deleted (409)', async () => {
    const removed = await server().call('DELETE', `/organizations/${organizationId}/roles/support`, {
      token: owner.token,
    });
    expect(removed.status).toBe(409);
    expect(removed.body.message).toContain("the directory's default role");
  });

  it('refuses a role the organization does not have and owner (400), changing nothing', async () => {
    const unknown = await putDirectory(owner, { default_role: 'no-such-role' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues).toEqual([expect.objectContaining({ field: 'default_role' })]);
    expect((await putDirectory(owner, { default_role: 'owner' })).status).toBe(400);
    expect((await getDirectory(owner)).body.default_role).toBe('support');
  });

  it('is 403 for a member holding neither directory:sync nor domains:manage, read or change', async () => {
    const member = await registerUser(server(), 'directory-member');
    await addMember(server(), owner, organizationId, member, 'member');
    const refused = await getDirectory(member);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('(directory:sync or domains:manage)');
    expect((await putDirectory(member, { default_role: 'member' })).status).toBe(403);
    const users = await server().call('GET', `${directoryPath(organizationId)}/users`, { token: member.token });
    expect(users.status).toBe(403);
    expect((await getDirectory(owner)).body.default_role).toBe('support');
  });

  it("is read and set by the identity provider's key, whose role holds directory:sync and not domains:manage", async () => {
    const permissions = ['organization:read', 'members:read', 'roles:read', 'teams:read', 'directory:sync'];
    await createRole(server(), owner, organizationId, 'provisioner', permissions);
    const key = { ...owner, token: await organizationKey(server(), owner, organizationId, 'provisioner') };
    expect((await getDirectory(key)).status).toBe(200);
    const set = await putDirectory(key, { default_role: 'member' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await getDirectory(owner)).body.default_role).toBe('member');
    expect((await putDirectory(owner, { default_role: 'support' })).status).toBe(200);
  });

  it('refuses a default role holding what the caller does not hold (behaviour §11), 403', async () => {
    await createRole(server(), owner, organizationId, 'directory-manager', ['organization:read', 'domains:manage']);
    const manager = await registerUser(server(), 'directory-manager');
    await addMember(server(), owner, organizationId, manager, 'member');
    await giveRole(server(), owner, organizationId, manager, 'directory-manager');
    const escalating = await putDirectory(manager, { default_role: 'admin' });
    expect(escalating.status, JSON.stringify(escalating.body)).toBe(403);
    expect(escalating.body.message).toMatch(/give the role admin/);
    expect((await getDirectory(manager)).body.default_role).toBe('support');
    expect((await putDirectory(manager, { default_role: 'support' })).status).toBe(200);
  });

  it('gives a SCIM-provisioned user the default role when they join, and lists users, groups and changes', async () => {
    const email = `${uniqueId('provisioned')}@example.com`;
    const created = await scim.send('POST', '/Users', oktaUser(email));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const inactive = await scim.send('POST', '/Users', {
      ...oktaUser(`${uniqueId('gone')}@example.com`),
      active: false,
    });
    expect(inactive.status).toBe(201);
    const group = await scim.send('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Provisioned engineers',
      members: [{ value: created.body.id }],
    });
    expect(group.status, JSON.stringify(group.body)).toBe(201);

    const users = await server().call('GET', `${directoryPath(organizationId)}/users`, { token: owner.token });
    expect(users.status).toBe(200);
    expect(users.body).toEqual([
      expect.objectContaining({ user_name: email, active: true, user_id: null, state: 'pending' }),
      expect.objectContaining({ active: false, state: 'inactive' }),
    ]);

    const person = await signUpVerified(server(), email);
    const member = await server().call('GET', `/organization-user/${person.id}`, {
      token: owner.token,
      organizationId,
    });
    expect(member.status, JSON.stringify(member.body)).toBe(200);
    expect(member.body.role).toBe('support');

    const after = await server().call('GET', `${directoryPath(organizationId)}/users?limit=1`, { token: owner.token });
    expect(after.body).toEqual([expect.objectContaining({ user_id: person.id, state: 'member' })]);
    const groups = await server().call('GET', `${directoryPath(organizationId)}/groups`, { token: owner.token });
    expect(groups.body).toEqual([
      expect.objectContaining({ team_id: group.body.id, display_name: 'Provisioned engineers', member_count: 1 }),
    ]);

    const directory = (await getDirectory(owner)).body;
    expect(directory).toMatchObject({ users: { active: 1, inactive: 1 }, groups: 1 });
    const changes = directory.last_changes as Array<{ type: string; data: { via?: string } }>;
    expect(changes.map(({ type }) => type)).toEqual(expect.arrayContaining(['member.added', 'team.created']));
    expect(changes.at(-1)?.type).toBe('team.created');
    expect(changes.every(({ data }) => data.via === 'scim')).toBe(true);
  });
});
