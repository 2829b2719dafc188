/**
 * Verified domains and joining (behaviour §17), on each database, against a DNS server of the
 * test's own on 127.0.0.1 (tests/support/dns-server.ts): the service asks it alone (DNS_SERVERS),
 * and every name in this file is a reserved one.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../server/platform/database/schema.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { startDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { organizationWithDomain, registerUserAt, uniqueDomain } from './support/domains.ts';
import { addMember, createOrganization, registerUser, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';
import { spawnService, type ServiceProcess } from './support/process.ts';
import { restCall } from './support/rest-call.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

/** How long the service waits for the resolver here: short, so that a silent one answers 503 soon. */
const DNS_TIMEOUT_MS = 300;

describeOnEachDatabase('verified domains and joining (behaviour §17)', (target) => {
  let dns: TestDnsServer;
  // Filled before the server starts (beforeAll runs in order), once the DNS server has its port.
  const env: Record<string, string> = { DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS) };
  beforeAll(async () => {
    dns = await startDnsServer();
    env.DNS_SERVERS = dns.address;
  });
  afterAll(() => dns.close());
  const server = useServer(target, env);

  const domainsPath = (organizationId: string) => `/organizations/${organizationId}/domains`;
  const call = (method: string, path: string, user: TestUser, body?: unknown) =>
    server().call(method, path, { token: user.token, body });

  async function organizationOf(owner: TestUser): Promise<string> {
    return createOrganization(server(), owner);
  }

  async function eventsOf(owner: TestUser, organizationId: string) {
    const answer = await call('GET', `/organizations/${organizationId}/events?limit=1000`, owner);
    expect(answer.status).toBe(200);
    return answer.body as { type: string; data: Record<string, unknown>; subject_user_id: string | null }[];
  }

  async function setEnrollment(owner: TestUser, organizationId: string, domainId: string, enrollment: string) {
    const answer = await call('PUT', `${domainsPath(organizationId)}/${domainId}`, owner, { enrollment });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  }

  it('adds a domain pending, with the TXT record that verifies it; verifies it once the record is there', async () => {
    const owner = await registerUser(server(), 'owner');
    const organizationId = await organizationOf(owner);
    const domain = uniqueDomain();
    const added = await call('POST', domainsPath(organizationId), owner, { domain: domain.toUpperCase() });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({
      domain,
      status: 'pending',
      verification: { type: 'dns_txt', name: `_org-verification.${domain}` },
      enrollment: 'manual',
      default_role: 'member',
      verified_at: null,
    });
    const { domain_id: domainId, verification } = added.body;
    expect(verification.value).toMatch(/^org-verification=[\w-]{32}$/);

    // No record: 409 naming what was found; another record: named.
    const verify = () => call('POST', `${domainsPath(organizationId)}/${domainId}/verify`, owner);
    const none = await verify();
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('DOMAIN_NOT_VERIFIED');
    expect(none.body.message).toContain('no TXT record');
    dns.names.set(verification.name, { txt: ['v=spf1 -all', 'org-verification=someone-elses'] });
    const other = await verify();
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('DOMAIN_NOT_VERIFIED');
    expect(other.body.message).toContain('"v=spf1 -all"');
    expect((await call('GET', `${domainsPath(organizationId)}/${domainId}`, owner)).body.status).toBe('pending');

    dns.names.set(verification.name, { txt: ['v=spf1 -all', verification.value] });
    const verified = await verify();
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.status).toBe('verified');
    expect(verified.body.verified_at).not.toBeNull();
    expect(dns.asked).toContain(verification.name);

    const list = await call('GET', domainsPath(organizationId), owner);
    expect(list.body.map((row: { domain_id: string }) => row.domain_id)).toEqual([domainId]);
    const types = (await eventsOf(owner, organizationId)).map(({ type }) => type);
    expect(types).toEqual(expect.arrayContaining(['domain.created', 'domain.verified']));

    const removed = await call('DELETE', `${domainsPath(organizationId)}/${domainId}`, owner);
    expect(removed.status).toBe(200);
    expect((await call('GET', domainsPath(organizationId), owner)).body).toEqual([]);
    expect((await eventsOf(owner, organizationId)).map(({ type }) => type)).toContain('domain.deleted');
  });

  it('answers 503 and changes nothing when the resolver fails (SERVFAIL) or is silent past DNS_TIMEOUT_MS', async () => {
    const owner = await registerUser(server(), 'owner');
    const organizationId = await organizationOf(owner);
    for (const behaviour of ['servfail', 'silent'] as const) {
      const added = await call('POST', domainsPath(organizationId), owner, { domain: uniqueDomain(behaviour) });
      const { domain_id: domainId, verification } = added.body;
      dns.names.set(verification.name, behaviour);
      const before = await eventsOf(owner, organizationId);
      const failed = await call('POST', `${domainsPath(organizationId)}/${domainId}/verify`, owner);
      expect(failed.status, JSON.stringify(failed.body)).toBe(503);
      expect(failed.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(failed.body.message).toContain(verification.name);
      expect((await call('GET', `${domainsPath(organizationId)}/${domainId}`, owner)).body.status).toBe('pending');
      expect(await eventsOf(owner, organizationId)).toEqual(before);
    }
  });

  it('lets one organization at a time hold a domain verified: DOMAIN_TAKEN for another', async () => {
    const { domain, owner } = await organizationWithDomain(server(), 'manual');
    const other = await registerUser(server(), 'other');
    const otherOrganization = await organizationOf(other);
    const taken = await call('POST', domainsPath(otherOrganization), other, { domain });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('DOMAIN_TAKEN');

    // Added by both while pending: the second to verify is refused, whatever its TXT record.
    const contested = uniqueDomain('contested');
    const first = await organizationOf(owner);
    const a = (await call('POST', domainsPath(first), owner, { domain: contested })).body;
    const b = (await call('POST', domainsPath(otherOrganization), other, { domain: contested })).body;
    dns.names.set(a.verification.name, { txt: [a.verification.value, b.verification.value] });
    expect((await call('POST', `${domainsPath(first)}/${a.domain_id}/verify`, owner)).status).toBe(200);
    const second = await call('POST', `${domainsPath(otherOrganization)}/${b.domain_id}/verify`, other);
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('DOMAIN_TAKEN');
  });

  it("refuses public e-mail providers' domains, IP addresses and hostile names with 400, adding nothing", async () => {
    const owner = await registerUser(server(), 'owner');
    const organizationId = await organizationOf(owner);
    const hostile = [
      // example.com is on the public providers' list of the `email-providers` package.
      'example.com',
      '192.0.2.1',
      '2001:db8::1',
      '[2001:db8::1]',
      'localhost',
      'a..example',
      '-a.example',
      'a-.example',
      'acme.example.',
      'ac me.example',
      'acmé.example',
      "x'; drop table organization_domains; --.example",
      `${'a'.repeat(64)}.example`,
      `${'abcdefghi.'.repeat(26)}example`,
      '',
    ];
    for (const domain of hostile) {
      const answer = await call('POST', domainsPath(organizationId), owner, { domain });
      expect(answer.status, `${domain}: ${JSON.stringify(answer.body)}`).toBe(400);
    }
    for (const body of [{}, { domain: 42 }, { domain: ['acme.example'] }, { domain: null }]) {
      expect((await call('POST', domainsPath(organizationId), owner, body)).status).toBe(400);
    }
    expect((await call('GET', domainsPath(organizationId), owner)).body).toEqual([]);
  });

  it('keeps the enrollment manual until the domain is verified, and refuses owner as the default role', async () => {
    const owner = await registerUser(server(), 'owner');
    const organizationId = await organizationOf(owner);
    const added = (await call('POST', domainsPath(organizationId), owner, { domain: uniqueDomain() })).body;
    const path = `${domainsPath(organizationId)}/${added.domain_id}`;
    const unverified = await call('PUT', path, owner, { enrollment: 'automatic' });
    expect({ status: unverified.status, code: unverified.body.code }).toEqual({
      status: 409,
      code: 'DOMAIN_NOT_VERIFIED',
    });
    expect((await call('PUT', path, owner, { default_role: 'owner' })).status).toBe(400);
    expect((await call('PUT', path, owner, { default_role: 'no-such-role' })).status).toBe(400);
    expect((await call('PUT', path, owner, { default_role: 'admin' })).body.default_role).toBe('admin');
  });

  it('counts only a verified e-mail at exactly the domain: never a claim alone, a false one, another address or a look-alike', async () => {
    const { domain, owner, organizationId } = await organizationWithDomain(server(), 'automatic');
    const joinPath = `/organizations/${organizationId}/join`;
    const impostors: TestUser[] = [];
    // A record at the domain, but a token that does not verify it.
    impostors.push(await registerUserAt(server(), domain, { email_verified: undefined }));
    impostors.push(await registerUserAt(server(), domain, { email_verified: false }));
    impostors.push(await registerUserAt(server(), domain, { email_verified: 'true' }));
    // A token verifying an address at the domain, over a record with another address.
    const other = await registerUser(server(), 'other');
    impostors.push({
      ...other,
      token: await tokenFor(other.id, { claims: { email: `x@${domain}`, email_verified: true } }),
    });
    // Look-alike domains, verified.
    impostors.push(await registerUserAt(server(), `evil.${domain}.attacker.test`));
    impostors.push(await registerUserAt(server(), `${domain}.evil.test`));
    impostors.push(await registerUserAt(server(), `sub.${domain}`));
    for (const impostor of impostors) {
      expect((await call('GET', '/organizations/suggestions', impostor)).body ?? []).toEqual([]);
      const joined = await call('POST', joinPath, impostor);
      expect([401, 403]).toContain(joined.status);
    }
    expect((await call('GET', `/organizations/${organizationId}`, owner)).body.member_count).toBe(1);
  });

  it('joins at once where the enrollment is automatic, with the default role, recorded as via the domain', async () => {
    const { domain, owner, organizationId, domainId } = await organizationWithDomain(server(), 'automatic');
    await call('PUT', `${domainsPath(organizationId)}/${domainId}`, owner, { default_role: 'admin' });
    const person = await registerUserAt(server(), domain);
    const suggested = await call('GET', '/organizations/suggestions', person);
    expect(suggested.body).toEqual([
      expect.objectContaining({ organization_id: organizationId, enrollment: 'automatic' }),
    ]);
    const joined = await call('POST', `/organizations/${organizationId}/join`, person);
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.body).toMatchObject({ organization_id: organizationId, user_id: person.id, role: 'admin' });
    expect((await call('POST', `/organizations/${organizationId}/join`, person)).status).toBe(409);
    expect((await call('GET', '/organizations/suggestions', person)).body).toEqual([]);
    const added = (await eventsOf(owner, organizationId)).find(
      ({ type, subject_user_id }) => type === 'member.added' && subject_user_id === person.id,
    );
    expect(added?.data).toEqual({ role: 'admin', via: 'domain' });
  });

  it('stops concurrent joins exactly at the seat limit', async () => {
    const { domain, owner, organizationId } = await organizationWithDomain(server(), 'automatic');
    const sql = server().service.orm.em.getKysely<Database>();
    // The owner holds one seat: three more.
    await sql.updateTable('organizations').set({ max_members: 4 }).where('id', '=', organizationId).execute();
    const people = await Promise.all(Array.from({ length: 10 }, () => registerUserAt(server(), domain)));
    const answers = await Promise.all(
      people.map((person) => call('POST', `/organizations/${organizationId}/join`, person)),
    );
    const statuses = answers.map(({ status }) => status).sort();
    expect(statuses).toEqual([...Array(3).fill(201), ...Array(7).fill(409)]);
    expect(answers.filter(({ status }) => status === 409).every(({ body }) => body.code === 'MEMBER_LIMIT')).toBe(true);
    const organization = await call('GET', `/organizations/${organizationId}`, owner);
    expect(organization.body.member_count).toBe(4);
  });

  it('approves a join request sent with no body, or with an empty one labelled JSON: the body may be left out', async () => {
    const { domain, owner, organizationId } = await organizationWithDomain(server(), 'suggestion');
    const people = await Promise.all([1, 2].map(() => registerUserAt(server(), domain)));
    for (const [index, person] of people.entries()) {
      const joined = await call('POST', `/organizations/${organizationId}/join`, person);
      expect(joined.status, JSON.stringify(joined.body)).toBe(202);
      const approval = `/organizations/${organizationId}/join-requests/${joined.body.request_id}/approve`;
      const options = index === 0 ? {} : { rawBody: '', headers: { 'content-type': 'application/json' } };
      const approved = await server().call('POST', approval, { token: owner.token, ...options });
      expect(approved.status, JSON.stringify(approved.body)).toBe(201);
      expect(approved.body).toMatchObject({ user_id: person.id, role: 'member' });
    }
  });

  it('makes a join request where the enrollment is suggestion: listed, approved, rejected or withdrawn', async () => {
    const { domain, owner, organizationId } = await organizationWithDomain(server(), 'suggestion');
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => registerUserAt(server(), domain)));
    const requests: string[] = [];
    for (const person of [first!, second!, third!]) {
      const joined = await call('POST', `/organizations/${organizationId}/join`, person);
      expect(joined.status, JSON.stringify(joined.body)).toBe(202);
      expect(joined.body.status).toBe('pending');
      requests.push(joined.body.request_id);
    }
    expect((await call('POST', `/organizations/${organizationId}/join`, first!)).status).toBe(409);

    const listPath = `/organizations/${organizationId}/join-requests`;
    const listed = await call('GET', listPath, owner);
    expect(listed.body.map((row: { request_id: string }) => row.request_id)).toEqual(requests);
    expect(listed.body[0]).toMatchObject({ user_id: first!.id, email: first!.email, status: 'pending' });

    // A member without members:add may not approve.
    const plain = await registerUser(server(), 'plain');
    await addMember(server(), owner, organizationId, plain, 'member');
    const refused = await call('POST', `${listPath}/${requests[0]}/approve`, plain, {});
    expect(refused.status).toBe(403);
    expect((await call('GET', `/organizations/${organizationId}/members/${first!.id}`, owner)).status).toBe(404);

    // Escalation: a role above the approver's is refused; owner is the owner's to give only.
    const approved = await call('POST', `${listPath}/${requests[0]}/approve`, owner, { role: 'admin' });
    expect(approved.status, JSON.stringify(approved.body)).toBe(201);
    expect(approved.body).toMatchObject({ user_id: first!.id, role: 'admin' });
    expect((await call('POST', `${listPath}/${requests[0]}/approve`, owner, {})).status).toBe(409);

    expect((await call('POST', `${listPath}/${requests[1]}/reject`, owner, {})).status).toBe(200);
    // `role` is optional, so the body is too: an approval without one is carried out as with `{}`.
    expect((await call('POST', `${listPath}/${requests[1]}/approve`, owner)).status).toBe(409);

    // Only the requester withdraws; another person does not see the request.
    expect((await call('DELETE', `/join-requests/${requests[2]}`, first!)).status).toBe(404);
    const mine = await call('GET', '/join-requests', third!);
    expect(mine.body).toEqual([expect.objectContaining({ request_id: requests[2], status: 'pending' })]);
    expect((await call('DELETE', `/join-requests/${requests[2]}`, third!)).status).toBe(200);
    expect((await call('DELETE', `/join-requests/${requests[2]}`, third!)).status).toBe(409);
    expect((await call('GET', '/join-requests', third!)).body[0].status).toBe('withdrawn');

    const statuses = (await call('GET', listPath, owner)).body.map((row: { status: string }) => row.status);
    expect(statuses).toEqual(['approved', 'rejected', 'withdrawn']);
    const types = (await eventsOf(owner, organizationId)).map(({ type }) => type);
    for (const type of [
      'join_request.created',
      'join_request.approved',
      'join_request.rejected',
      'join_request.withdrawn',
    ]) {
      expect(types).toContain(type);
    }
  });

  it('refuses joining where the enrollment is manual or automatic_invitation, and makes that invitation once', async () => {
    const { domain, owner, organizationId, domainId } = await organizationWithDomain(server(), 'manual');
    const person = await registerUserAt(server(), domain);
    expect((await call('POST', `/organizations/${organizationId}/join`, person)).status).toBe(403);
    // An organization that does not exist is answered alike: no way to learn which ids exist.
    const unknown = await call('POST', `/organizations/${randomUUID()}/join`, person);
    expect({ status: unknown.status, message: unknown.body.message }).toEqual({
      status: 403,
      message: (await call('POST', `/organizations/${organizationId}/join`, person)).body.message,
    });
    await setEnrollment(owner, organizationId, domainId, 'automatic_invitation');
    expect((await call('POST', `/organizations/${organizationId}/join`, person)).status).toBe(403);
    expect((await call('GET', '/organizations/suggestions', person)).body).toEqual([]);

    const invitations = await call('GET', '/invitations', person);
    expect(invitations.body).toEqual([
      expect.objectContaining({ organization_id: organizationId, email: person.email, role: 'member' }),
    ]);
    expect((await call('GET', '/invitations', person)).body).toHaveLength(1);
    const declined = await call('POST', `/invitations/${invitations.body[0].invitation_id}/decline`, person);
    expect(declined.status).toBe(200);
    expect((await call('GET', '/invitations', person)).body).toEqual([]);
  });

  it('suggests nothing to a person without a record, and answers their joining 404, with or without a verified e-mail', async () => {
    const { domain, organizationId } = await organizationWithDomain(server(), 'automatic');
    const id = `norecord-${randomUUID()}`;
    for (const claims of [{ email: `${id}@${domain}`, email_verified: true }, {}]) {
      const person = { id, email: `${id}@${domain}`, token: await tokenFor(id, { claims }) };
      const suggested = await call('GET', '/organizations/suggestions', person);
      expect(suggested.status).toBe(200);
      expect(suggested.body).toEqual([]);
      const joined = await call('POST', `/organizations/${organizationId}/join`, person);
      expect(joined.status).toBe(404);
    }
  });

  it('refuses API keys on what is a person’s: joining, suggestions, their join requests', async () => {
    const { owner, organizationId } = await organizationWithDomain(server(), 'automatic');
    const key = await call('POST', `/organizations/${organizationId}/api-keys`, owner, { name: 'k', role: 'admin' });
    const asKey = { ...owner, token: key.body.secret as string };
    expect((await call('POST', `/organizations/${organizationId}/join`, asKey)).status).toBe(403);
    expect((await call('GET', '/organizations/suggestions', asKey)).status).toBe(403);
    expect((await call('GET', '/join-requests', asKey)).status).toBe(403);
  });
});

describe('the bundle with DNS_SERVERS and DNS_TIMEOUT_MS', () => {
  let dns: TestDnsServer;
  let service: ServiceProcess;
  beforeAll(async () => {
    dns = await startDnsServer();
    service = await spawnService({
      JWT_SECRET: TEST_SECRET,
      DATABASE_URL: ':memory:',
      RATE_LIMIT_MAX: '0',
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    service?.kill();
    await dns?.close();
  });

  it('verifies a domain by the TXT record the DNS_SERVERS resolver answers, and answers 503 when it is silent past DNS_TIMEOUT_MS', async () => {
    const id = uniqueDomain('bundle');
    const token = await tokenFor('bundle-owner', { role: 'owner' });
    const call = (method: string, path: string, body?: object) => restCall(service.baseUrl, method, path, token, body);
    expect(
      (await call('POST', '/users', { first_name: 'B', last_name: 'O', email: 'bundle-owner@example.com' })).status,
    ).toBe(201);
    const organizationId = (
      await call('POST', '/organizations', { organization_name: 'B', organization_description: '' })
    ).body.organization_id;
    const added = await call('POST', `/organizations/${organizationId}/domains`, { domain: id });
    expect(added.status).toBe(201);
    const { domain_id: domainId, verification } = added.body;
    const verify = () => call('POST', `/organizations/${organizationId}/domains/${domainId}/verify`, {});

    dns.names.set(verification.name, 'silent');
    const started = performance.now();
    const silent = await verify();
    expect(silent.status).toBe(503);
    // Given up on after DNS_TIMEOUT_MS, not the resolver library's default of seconds.
    expect(performance.now() - started).toBeGreaterThanOrEqual(DNS_TIMEOUT_MS - 50);

    dns.names.set(verification.name, { txt: [verification.value] });
    const verified = await verify();
    expect(verified.status).toBe(200);
    expect(verified.body.status).toBe('verified');
    expect(dns.asked.filter((name) => name === verification.name)).toHaveLength(2);
  });
});
