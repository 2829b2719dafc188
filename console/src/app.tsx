/**
 * The console's frame: sign-in when there is no usable token, else a header (the organization
 * switcher, the profile, signing out), the organization's sections as navigation, and the page of
 * the current route. A 401 from any call (an expired or revoked token) signs the tab out.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { OrganizationSwitcher, OrgServiceProvider, usePermissions } from '@org-service/client/react';
import {
  HomePage,
  InvitationsPage,
  MemberPage,
  NotFoundPage,
  OrganizationPage,
  ProfilePage,
  SECTION_PERMISSIONS,
  SECTION_TITLES,
} from './pages.tsx';
import { Link, navigate, ORGANIZATION_SECTIONS, useRoute, type OrganizationSection, type Route } from './router.tsx';
import { SERVICE_URL } from './public-url.ts';
import { forgetToken, storedSession, takeTokenFromFragment, type Session, type SignedOutReason } from './session.ts';
import { SignInPage } from './sign-in.tsx';

export interface SignOutSignal {
  /** Called with 'refused' by the query client when the service answers 401. */
  current: ((reason: SignedOutReason) => void) | undefined;
}

export function App({ signOutRef }: { signOutRef: SignOutSignal }) {
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session | SignedOutReason>(storedSession);
  useEffect(() => {
    signOutRef.current = (reason) => {
      forgetToken();
      // What the last token could read is not for whoever signs in next in this tab.
      queryClient.clear();
      setSession(reason);
    };
  }, [signOutRef, queryClient]);
  // A host application may hand over another token to a console already open (a new fragment).
  useEffect(() => {
    const takeToken = () => {
      if (!takeTokenFromFragment()) return;
      queryClient.clear();
      setSession(storedSession());
    };
    addEventListener('hashchange', takeToken);
    return () => removeEventListener('hashchange', takeToken);
  }, [queryClient]);
  // The token's own expiry signs out too, without waiting for a call to be refused.
  useEffect(() => {
    if (typeof session === 'string' || session.expiresAt === undefined) return;
    const timer = setTimeout(
      () => signOutRef.current?.('expired'),
      Math.min(session.expiresAt - Date.now(), 2 ** 31 - 1),
    );
    return () => clearTimeout(timer);
  }, [session, signOutRef]);
  if (typeof session === 'string') return <SignInPage reason={session} onSignedIn={setSession} />;
  return (
    <OrgServiceProvider url={SERVICE_URL} token={session.token}>
      <Frame session={session} onSignOut={() => signOutRef.current?.('missing')} />
    </OrgServiceProvider>
  );
}

function Frame({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const organizationId = route.page === 'organization' || route.page === 'member' ? route.organizationId : undefined;
  const section = route.page === 'organization' ? route.section : 'members';
  const main = useRef<HTMLElement>(null);
  // After a navigation, the focus goes to the new page, as a page load would put it.
  const path = location.pathname;
  const first = useRef(true);
  // On a narrow screen the navigation folds behind a Menu button; it is open on the page it was
  // opened on, so a new page folds it again.
  const [menuOpenOn, setMenuOpenOn] = useState<string>();
  const menuOpen = menuOpenOn === path;
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [path]);
  return (
    <div className={menuOpen ? 'console osc-root console--menu-open' : 'console osc-root'}>
      <a className="console-skip" href="#main">
        Skip to content
      </a>
      <header className="console-header">
        <Link to={{ page: 'home' }} className="console-brand">
          Organizations console
        </Link>
        <button
          type="button"
          className="osc-button osc-button--ghost console-menu-button"
          aria-expanded={menuOpen}
          aria-controls="console-menu"
          onClick={() => setMenuOpenOn(menuOpen ? undefined : path)}
        >
          Menu
        </button>
        <div className="console-header__switcher">
          <OrganizationSwitcher
            label="Organization"
            value={organizationId}
            onChange={(id) =>
              navigate({
                page: 'organization',
                organizationId: id,
                section,
              })
            }
          />
        </div>
        <nav className="console-header__user" aria-label="Account" id="console-menu">
          <Link to={{ page: 'invitations' }}>Your invitations</Link>
          <Link to={{ page: 'profile' }}>Profile</Link>
          <span className="console-user" title="Signed in as">
            {session.userId}
          </span>
          <button type="button" className="osc-button osc-button--ghost" onClick={onSignOut}>
            Sign out
          </button>
        </nav>
      </header>
      <div className="console-body">
        {organizationId && <OrganizationNav organizationId={organizationId} current={section} />}
        <main className="console-main" id="main" tabIndex={-1} ref={main}>
          <Page route={route} />
        </main>
      </div>
    </div>
  );
}

function OrganizationNav({ organizationId, current }: { organizationId: string; current: OrganizationSection }) {
  const { can, error } = usePermissions(organizationId);
  // The page says why the organization cannot be shown; it has no sections to go to.
  if (error) return null;
  return (
    <nav className="console-nav" aria-label="Organization">
      <ul>
        {ORGANIZATION_SECTIONS.filter((section) => can(SECTION_PERMISSIONS[section])).map((section) => (
          <li key={section}>
            <Link
              to={{ page: 'organization', organizationId, section }}
              aria-current={section === current ? 'page' : undefined}
            >
              {SECTION_TITLES[section]}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'home':
      return <HomePage />;
    case 'profile':
      return <ProfilePage />;
    case 'invitations':
      return <InvitationsPage />;
    case 'organization':
      return (
        <OrganizationPage
          key={route.organizationId}
          organizationId={route.organizationId}
          section={route.section}
          role={route.role}
        />
      );
    case 'member':
      return <MemberPage key={route.organizationId} organizationId={route.organizationId} userId={route.userId} />;
    case 'not-found':
      return <NotFoundPage />;
  }
}
