/**
 * For the organization lifecycle tests: invitations made through REST, and what no endpoint shows
 * (the audit events, rows left behind by a deleted organization) read straight from the service's
 * own database connection.
 */
import { expect } from 'vitest';
import { locateDatabase } from '../../server/platform/database/engine.ts';
import { toDbTimestamp, type Database } from '../../server/platform/database/schema.ts';
import type { InvitationView } from '../../shared/invitations.ts';
import type { Role } from '../../shared/fields.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './fixtures.ts';
import type { TestServer } from './server.ts';

const sqlOf = (server: TestServer) => server.service.orm.em.getKysely<Database>();

/** An organization with one member of each role, and an outsider with a user record. */
export async function organizationWithRoles(server: TestServer) {
  const owner = await registerUser(server, 'owner');
  const admin = await registerUser(server, 'admin');
  const member = await registerUser(server, 'member');
  const outsider = await registerUser(server, 'outsider');
  const organizationId = await createOrganization(server, owner);
  await addMember(server, owner, organizationId, admin, 'admin');
  await addMember(server, owner, organizationId, member, 'member');
  return { owner, admin, member, outsider, organizationId };
}

export async function invite(
  server: TestServer,
  actor: TestUser,
  organizationId: string,
  email: string,
  role: Role = 'member',
): Promise<InvitationView> {
  const created = await server.call('POST', `/organizations/${organizationId}/invitations`, {
    token: actor.token,
    body: { email, role },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

export interface StoredEvent {
  type: string;
  actor_user_id: string | null;
  subject_user_id: string | null;
  data: unknown;
}

/** The organization's audit events, oldest first. */
export async function eventsOf(server: TestServer, organizationId: string): Promise<StoredEvent[]> {
  const rows = await sqlOf(server)
    .selectFrom('organization_events')
    .select(['type', 'actor_user_id', 'subject_user_id', 'data'])
    .where('organization_id', '=', organizationId)
    .orderBy('event_id')
    .execute();
  return rows.map((row) => ({ ...row, data: JSON.parse(row.data) }));
}

/**
 * Everything stored about one organization: its row, memberships, invitations and events. Equal
 * before and after a refused request means that request changed nothing.
 */
export async function storedState(server: TestServer, organizationId: string) {
  const sql = sqlOf(server);
  return {
    organization: await sql.selectFrom('organizations').selectAll().where('id', '=', organizationId).execute(),
    memberships: await sql
      .selectFrom('organization_users')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('user_id')
      .execute(),
    invitations: await sql
      .selectFrom('invitations')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('id')
      .execute(),
    events: await eventsOf(server, organizationId),
  };
}

/** Memberships and invitations that point at the organization (none may outlive it). */
export async function rowsPointingAt(server: TestServer, organizationId: string): Promise<number> {
  const sql = sqlOf(server);
  const [memberships, invitations] = await Promise.all(
    (['organization_users', 'invitations'] as const).map((table) =>
      sql
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number | string>().as('rows'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow(),
    ),
  );
  return Number(memberships!.rows) + Number(invitations!.rows);
}

/**
 * Moves an invitation's expiry into the past, as time would: waiting out even a short
 * INVITATION_TTL_HOURS would make the tests slow and timing-dependent.
 */
export async function expireInvitation(server: TestServer, invitationId: string): Promise<void> {
  const dialect = locateDatabase(server.databaseUrl).engine;
  await sqlOf(server)
    .updateTable('invitations')
    .set({ expires_at: toDbTimestamp(dialect, new Date(Date.now() - 1000)) })
    .where('id', '=', invitationId)
    .execute();
}
