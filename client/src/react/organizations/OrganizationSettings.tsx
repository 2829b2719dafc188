/**
 * One organization's settings (behaviour §4.2, §8): its details for any member; renaming, handing
 * ownership over and deleting for those whose permissions allow it.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { Busy, ErrorNotice, FocusedNotice, Section } from '../ui/index.ts';
import { DeleteOrganization } from './DeleteOrganization.tsx';
import { EditOrganization } from './EditOrganization.tsx';
import { OrganizationDetailsTable } from './OrganizationDetailsTable.tsx';
import { TransferOwnership } from './TransferOwnership.tsx';

export interface OrganizationSettingsProps {
  organizationId: string;
  /** Called once the organization is deleted, to leave its page. */
  onDeleted?: () => void;
}

export function OrganizationSettings(props: OrganizationSettingsProps) {
  // Another organization starts afresh: no notice or half-typed name of the last one.
  return <SettingsOf key={props.organizationId} {...props} />;
}

function SettingsOf({ organizationId, onDeleted }: OrganizationSettingsProps) {
  const trpc = useTRPC();
  const permissions = usePermissions(organizationId);
  const [deleted, setDeleted] = useState(false);
  // A deleted organization is not read again: it would only answer 403.
  const organization = useQuery(
    trpc.organizations.get.queryOptions({ organization_id: organizationId }, { enabled: !deleted }),
  );
  // Said where the focus goes when the control it was on has gone (ownership handed over, deleted).
  const [notice, setNotice] = useState<string>();
  const shownNotice = <FocusedNotice>{notice}</FocusedNotice>;

  if (deleted) return <Section title="Organization">{shownNotice}</Section>;
  if (organization.isPending) {
    return (
      <Section title="Organization">
        <Busy label="Loading the organization…" />
      </Section>
    );
  }
  if (organization.isError) {
    return (
      <Section title="Organization">
        <ErrorNotice error={organization.error} />
      </Section>
    );
  }
  const details = organization.data;
  return (
    <>
      <Section title="Organization">
        {shownNotice}
        <OrganizationDetailsTable details={details} />
      </Section>
      {permissions.can('organization:update') && <EditOrganization details={details} />}
      {permissions.can('ownership:transfer') && (
        <TransferOwnership
          organizationId={organizationId}
          callerId={permissions.userId}
          onTransferred={(newOwner) => setNotice(`${newOwner} is now the owner. You are an admin.`)}
        />
      )}
      {permissions.can('organization:delete') && (
        <DeleteOrganization
          details={details}
          onDeleted={() => {
            setDeleted(true);
            setNotice(`Organization “${details.organization_name}” deleted.`);
            onDeleted?.();
          }}
        />
      )}
    </>
  );
}
