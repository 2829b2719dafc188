import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { roleOptions } from '../roles/roleOptions.ts';
import { useTRPC } from '../service.tsx';
import { Button, ConfirmButton, SelectField } from '../ui/index.ts';
import type { JoinRequest } from './join-request.ts';

/** A pending request's answers: Approve, with the domain's role or one chosen, and Reject. */
export function JoinRequestActions({
  organizationId,
  request,
  approving,
  rejecting,
  onApprove,
  onReject,
}: {
  organizationId: string;
  request: JoinRequest;
  approving: boolean;
  rejecting: boolean;
  /** `role`: undefined for the role the domain offered. */
  onApprove: (role: string | undefined) => void;
  onReject: () => void;
}) {
  const trpc = useTRPC();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const [role, setRole] = useState('');
  const name = `${request.first_name} ${request.last_name}`;
  const options = [
    { value: '', label: "The domain's default role" },
    ...roleOptions(roles.data).filter((option) => option.value !== 'owner'),
  ];

  return (
    <span className="osc-row">
      <SelectField
        label={`Role for ${name}`}
        value={role}
        onChange={(event) => setRole(event.target.value)}
        options={options}
      />
      <Button variant="primary" busy={approving} onClick={() => onApprove(role || undefined)}>
        Approve
      </Button>
      <ConfirmButton confirmLabel={`Reject the request of ${name}?`} busy={rejecting} onConfirm={onReject}>
        Reject
      </ConfirmButton>
    </span>
  );
}
