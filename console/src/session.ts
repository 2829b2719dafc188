/**
 * The console's sign-in (behaviour §14): a bearer token pasted by the user, or handed over by a host
 * application in the URL fragment (`/console#token=…`, never sent to any server, removed from the
 * address bar at once). It is kept in `sessionStorage`: for this browser tab only, gone when the
 * tab closes. The token is read, never verified, here: the service verifies it on every call, and
 * its answer 401 signs the tab out.
 */
const STORAGE_KEY = 'org-console-token';

export type SignedOutReason = 'missing' | 'expired' | 'refused';

export interface Session {
  token: string;
  /** The token's subject: the caller's user id. */
  userId: string;
  /** When the token expires (ms since the epoch), if it says. */
  expiresAt: number | undefined;
}

interface Claims {
  sub?: unknown;
  exp?: unknown;
}

/** The claims of a JWT, decoded without verifying; undefined for anything that is not one. */
function claimsOf(token: string): Claims | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const claims: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (char) => char.charCodeAt(0))));
    return typeof claims === 'object' && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** A session for `token`, or why there is none. */
export function sessionOf(token: string): Session | SignedOutReason {
  const trimmed = token.trim().replace(/^Bearer\s+/i, '');
  const claims = claimsOf(trimmed);
  if (!claims || typeof claims.sub !== 'string' || claims.sub === '') return 'refused';
  const expiresAt = typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  if (expiresAt !== undefined && expiresAt <= Date.now()) return 'expired';
  return { token: trimmed, userId: claims.sub, expiresAt };
}

/**
 * Takes a token from the URL fragment into the tab's storage, and the fragment out of the address
 * bar (and so out of the history); whether there was one.
 */
export function takeTokenFromFragment(): boolean {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('token');
  if (token === null) return false;
  sessionStorage.setItem(STORAGE_KEY, token);
  history.replaceState(history.state, '', location.pathname + location.search);
  return true;
}

export function storedSession(): Session | SignedOutReason {
  const token = sessionStorage.getItem(STORAGE_KEY);
  return token ? sessionOf(token) : 'missing';
}

export function keepToken(token: string): void {
  sessionStorage.setItem(STORAGE_KEY, token.trim().replace(/^Bearer\s+/i, ''));
}

export function forgetToken(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
