/** A person's own data (behaviour §15): GET /users/export and DELETE /users. */
import mysql from 'mysql2/promise';
import { expect, it } from 'vitest';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, createOrganization, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { organizationWithDomain, registerUserAt } from './support/domains.ts';
import { createKey } from './support/keys.ts';
import { oktaUser, organizationKey, scimClient } from './support/scim.ts';
import { useServer } from './support/server.ts';
import { addToTeam, createTeam } from './support/teams.ts';

describeOnEachDatabase('a person’s own data', (target) => {
  const server = useServer(target);

  const exportOf = (user: TestUser, prefix = '') =>
    server().call('GET', `${prefix}/users/export`, { token: user.token });
  const deleteRecord = (user: TestUser, prefix = '') =>
    server().call('DELETE', `${prefix}/users`, { token: user.token });
  const membersOf = async (owner: TestUser, organizationId: string) =>
    (await server().call('GET', '/organization-user', { token: owner.token, organizationId })).body as Array<{
      user_id: string;
      role: string;
    }>;
  const eventsOf = async (owner: TestUser, organizationId: string) =>
    (await server().call('GET', `/organizations/${organizationId}/events?limit=100`, { token: owner.token }))
      .body as Array<{ type: string; actor_user_id: string | null; subject_user_id: string | null; data: any }>;
  const invite = async (owner: TestUser, organizationId: string, email: string) => {
    const made = await server().call('POST', `/organizations/${organizationId}/invitations`, {
      token: owner.token,
      body: { email, role: 'member' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  };

  /** A person who is an admin in one organization (in a team there) and invited to another. */
  async function personWithData() {
    const owner = await registerUser(server(), 'owner');
    const person = await registerUser(server(), 'person');
    const organizationId = await createOrganization(server(), owner);
    const otherId = await createOrganization(server(), owner);
    await addMember(server(), owner, organizationId, person, 'admin');
    const team = await createTeam(server(), owner, organizationId, 'Builders');
    await addToTeam(server(), owner, organizationId, team.team_id, person);
    await invite(owner, otherId, person.email);
    return { owner, person, organizationId, otherId, team };
  }

  it('exports the profile, memberships with teams, pending invitations and their events', async () => {
    const { person, organizationId, otherId, team } = await personWithData();
    const exported = await exportOf(person, '/api');
    expect(exported.status).toBe(200);
    const body = exported.body;
    expect(body.profile).toMatchObject({ id: person.id, email: person.email });
    expect(body.memberships).toEqual([
      expect.objectContaining({
        organization_id: organizationId,
        organization_name: 'Test organization',
        role: 'admin',
        expires_at: null,
        teams: [expect.objectContaining({ team_id: team.team_id, name: 'Builders' })],
      }),
    ]);
    expect(body.memberships[0].organization_slug).toEqual(expect.any(String));
    expect(body.pending_invitations).toEqual([expect.objectContaining({ organization_id: otherId, role: 'member' })]);
    expect(body.join_requests).toEqual([]);
    const types = (body.events as Array<{ type: string; subject_user_id: string }>).map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['member.added', 'team.member_added']));
    expect(body.events.every((event: { subject_user_id: string }) => event.subject_user_id === person.id)).toBe(true);
    expect(body.events_truncated).toBe(false);
  });

  it('deletes the record with its memberships, teams and invitations, recorded, and lets it be made again', async () => {
    const { owner, person, organizationId, otherId } = await personWithData();
    const deleted = await deleteRecord(person);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await server().call('GET', '/users', { token: person.token })).status).toBe(404);
    expect((await exportOf(person)).status).toBe(404);
    expect((await membersOf(owner, organizationId)).map((member) => member.user_id)).toEqual([owner.id]);
    const organization = await server().call('GET', `/organizations/${organizationId}`, { token: owner.token });
    expect(organization.body.member_count).toBe(1);
    const invitations = await server().call('GET', `/organizations/${otherId}/invitations`, { token: owner.token });
    expect(invitations.body).toEqual([]);
    const events = await eventsOf(owner, organizationId);
    expect(events.filter((event) => event.subject_user_id === person.id).map((event) => event.type)).toEqual(
      expect.arrayContaining(['team.member_removed', 'member.left']),
    );
    expect(events.find((event) => event.type === 'member.left')).toMatchObject({
      actor_user_id: person.id,
      data: { role: 'admin', reason: 'account_deleted' },
    });
    // Their events keep their user id and nothing else of theirs: the invitation's e-mail is gone.
    const invitationEvents = await eventsOf(owner, otherId);
    expect(invitationEvents.find((event) => event.type === 'invitation.created')).toMatchObject({
      subject_user_id: person.id,
      data: { email: null, role: 'member' },
    });
    expect(JSON.stringify([...events, ...invitationEvents])).not.toContain(person.email);

    const again = await server().call('POST', '/users', {
      token: person.token,
      body: { first_name: 'Back', last_name: 'Again', email: person.email },
    });
    expect(again.status).toBe(201);
    expect((await exportOf(person)).body.memberships).toEqual([]);
  });

  it('exports and deletes join requests, and unlinks the directory user', async () => {
    const { domain, owner, organizationId } = await organizationWithDomain(server(), 'suggestion');
    const person = await registerUserAt(server(), domain);
    const joined = await server().call('POST', `/organizations/${organizationId}/join`, { token: person.token });
    expect(joined.status, JSON.stringify(joined.body)).toBe(202);
    const scim = scimClient(server(), await organizationKey(server(), owner, organizationId));
    const provisioned = await scim.send('POST', '/Users', oktaUser(person.email));
    expect(provisioned.status, JSON.stringify(provisioned.body)).toBe(201);

    const exported = await exportOf(person);
    expect(exported.body.join_requests).toEqual([
      expect.objectContaining({ request_id: joined.body.request_id, organization_id: organizationId }),
    ]);
    expect((await deleteRecord(person)).status).toBe(200);
    const requests = await server().call('GET', `/organizations/${organizationId}/join-requests`, {
      token: owner.token,
    });
    expect(requests.body).toEqual([]);
    // The directory user stays, linked to no one: the organization's owner is its only member.
    const listed = await scim.send('GET', `/Users/${provisioned.body.id}`);
    expect(listed.status).toBe(200);
    expect((await membersOf(owner, organizationId)).map((member) => member.user_id)).toEqual([owner.id]);
  });

  /**
   * The deletion unlinks the person's directory users by `directory_users.user_id`'s own index
   * (entities.ts): on MariaDB it locks their rows alone, so it never waits for another
   * organization's provisioning, here a second connection holding another directory user's row;
   * without the index it read and locked the whole table, and answered 503 once its database time
   * was spent (behaviour §15, §18). The embedded database has no row locks: its plan says the same.
   */
  it('unlinks the directory users by their own index, never waiting on another organization’s', async () => {
    const owner = await registerUser(server(), 'owner');
    const person = await registerUser(server(), 'person');
    const [organizationId, otherId] = [
      await createOrganization(server(), owner),
      await createOrganization(server(), owner),
    ];
    const scim = scimClient(server(), await organizationKey(server(), owner, organizationId));
    const otherScim = scimClient(server(), await organizationKey(server(), owner, otherId));
    expect((await scim.send('POST', '/Users', oktaUser(person.email))).status).toBe(201);
    const unrelated = await otherScim.send('POST', '/Users', oktaUser(`${uniqueId('unrelated')}@example.com`));
    expect(unrelated.status).toBe(201);
    if (target.name === 'embedded') {
      // The plan of a read with the unlink's condition: the plan of the update itself, asked through
      // MikroORM's connection, held the database's write lock for seconds after it.
      const plan: Array<{ detail: string }> = await server()
        .service.orm.em.getConnection()
        .execute('explain query plan select * from directory_users where user_id = ?', [person.id]);
      expect(plan.map((step) => step.detail)).toEqual([
        expect.stringContaining('USING INDEX directory_users_user_id_idx'),
      ]);
      expect((await deleteRecord(person)).status).toBe(200);
      return;
    }
    const provisioning = await mysql.createConnection({ uri: server().databaseUrl.replace(/^mariadb:/, 'mysql:') });
    try {
      await provisioning.query('begin');
      await provisioning.query('select id from directory_users where id = ? for update', [unrelated.body.id]);
      const deleted = await deleteRecord(person);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    } finally {
      await provisioning.query('rollback');
      await provisioning.end();
    }
    expect((await scim.send('GET', `/Users/${unrelated.body.id}`)).status).toBe(404);
    expect((await otherScim.send('GET', `/Users/${unrelated.body.id}`)).status).toBe(200);
  });

  it('deletes the creator of an organization who handed its ownership over', async () => {
    const creator = await registerUser(server(), 'creator');
    const heir = await registerUser(server(), 'heir');
    const organizationId = await createOrganization(server(), creator);
    await addMember(server(), creator, organizationId, heir, 'owner');
    expect((await deleteRecord(creator, '/api')).status).toBe(200);
    expect(await membersOf(heir, organizationId)).toEqual([
      expect.objectContaining({ user_id: heir.id, role: 'owner' }),
    ]);
  });

  it('refuses the last owner with 409 naming the organizations, and changes nothing', async () => {
    const owner = await registerUser(server(), 'owner');
    const partner = await registerUser(server(), 'partner');
    const first = await createOrganization(server(), owner);
    const second = await createOrganization(server(), owner);
    const shared = await createOrganization(server(), owner);
    await addMember(server(), owner, shared, partner, 'owner');
    const before = await exportOf(owner);

    const refused = await deleteRecord(owner);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('CONFLICT');
    for (const id of [first, second]) expect(refused.body.message).toContain(id);
    expect(refused.body.message).not.toContain(shared);
    expect(refused.body.issues.map((issue: { problem: string }) => issue.problem)).toEqual([first, second].sort());

    const after = await exportOf(owner);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
  });

  it('racing a transfer of ownership, never leaves an organization without an owner, and never fails', async () => {
    for (let round = 0; round < 4; round++) {
      const owner = await registerUser(server(), 'owner');
      const heir = await registerUser(server(), 'heir');
      const organizationId = await createOrganization(server(), owner);
      await addMember(server(), owner, organizationId, heir, 'admin');
      const [deleted, transferred] = await Promise.all([
        deleteRecord(owner),
        server().call('POST', `/organizations/${organizationId}/transfer-ownership`, {
          token: owner.token,
          body: { user_id: heir.id },
        }),
      ]);
      expect([200, 409]).toContain(deleted.status);
      expect(transferred.status).toBeLessThan(500);
      if (deleted.status === 200) expect(transferred.status).toBe(200);
      const members = await membersOf(heir, organizationId);
      expect(members.filter((member) => member.role === 'owner')).toHaveLength(1);
    }
  });

  it('refuses keys with 403', async () => {
    const owner = await registerUser(server(), 'owner');
    const organizationId = await createOrganization(server(), owner);
    const key = await createKey(server(), owner.token, organizationId, 'admin');
    for (const [method, path] of [
      ['GET', '/users/export'],
      ['DELETE', '/users'],
      ['DELETE', '/api/users'],
    ] as const) {
      expect((await server().call(method, path, { token: key.secret })).status).toBe(403);
    }
    expect((await exportOf(owner)).status).toBe(200);
  });
});
