/**
 * Slugs (behaviour §15): derived from the name, the first free suffix under concurrent creation,
 * given, changed, unique over the service, and the read by slug answered as the read by id.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { firstFreeSlug, slugOfName } from '../server/modules/organizations/slug.ts';
import { createApplicationKey } from './support/application-keys.ts';
import { describeOnEachDatabase } from './support/databases.ts';
import { addMember, registerUser, uniqueId, type TestUser } from './support/fixtures.ts';
import { useServer } from './support/server.ts';

describe('the slug a name gives (behaviour §15)', () => {
  it.each([
    ['Acme Inc.', 'acme-inc'],
    ['  Crème Brûlée & Co  ', 'creme-brulee-co'],
    ['Zürich Ålborg', 'zurich-alborg'],
    ['---', 'org'],
    ['日本語', 'org'],
    ['Straße GmbH', 'strasse-gmbh'],
    ['STRAẞE', 'strasse'],
    ['Ærø Bank', 'aero-bank'],
    ['Łódź', 'lodz'],
    ['Москва', 'moskva'],
    ['Κασσάνδρα', 'kassandra'],
    ['İstanbul Işık', 'istanbul-isik'],
    ['Đà Nẵng', 'da-nang'],
    ['Ｆｕｌｌ ﬁnance', 'full-finance'],
    ['ÉCOLE -- Normale', 'ecole-normale'],
    ['a'.repeat(47) + ' bcd', 'a'.repeat(47)],
    ['x'.repeat(60), 'x'.repeat(48)],
  ])('%j gives %j', (name, slug) => {
    expect(slugOfName(name)).toBe(slug);
  });

  it('takes the first free suffix', () => {
    expect(firstFreeSlug('acme', new Set())).toBe('acme');
    expect(firstFreeSlug('acme', new Set(['acme', 'acme-2', 'acme-4']))).toBe('acme-3');
  });
});

describeOnEachDatabase('slugs', (target) => {
  const server = useServer(target);
  let owner: TestUser;
  let application: string;

  beforeAll(async () => {
    owner = await registerUser(server(), 'owner');
    application = await createApplicationKey(server());
  });

  const create = (body: Record<string, unknown>, token = owner.token) =>
    server().call('POST', '/api/organizations', {
      token,
      body: { organization_description: 'Slugs', ...body },
    });

  const read = (organizationId: string, token = owner.token) =>
    server().call('GET', `/api/organizations/${organizationId}`, { token });

  it('derives a slug from the name, shown by the read', async () => {
    const name = `Société Générale ${uniqueId('x')}`;
    const created = await create({ organization_name: name });
    expect(created.status).toBe(201);
    const organization = await read(created.body.organization_id);
    expect(organization.body.slug).toBe(slugOfName(name));
    expect(organization.body.slug).toMatch(/^societe-generale-x-[0-9a-f]{10}$/);
    expect(organization.body).toMatchObject({ public_metadata: {}, max_members: null, member_count: 1 });
    expect(organization.body).not.toHaveProperty('private_metadata');
    // Legacy shapes stay: the creation answer gains nothing.
    expect(Object.keys(created.body).sort()).toEqual(['organization_id', 'role', 'user_id']);
  });

  it('gives twenty concurrent creations of one name twenty distinct slugs, the first free suffixes', async () => {
    const name = `Rush ${uniqueId('r')}`;
    const base = slugOfName(name);
    const created = await Promise.all(Array.from({ length: 20 }, () => create({ organization_name: name })));
    expect(created.map(({ status }) => status)).toEqual(Array(20).fill(201));
    const slugs = await Promise.all(
      created.map(async ({ body }) => (await read(body.organization_id)).body.slug as string),
    );
    expect(new Set(slugs).size).toBe(20);
    expect(slugs.sort()).toEqual([base, ...Array.from({ length: 19 }, (_, index) => `${base}-${index + 2}`)].sort());
  });

  it('takes a slug given; a taken one is 409, a malformed or UUID-shaped one 400', async () => {
    const slug = uniqueId('given');
    expect((await create({ organization_name: 'Given', organization_slug: slug })).status).toBe(201);
    const taken = await create({ organization_name: 'Given again', organization_slug: slug });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toContain(slug);
    for (const malformed of [
      'A-b',
      'a',
      'a--b',
      '-ab',
      'ab-',
      'a_b',
      'x'.repeat(65),
      '0b6f8d2e-1c3a-4f5e-9a7b-2d4c6e8f0a1b',
      // The shape alone, whatever its version and variant digits: a path could not tell it from an id.
      '391e6282-89ab-cdef-0123-456789abcdef',
      '00000000-0000-0000-0000-000000000000',
    ]) {
      expect((await create({ organization_name: 'Bad', organization_slug: malformed })).status, malformed).toBe(400);
    }
    const organizationId = (await create({ organization_name: 'Kept', organization_slug: uniqueId('kept') })).body
      .organization_id;
    const before = (await read(organizationId)).body;
    const uuidShaped = await server().call('PUT', `/organizations/${organizationId}`, {
      token: owner.token,
      body: { organization_slug: 'abcdefab-cdef-abcd-0bcd-abcdefabcdef' },
    });
    expect(uuidShaped.status).toBe(400);
    expect((await read(organizationId)).body).toEqual(before);
  });

  it('changes a slug by PUT; a taken one is 409 and changes nothing', async () => {
    const first = (await create({ organization_name: 'First', organization_slug: uniqueId('first') })).body;
    const second = (await create({ organization_name: 'Second', organization_slug: uniqueId('second') })).body;
    const before = (await read(second.organization_id)).body;
    const renamed = uniqueId('renamed');
    const changed = await server().call('PUT', `/api/organizations/${first.organization_id}`, {
      token: owner.token,
      body: { organization_slug: renamed },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.slug).toBe(renamed);
    const clash = await server().call('PUT', `/organizations/${second.organization_id}`, {
      token: owner.token,
      body: { organization_slug: renamed, organization_name: 'Clash' },
    });
    expect(clash.status).toBe(409);
    expect((await read(second.organization_id)).body).toEqual(before);
    const events = await server().call('GET', `/organizations/${first.organization_id}/events`, {
      token: owner.token,
    });
    const updated = events.body.find((event: { type: string }) => event.type === 'organization.updated');
    expect(updated.data.changes.organization_slug.to).toBe(renamed);
  });

  it('reads by slug, with and without /api, as by id; an unknown slug and a non-member are both 403', async () => {
    const slug = uniqueId('lookup');
    const { organization_id: organizationId } = (await create({ organization_name: 'Lookup', organization_slug: slug }))
      .body;
    const member = await registerUser(server(), 'member');
    await addMember(server(), owner, organizationId, member, 'member');
    for (const prefix of ['', '/api']) {
      const bySlug = await server().call('GET', `${prefix}/organizations/slug/${slug}`, { token: member.token });
      expect(bySlug.status).toBe(200);
      expect(bySlug.body).toEqual((await read(organizationId, member.token)).body);
    }
    const outsider = await registerUser(server(), 'outsider');
    const notMember = await server().call('GET', `/api/organizations/slug/${slug}`, { token: outsider.token });
    const unknown = await server().call('GET', `/api/organizations/slug/${uniqueId('nobody')}`, {
      token: outsider.token,
    });
    expect(notMember.status).toBe(403);
    expect(unknown.status).toBe(403);
    expect(unknown.body).toEqual(notMember.body);
    expect((await server().call('GET', '/api/organizations/slug/Not_A_Slug', { token: member.token })).status).toBe(
      400,
    );
  });

  it('reads a slug moved to another organization, or deleted, as it is now, right after the move', async () => {
    const slug = uniqueId('moving');
    const first = (await create({ organization_name: 'First', organization_slug: slug })).body.organization_id;
    const second = (await create({ organization_name: 'Second' })).body.organization_id;
    const member = await registerUser(server(), 'first-member');
    await addMember(server(), owner, first, member, 'member');
    const bySlug = (token: string) => server().call('GET', `/api/organizations/slug/${slug}`, { token });
    expect((await bySlug(member.token)).body.organization_id).toBe(first);
    expect((await bySlug(owner.token)).body.organization_id).toBe(first);

    const moveTo = (organizationId: string, to: string) =>
      server().call('PUT', `/api/organizations/${organizationId}`, {
        token: owner.token,
        body: { organization_slug: to },
      });
    expect((await moveTo(first, uniqueId('moved'))).status).toBe(200);
    expect((await moveTo(second, slug)).status).toBe(200);
    expect((await bySlug(owner.token)).body.organization_id).toBe(second);
    expect((await bySlug(member.token)).status).toBe(403);

    expect((await server().call('DELETE', `/api/organizations/${second}`, { token: owner.token })).status).toBe(200);
    expect((await bySlug(owner.token)).status).toBe(403);
    expect((await bySlug(member.token)).status).toBe(403);
  });

  it('shows the private metadata to an application key only', async () => {
    const { organization_id: organizationId } = (await create({ organization_name: 'Private' })).body;
    const byKey = await read(organizationId, application);
    expect(byKey.status).toBe(200);
    expect(byKey.body.private_metadata).toEqual({});
    expect((await read(organizationId)).body).not.toHaveProperty('private_metadata');
  });
});
