/** The console's pages: each one lays out the client package's components for one route. */
import {
  AddMemberForm,
  Busy,
  CreateOrganizationForm,
  EmptyState,
  EventsLog,
  InvitationsTable,
  InviteForm,
  MembersTable,
  MyInvitations,
  OrganizationSettings,
  ProfileForm,
  RoleEditor,
  Section,
  TeamsPanel,
  usePermissions,
  useOrganizations,
  useProfile,
  WebhooksPanel,
} from '@org-service/client/react';
import { Link, navigate, type OrganizationSection } from './router.tsx';

/** Home: the caller's organizations, a new one, and invitations waiting for them. */
export function HomePage() {
  const me = useProfile();
  const organizations = useOrganizations();
  if (me.isPending) return <Busy />;
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
        {organizations.isPending ? (
          <Busy />
        ) : organizations.data?.length ? (
          <ul className="console-organization-list">
            {organizations.data.map((organization) => (
              <li key={organization.id}>
                <Link to={{ page: 'organization', organizationId: organization.id, section: 'members' }}>
                  {organization.name}
                </Link>
              </li>
            ))}
          </ul>
        ) : (
          <EmptyState>You are not a member of any organization yet.</EmptyState>
        )}
      </Section>
      <CreateOrganizationForm
        onCreated={(organizationId) => navigate({ page: 'organization', organizationId, section: 'members' })}
      />
      <MyInvitations />
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
  events: 'events:read',
};

export function OrganizationPage({
  organizationId,
  section,
}: {
  organizationId: string;
  section: OrganizationSection;
}) {
  const { can, loaded } = usePermissions(organizationId);
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
          <MembersTable organizationId={organizationId} />
          {can('members:add') && (
            <Section title="Add a member" description="Someone who already has a profile, by their email address.">
              <AddMemberForm organizationId={organizationId} />
            </Section>
          )}
        </>
      )}
      {section === 'invitations' && (
        <>
          <InviteForm organizationId={organizationId} />
          <InvitationsTable organizationId={organizationId} />
        </>
      )}
      {section === 'roles' && <RoleEditor organizationId={organizationId} />}
      {section === 'teams' && <TeamsPanel organizationId={organizationId} />}
      {section === 'webhooks' && <WebhooksPanel organizationId={organizationId} />}
      {section === 'events' && <EventsLog organizationId={organizationId} />}
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
