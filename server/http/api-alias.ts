/**
 * The paths also served under /api (behaviour §4, §8, §12): these roots and every path under them.
 * The server rewrites `/api/<root>…` to `/<root>…` before routing (app.ts), and the OpenAPI
 * document gives each such operation /api as its second server (openapi.ts).
 */
const API_ALIASED = ['users', 'organizations', 'invitations', 'teams', 'permissions', 'join-requests'];

const API_PREFIX = new RegExp(`^/api(?=/(?:${API_ALIASED.join('|')})(?:[/?#]|$))`, 'i');

/** The URL as it is routed: without the /api of an aliased path. */
export const withoutApiPrefix = (url: string) => url.replace(API_PREFIX, '');

/** Whether a documented path is served under /api as well. */
export const isAliased = (path: string) =>
  API_ALIASED.some((root) => path === `/${root}` || path.startsWith(`/${root}/`));
