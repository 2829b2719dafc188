/** The console's pages: each one lays out the client package's components for one route. */
import {
  AddMemberForm,
  Busy,
  CreateOrganizationForm,
  EmptyState,
  ErrorNotice,
  errorView,
  EventsLog,
  InvitationsTable,
  InviteForm,
  MemberProfile,
  MembersTable,
  MyInvitations,
  OrganizationSettings,
  ProfileForm,
  QueryList,
  RoleEditor,
  Section,
  TeamsPanel,
  usePermissions,
  useOrganizations,
  useProfile,
  WebhooksPanel,
  ApiKeysPanel,
  DomainsPanel,
  JoinRequestsPanel,
  MyJoinRequests,
  SuggestedOrganizations,
  DirectoryPanel,
} from '@org-service/client/react';
import { PUBLIC_BASE_URL } from './public-url.ts';
import { Link, navigate, type OrganizationSection } from './router.tsx';

/** Home: the caller's organizations, a new one, invitations waiting for them, and those they may join (behaviour §17). */
export function HomePage() {
  const me = useProfile();
  const organizations = useOrganizations();
  if (me.isPending) return <Busy />;
  if (me.isError) {
    return (
      <>
        <h1>Your organizations</h1>
        <ErrorNotice error={me.error} />
      </>
    );
  }
  if (me.data === null) {
    return (
      <>
        <h1>Welcome</h1>
        <p>Create your profile first: organizations and invitations need it.</p>
        <ProfileForm />
      </>
    );
  }
  return (
    <>
      <h1>Your organizations</h1>
      <Section title="Organizations" description="Open one to manage its members, roles, teams and more.">
        <QueryList
          query={organizations}
          items={organizations.data}
          loading="Loading your organizations…"
          empty="You are not a member of any organization yet."
        >
          {(list) => (
            <ul className="console-organization-list">
              {list.map((organization) => (
                <li key={organization.id}>
                  <Link to={{ page: 'organization', organizationId: organization.id, section: 'members' }}>
                    {organization.name}
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </QueryList>
      </Section>
      <CreateOrganizationForm
        onCreated={(organizationId) => navigate({ page: 'organization', organizationId, section: 'members' })}
      />
      <MyInvitations />
      <SuggestedOrganizations />
      <MyJoinRequests />
    </>
  );
}

export function ProfilePage() {
  return (
    <>
      <h1>Your profile</h1>
      <ProfileForm />
    </>
  );
}

export function InvitationsPage() {
  return (
    <>
      <h1>Your invitations</h1>
      <MyInvitations />
    </>
  );
}

export const SECTION_TITLES: Record<OrganizationSection, string> = {
  settings: 'Settings',
  members: 'Members',
  invitations: 'Invitations',
  roles: 'Roles',
  teams: 'Teams',
  webhooks: 'Webhooks',
  'api-keys': 'API keys',
  domains: 'Domains',
  'join-requests': 'Join requests',
  directory: 'Directory',
  events: 'Events',
};

/** The permission a section needs to be shown (the service checks each call again). */
export const SECTION_PERMISSIONS: Record<OrganizationSection, string> = {
  settings: 'organization:read',
  members: 'members:read',
  invitations: 'invitations:read',
  roles: 'roles:read',
  teams: 'teams:read',
  webhooks: 'webhooks:manage',
  'api-keys': 'api_keys:manage',
  domains: 'domains:manage',
  'join-requests': 'members:add',
  directory: 'domains:manage',
  events: 'events:read',
};

export function OrganizationPage({
  organizationId,
  section,
  role,
}: {
  organizationId: string;
  section: OrganizationSection;
  /** The member list's role filter at first. */
  role?: string | undefined;
}) {
  const { can, loaded, error } = usePermissions(organizationId);
  // The permissions are the page's first read: a refusal of them is the page's answer.
  if (error) return <OrganizationUnavailable organizationId={organizationId} error={error} />;
  if (!loaded) return <Busy />;
  if (!can(SECTION_PERMISSIONS[section])) {
    return (
      <>
        <h1>{SECTION_TITLES[section]}</h1>
        <EmptyState>Your role in this organization does not let you see this.</EmptyState>
      </>
    );
  }
  return (
    <>
      <h1>{SECTION_TITLES[section]}</h1>
      {section === 'settings' && (
        <OrganizationSettings organizationId={organizationId} onDeleted={() => navigate({ page: 'home' })} />
      )}
      {section === 'members' && (
        <>
          {can('members:add') && (
            <details className="console-disclosure">
              <summary>Add a member</summary>
              <Section title="Add a member" description="Someone who already has a profile, by their email address.">
                <AddMemberForm organizationId={organizationId} />
              </Section>
            </details>
          )}
          <MembersTable
            key={role}
            organizationId={organizationId}
            {...(role !== undefined && { role })}
            memberLink={(member, name) => (
              <Link to={{ page: 'member', organizationId, userId: member.user_id }}>{name}</Link>
            )}
          />
        </>
      )}
      {section === 'invitations' && (
        <>
          <InviteForm organizationId={organizationId} />
          <InvitationsTable organizationId={organizationId} />
        </>
      )}
      {section === 'roles' && (
        <RoleEditor
          organizationId={organizationId}
          holdersLink={(held, count) => (
            <Link to={{ page: 'organization', organizationId, section: 'members', role: held }}>{count}</Link>
          )}
        />
      )}
      {section === 'teams' && <TeamsPanel organizationId={organizationId} />}
      {section === 'webhooks' && <WebhooksPanel organizationId={organizationId} />}
      {section === 'api-keys' && <ApiKeysPanel organizationId={organizationId} />}
      {section === 'domains' && <DomainsPanel organizationId={organizationId} />}
      {section === 'join-requests' && <JoinRequestsPanel organizationId={organizationId} />}
      {section === 'directory' && <DirectoryPanel organizationId={organizationId} serviceUrl={PUBLIC_BASE_URL} />}
      {section === 'events' && <EventsLog organizationId={organizationId} />}
    </>
  );
}

/** One member of an organization: their details, teams and permissions (members:read). */
export function MemberPage({ organizationId, userId }: { organizationId: string; userId: string }) {
  const { can, loaded, error } = usePermissions(organizationId);
  if (error) return <OrganizationUnavailable organizationId={organizationId} error={error} />;
  if (!loaded) return <Busy />;
  return (
    <>
      <p>
        <Link to={{ page: 'organization', organizationId, section: 'members' }}>Back to the members</Link>
      </p>
      <h1>Member</h1>
      {can('members:read') ? (
        <MemberProfile organizationId={organizationId} userId={userId} />
      ) : (
        <EmptyState>Your role in this organization does not let you see this.</EmptyState>
      )}
    </>
  );
}

/**
 * An organization the console cannot show: one that does not exist or that the caller is not a
 * member of (403, 404), or an id that is none (400), said as such with the way back; any other
 * failure (the service unreachable, a 5xx) with the service's message.
 */
function OrganizationUnavailable({ organizationId, error }: { organizationId: string; error: unknown }) {
  const { status } = errorView(error);
  return (
    <>
      <h1>Organization not available</h1>
      {status === 400 ? (
        <EmptyState>“{organizationId}” is not an organization id.</EmptyState>
      ) : status === 403 || status === 404 ? (
        <EmptyState>This organization does not exist, or you are not a member of it.</EmptyState>
      ) : (
        <ErrorNotice error={error} />
      )}
      <p>
        <Link to={{ page: 'home' }}>Back to your organizations</Link>
      </p>
    </>
  );
}

export function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <Link to={{ page: 'home' }}>Back to your organizations</Link>
      </p>
    </>
  );
}
