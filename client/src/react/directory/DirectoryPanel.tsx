/**
 * The organization's directory (behaviour §18), for those holding domains:manage (nothing is shown
 * to others): how to connect an identity provider over SCIM, the role the memberships it makes get,
 * what it provisioned and its last changes.
 */
import { useQuery } from '@tanstack/react-query';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { DefaultRoleForm } from './DefaultRoleForm.tsx';
import { DirectoryChanges } from './DirectoryChanges.tsx';
import { DirectoryGroupsTable } from './DirectoryGroupsTable.tsx';
import { DirectoryUsersTable } from './DirectoryUsersTable.tsx';
import { IdentityProviderConnection } from './IdentityProviderConnection.tsx';

export interface DirectoryPanelProps {
  organizationId: string;
  /**
   * The service's base URL as the identity provider reaches it (`/scim/v2` under it): its
   * PUBLIC_URL, `https://example.com/orgs` under a proxy's path.
   */
  serviceUrl: string;
}

export function DirectoryPanel(props: DirectoryPanelProps) {
  const { can } = usePermissions(props.organizationId);
  if (!can('domains:manage')) return null;
  // Another organization starts afresh: no secret of the last one's key.
  return <DirectoryOf key={props.organizationId} {...props} />;
}

function DirectoryOf({ organizationId, serviceUrl }: DirectoryPanelProps) {
  const trpc = useTRPC();
  const directory = useQuery(trpc.directory.get.queryOptions({ organization_id: organizationId }));
  return (
    <>
      <IdentityProviderConnection organizationId={organizationId} scimBaseUrl={`${serviceUrl}/scim/v2`} />
      <DefaultRoleForm organizationId={organizationId} directory={directory} />
      <DirectoryUsersTable organizationId={organizationId} counts={directory.data?.users} />
      <DirectoryGroupsTable organizationId={organizationId} total={directory.data?.groups} />
      <DirectoryChanges directory={directory} />
    </>
  );
}
