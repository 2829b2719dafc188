import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { inOrganization, useTRPC } from '../service.tsx';
import { Button, ConfirmButton, EditableRow, Time, useRowEditor } from '../ui/index.ts';
import { fullName, MEMBER_COLUMNS, type Member } from './member.ts';
import { MemberEditForm } from './MemberEditForm.tsx';
import { useMembershipsChanged } from './useMembershipsChanged.ts';

interface MemberRowProps {
  organizationId: string;
  member: Member;
  /** The caller's own row: leaving instead of removing. */
  self: boolean;
  canUpdate: boolean;
  canRemove: boolean;
  onRemoved: () => void;
  onLeft: () => void;
  /** With bulk actions: whether the row is selected, and its change. */
  selection?: { selected: boolean; onChange: (selected: boolean) => void };
  /** What the last bulk action did to this member: null for done, else the service's message. */
  outcome?: string | null | undefined;
  /** The member's name as a link to their page, where the host has one. */
  link?: (name: string) => ReactNode;
}

/** A member's row: changing their role and expiry, removing them, or on the caller's own row leaving. */
export function MemberRow({
  organizationId,
  member,
  self,
  canUpdate,
  canRemove,
  onRemoved,
  onLeft,
  selection,
  outcome,
  link,
}: MemberRowProps) {
  const trpc = useTRPC();
  const membershipsChanged = useMembershipsChanged(organizationId);
  const name = fullName(member);
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      ...inOrganization(organizationId),
      onSuccess: async () => {
        if (self) return onLeft();
        await membershipsChanged();
        onRemoved();
      },
    }),
  );
  // A removal may be refused: the last owner's (409).
  const editor = useRowEditor(remove);
  return (
    <EditableRow
      editor={editor}
      columns={MEMBER_COLUMNS.length + (selection ? 2 : 1)}
      form={<MemberEditForm organizationId={organizationId} member={member} name={name} onClose={editor.close} />}
    >
      {selection && (
        <td className="osc-table__select">
          <input
            type="checkbox"
            aria-label={`Select ${name}`}
            checked={selection.selected}
            onChange={(event) => selection.onChange(event.target.checked)}
          />
        </td>
      )}
      <td data-label="Name" className="osc-wrap">
        {link ? link(name) : name}
        {outcome !== undefined && (
          <span className={outcome === null ? 'osc-outcome' : 'osc-outcome osc-outcome--failed'}>
            {outcome === null ? 'Done' : `Failed: ${outcome}`}
          </span>
        )}
      </td>
      <td data-label="Email" className="osc-wrap">
        {member.email}
      </td>
      <td data-label="Role">{member.role}</td>
      <td data-label="Expires">
        <Time value={member.expires_at} />
      </td>
      <td data-label="Joined">
        <Time value={member.created_at} />
      </td>
      <td className="osc-table__actions">
        <span className="osc-row">
          {canUpdate && <Button {...editor.editButton}>Edit</Button>}
          {(self || canRemove) && (
            <span {...editor.removalHolder}>
              <ConfirmButton
                confirmLabel={self ? 'Leave this organization?' : `Remove ${name}?`}
                busy={remove.isPending}
                onConfirm={() => remove.mutate({ user_id: member.user_id })}
              >
                {self ? 'Leave organization' : 'Remove'}
              </ConfirmButton>
            </span>
          )}
        </span>
      </td>
    </EditableRow>
  );
}
