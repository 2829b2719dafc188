/**
 * A SCIM client as identity providers are one (behaviour §18): plain HTTP with an organization API
 * key as the bearer token and `application/scim+json` bodies, in the shapes Okta's and Microsoft
 * Entra ID's SCIM guides show.
 */
import { expect } from 'vitest';
import { createOrganization, registerUser, type TestUser } from './fixtures.ts';
import { setMaxMembers } from './limits.ts';
import { rawRequest } from './raw-http.ts';
import type { TestServer } from './server.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimAnswer<T = any> {
  status: number;
  body: T;
  contentType: string | null;
  /** The Location header (a 201's), as scimClient reads it. */
  location?: string | null;
}

export interface ScimClient {
  send<T = any>(method: string, path: string, body?: unknown): Promise<ScimAnswer<T>>;
}

/** What a client reads of an answer: its status, its body parsed and its headers by name. */
interface Received {
  status: number;
  body: any;
  header(name: string): string | null;
}

async function fetched(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Received> {
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : undefined,
    header: (name) => response.headers.get(name),
  };
}

/** The request over a bare socket (raw-http.ts), which sends the Host header of `headers` (fetch sends its own). */
async function sentWithHost(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Received> {
  const { origin, pathname, search } = new URL(url);
  const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
  const lines = Object.entries({ ...headers, ...length }).map(([name, value]) => `${name}: ${value}`);
  const answer = await rawRequest(origin, [`${method} ${pathname}${search} HTTP/1.1`, ...lines].join('\r\n'), { body });
  return { status: answer.status, body: answer.body, header: (name) => answer.headers[name] ?? null };
}

/**
 * `headers`: more headers every request carries. A `host` among them is sent as given, as a client
 * that names the service otherwise would, or a hostile one (requests then go out over a bare socket).
 */
export function scimClient(
  server: Pick<TestServer, 'baseUrl'>,
  secret: string | undefined,
  headers: Record<string, string> = {},
): ScimClient {
  return {
    async send(method, path, body) {
      const send = headers.host === undefined ? fetched : sentWithHost;
      const answer = await send(
        `${server.baseUrl}/scim/v2${path}`,
        method,
        {
          ...(secret !== undefined && { authorization: `Bearer ${secret}` }),
          accept: 'application/scim+json',
          ...(body !== undefined && { 'content-type': 'application/scim+json' }),
          ...headers,
        },
        body === undefined ? undefined : JSON.stringify(body),
      );
      return {
        status: answer.status,
        body: answer.body,
        contentType: answer.header('content-type'),
        location: answer.header('location'),
      };
    },
  };
}

/** An organization API key of `organizationId` with `role` (admin holds directory:sync). */
export async function organizationKey(
  server: TestServer,
  owner: TestUser,
  organizationId: string,
  role = 'admin',
): Promise<string> {
  const key = await server.call('POST', `/organizations/${organizationId}/api-keys`, {
    token: owner.token,
    body: { name: `SCIM ${role}`, role },
  });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  return key.body.secret as string;
}

/** The SCIM client of a new organization whose seats are `maxMembers` (its owner holds one). */
export async function clientOfLimitedOrganization(server: TestServer, maxMembers: number): Promise<ScimClient> {
  const owner = await registerUser(server, 'limited');
  const organizationId = await createOrganization(server, owner);
  await setMaxMembers(server, organizationId, maxMembers);
  return scimClient(server, await organizationKey(server, owner, organizationId));
}

/** A User as Okta's guide creates one (POST /Users). */
export const oktaUser = (email: string, givenName = 'Ann', familyName = 'Lee') => ({
  schemas: [USER_SCHEMA],
  userName: email,
  name: { givenName, familyName },
  emails: [{ primary: true, value: email, type: 'work' }],
  displayName: `${givenName} ${familyName}`,
  locale: 'en-US',
  externalId: `00u${email.length}okta`,
  groups: [],
  password: 'never-kept-1A!',
  active: true,
});

/** A User as Entra ID's guide creates one (POST /Users), with the enterprise extension it sends. */
export const entraUser = (email: string) => ({
  schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId: email.split('@')[0],
  userName: email,
  active: true,
  addresses: [{ primary: false, type: 'work', country: 'Spain' }],
  meta: { resourceType: 'User' },
  name: { formatted: 'Grace Hopper', familyName: 'Hopper', givenName: 'Grace' },
  title: 'Admiral',
  emails: [{ value: email, type: 'work', primary: true }],
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { employeeNumber: '701984', department: 'Navy' },
});

export const patch = (...Operations: object[]) => ({ schemas: [PATCH_SCHEMA], Operations });

/** The SCIM error body of a refusal, with the status and scimType it must carry. */
export function expectScimError(answer: ScimAnswer, status: number, scimType?: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.contentType).toMatch(/^application\/scim\+json/);
  expect(answer.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status) });
  expect(typeof answer.body.detail).toBe('string');
  if (scimType === undefined) expect(answer.body.scimType).toBeUndefined();
  else expect(answer.body.scimType).toBe(scimType);
}
