/** The loads of the scenarios that change data (bench/scenarios.ts), as autocannon options. */
import type autocannon from 'autocannon';
import { tokenFor } from '../tests/support/tokens.ts';

const json = { 'content-type': 'application/json' };

/** Whose role a connection of a role-flip load flips, in which organization, as which owner. */
export interface RoleFlip {
  ownerToken: string;
  organizationId: string;
  userId: string;
}

/**
 * `PUT /organization-user` by an organization's owner: each connection flips its own member
 * (`nextFlip()` names one per connection, with the organization and its owner) between admin and
 * member, and again.
 */
export function roleFlips(nextFlip: () => RoleFlip): Partial<autocannon.Options> {
  return {
    setupClient: (client) => {
      const { ownerToken, organizationId, userId } = nextFlip();
      const headers = { authorization: `Bearer ${ownerToken}`, organization_id: organizationId, ...json };
      client.setRequests(
        ['admin', 'member'].map((role) => ({
          method: 'PUT',
          path: '/organization-user',
          headers,
          body: JSON.stringify({ user_id: userId, role }),
        })),
      );
    },
  };
}

/**
 * `POST` then `DELETE /organization-user` by the organization's owner: each connection adds its own
 * user (`nextUser()` gives one per connection, by id and e-mail), then removes it, and again.
 */
export function addsAndRemoves(
  ownerToken: string,
  organizationId: string,
  nextUser: () => { userId: string; email: string },
): Partial<autocannon.Options> {
  return {
    headers: { authorization: `Bearer ${ownerToken}`, organization_id: organizationId, ...json },
    setupClient: (client) => {
      const { userId, email } = nextUser();
      client.setRequests([
        { method: 'POST', path: '/organization-user', body: JSON.stringify({ email, role: 'member' }) },
        { method: 'DELETE', path: '/organization-user', body: JSON.stringify({ user_id: userId }) },
      ]);
    },
  };
}

/** `POST /organizations` named `name`: each connection creates them as its own caller, from `creatorTokens` in turn. */
export function organizationCreations(creatorTokens: string[], name: string): Partial<autocannon.Options> {
  let nextCreator = 0;
  const body = JSON.stringify({ organization_name: name, organization_description: 'bench' });
  return {
    setupClient: (client) => {
      const authorization = `Bearer ${creatorTokens[nextCreator++ % creatorTokens.length]}`;
      client.setRequests([{ method: 'POST', path: '/organizations', headers: { authorization, ...json }, body }]);
    },
  };
}

/**
 * `POST /users` by `count` new callers, `${prefix}-0` on, each with a token and an e-mail of its
 * own, signed before the clock starts. Past `count` the callers come round again (their requests
 * then answer 409): ask for a few more than the run sends, since autocannon builds each
 * connection's first request early.
 */
export async function newUsers(prefix: string, count: number): Promise<Partial<autocannon.Options>> {
  const newUser = (index: number) => `${prefix}-${index}`;
  const signed = await Promise.all(
    Array.from({ length: count }, (_, index) => tokenFor(newUser(index), { role: 'owner', expiresIn: '2h' })),
  );
  let next = 0;
  return {
    requests: [
      {
        method: 'POST',
        path: '/users',
        setupRequest: (request) => {
          const index = next++ % count;
          return {
            ...request,
            headers: { authorization: `Bearer ${signed[index]}`, ...json },
            body: JSON.stringify({
              first_name: 'New',
              last_name: `User ${index}`,
              email: `${newUser(index)}@example.com`,
            }),
          };
        },
      },
    ],
  };
}

/**
 * `PUT /organizations/{id}` by the organizations' owner: connection k renames organization k modulo
 * their number between two names of its own, and again, so that every rename changes the name (one
 * to the name it has records no event).
 */
export function organizationRenames(ownerToken: string, organizationIds: string[]): Partial<autocannon.Options> {
  let nextConnection = 0;
  return {
    headers: { authorization: `Bearer ${ownerToken}`, ...json },
    setupClient: (client) => {
      const connection = nextConnection++;
      const organizationId = organizationIds[connection % organizationIds.length];
      client.setRequests(
        ['a', 'b'].map((side) => ({
          method: 'PUT',
          path: `/organizations/${organizationId}`,
          body: JSON.stringify({ organization_name: `renamed ${connection} ${side}` }),
        })),
      );
    },
  };
}
