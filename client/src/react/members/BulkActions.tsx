/**
 * Changes to the selected members at once: a new role for all, or their removal. Each member is
 * its own request (the service has no batch call, and one refusal, the last owner's, must not stop
 * the others); what failed is told on that member's row.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { usePermissions } from '../permissions.ts';
import { roleOptions } from '../roles/roleOptions.ts';
import { inOrganization, useTRPC } from '../service.tsx';
import { Button, ConfirmButton, SelectField } from '../ui/index.ts';
import { useMembershipsChanged } from './useMembershipsChanged.ts';

/** Per user id: null when their change went through, else the service's message. */
export type Outcomes = ReadonlyMap<string, string | null>;

export function BulkActions({
  organizationId,
  selected,
  canUpdate,
  canRemove,
  onDone,
}: {
  organizationId: string;
  selected: readonly string[];
  canUpdate: boolean;
  canRemove: boolean;
  onDone: (what: string, outcomes: Outcomes) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const membershipsChanged = useMembershipsChanged(organizationId);
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const permissions = usePermissions(organizationId);
  const [role, setRole] = useState('member');
  const options = inOrganization(organizationId);
  const changeRole = useMutation(trpc.members.changeRole.mutationOptions(options));
  const remove = useMutation(trpc.members.remove.mutationOptions(options));
  const [busy, setBusy] = useState<'role' | 'remove'>();

  const run = async (what: 'role' | 'remove', one: (userId: string) => Promise<unknown>) => {
    setBusy(what);
    const settled = await Promise.allSettled(selected.map(one));
    const outcomes = new Map(
      settled.map((result, index) => [
        selected[index]!,
        result.status === 'fulfilled' ? null : errorView(result.reason).message,
      ]),
    );
    // A role change may be the caller's own.
    await Promise.all([membershipsChanged(), queryClient.invalidateQueries({ queryKey: trpc.permissions.pathKey() })]);
    setBusy(undefined);
    onDone(what === 'role' ? `Role changed to ${role}` : 'Removed', outcomes);
  };

  const count = `${selected.length} ${selected.length === 1 ? 'member' : 'members'}`;
  return (
    <div className="osc-bulk" role="group" aria-label="Selected members">
      <span aria-live="polite">{count} selected</span>
      {canUpdate && (
        <>
          <SelectField
            label="New role"
            value={role}
            options={roleOptions(roles.data, 'member', permissions)}
            onChange={(event) => setRole(event.target.value)}
          />
          <Button
            variant="primary"
            disabled={selected.length === 0}
            busy={busy === 'role'}
            onClick={() => void run('role', (user_id) => changeRole.mutateAsync({ user_id, role }))}
          >
            Change role
          </Button>
        </>
      )}
      {canRemove && (
        <ConfirmButton
          confirmLabel={`Remove ${count}?`}
          disabled={selected.length === 0}
          busy={busy === 'remove'}
          onConfirm={() => void run('remove', (user_id) => remove.mutateAsync({ user_id }))}
        >
          Remove selected
        </ConfirmButton>
      )}
    </div>
  );
}
