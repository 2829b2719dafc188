/**
 * An organization's roles (behaviour §11): every role it has, built-in, instance (the deployment's
 * roles file) and its own, with their permissions and what each lets a role do; with `roles:manage`, its own roles created,
 * changed and deleted, which are the only ones anybody may change.
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { QueryList, Section } from '../ui/index.ts';
import { CatalogueOr } from './CatalogueOr.tsx';
import { CreateRoleForm } from './CreateRoleForm.tsx';
import { RolesTable } from './RolesTable.tsx';

export interface RoleEditorProps {
  organizationId: string;
  /** Each role's count of holders as a link to them in the host's member list (`role` filters it). */
  holdersLink?: (role: string, count: string) => ReactNode;
}

/** Every role of the organization; with `roles:manage`, its own roles created, changed and deleted. */
export function RoleEditor({ organizationId, holdersLink }: RoleEditorProps) {
  const trpc = useTRPC();
  const { can } = usePermissions(organizationId);
  const manage = can('roles:manage');
  // Who holds a role is the member list's to tell (members:read).
  const holders = can('members:read') ? { link: holdersLink } : undefined;
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  // Any caller may read it: the roles table describes each permission from it.
  const catalogue = useQuery(trpc.permissions.catalogue.queryOptions());
  return (
    <>
      <Section
        title="Roles"
        description="Built-in and instance roles are the same in every organization and cannot be changed; the organization's own roles can."
      >
        <QueryList query={roles} items={roles.data} loading="Loading roles…" empty="This organization has no roles.">
          {(list) => (
            <RolesTable
              organizationId={organizationId}
              roles={list}
              manage={manage}
              catalogue={catalogue}
              holders={holders}
            />
          )}
        </QueryList>
      </Section>
      {manage && (
        <Section title="Create a role" description="A role of this organization's own, with permissions you hold.">
          <CatalogueOr catalogue={catalogue}>
            {(entries) => <CreateRoleForm organizationId={organizationId} catalogue={entries} />}
          </CatalogueOr>
        </Section>
      )}
    </>
  );
}
