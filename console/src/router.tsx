/**
 * The console's pages by path under /console (the service answers the page for every such path,
 * server/http/console.ts): a route is read from `location.pathname`, links change it with the
 * History API. Hand-written: six kinds of path do not need a routing library's weight in the
 * budget.
 */
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { PUBLIC_PATH } from './public-url.ts';

/** The console's path: under PUBLIC_URL's path, where a proxy serves the service under one. */
export const BASE = `${PUBLIC_PATH}/console`;

export const ORGANIZATION_SECTIONS = [
  'settings',
  'members',
  'invitations',
  'roles',
  'teams',
  'webhooks',
  'api-keys',
  'domains',
  'join-requests',
  'directory',
  'events',
] as const;
export type OrganizationSection = (typeof ORGANIZATION_SECTIONS)[number];

export type Route =
  | { page: 'home' }
  | { page: 'profile' }
  | { page: 'invitations' }
  | { page: 'organization'; organizationId: string; section: OrganizationSection; role?: string }
  | { page: 'member'; organizationId: string; userId: string }
  | { page: 'not-found' };

/** The route of a path and its query (`?role=` filters the member list: a role's holders). */
export function routeOf(pathname: string, search = ''): Route {
  const parts = pathname.slice(BASE.length).split('/').filter(Boolean).map(decodeURIComponent);
  const [first, second, third, fourth] = parts;
  if (parts.length === 0) return { page: 'home' };
  if (parts.length === 1 && (first === 'profile' || first === 'invitations')) return { page: first };
  if (first === 'organizations' && second && third === 'members' && fourth && parts.length === 4) {
    return { page: 'member', organizationId: second, userId: fourth };
  }
  if (first === 'organizations' && second && parts.length <= 3) {
    const section = (third ?? 'members') as OrganizationSection;
    const role = new URLSearchParams(search).get('role');
    if (ORGANIZATION_SECTIONS.includes(section)) {
      return { page: 'organization', organizationId: second, section, ...(role && section === 'members' && { role }) };
    }
  }
  return { page: 'not-found' };
}

export function pathOf(route: Route): string {
  switch (route.page) {
    case 'home':
    case 'not-found':
      return BASE;
    case 'profile':
    case 'invitations':
      return `${BASE}/${route.page}`;
    case 'organization': {
      const path = `${BASE}/organizations/${encodeURIComponent(route.organizationId)}/${route.section}`;
      return route.role ? `${path}?${new URLSearchParams({ role: route.role })}` : path;
    }
    case 'member':
      return `${BASE}/organizations/${encodeURIComponent(route.organizationId)}/members/${encodeURIComponent(route.userId)}`;
  }
}

const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    removeEventListener('popstate', listener);
  };
};

export function navigate(route: Route): void {
  history.pushState(null, '', pathOf(route));
  for (const listener of listeners) listener();
}

/** The current route; the component re-renders when it changes. */
export function useRoute(): Route {
  const address = useSyncExternalStore(subscribe, () => location.pathname + location.search);
  const query = address.indexOf('?');
  return query < 0 ? routeOf(address) : routeOf(address.slice(0, query), address.slice(query));
}

/** A real link (it opens in a new tab, and the keyboard follows it), handled in the page otherwise. */
export function Link({ to, ...anchor }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: Route }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...anchor} href={pathOf(to)} onClick={follow} />;
}
