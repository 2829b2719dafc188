import { useMutation, useQueryClient } from '@tanstack/react-query';
import { inOrganization, useTRPC } from '../service.tsx';
import { Button, ConfirmButton, EditableRow, Time, useRowEditor } from '../ui/index.ts';
import { fullName, MEMBER_COLUMNS, type Member } from './member.ts';
import { MemberEditForm } from './MemberEditForm.tsx';

interface MemberRowProps {
  organizationId: string;
  member: Member;
  /** The caller's own row: leaving instead of removing. */
  self: boolean;
  canUpdate: boolean;
  canRemove: boolean;
  onRemoved: () => void;
  onLeft: () => void;
}

/** A member's row: changing their role and expiry, removing them, or on the caller's own row leaving. */
export function MemberRow({ organizationId, member, self, canUpdate, canRemove, onRemoved, onLeft }: MemberRowProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const name = fullName(member);
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      ...inOrganization(organizationId),
      onSuccess: async () => {
        if (self) return onLeft();
        // Removing a member takes them out of the organization's teams too (behaviour §12).
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.members.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.teams.pathKey() }),
        ]);
        onRemoved();
      },
    }),
  );
  // A removal may be refused: the last owner's (409).
  const editor = useRowEditor(remove);
  return (
    <EditableRow
      editor={editor}
      columns={MEMBER_COLUMNS.length + 1}
      form={<MemberEditForm organizationId={organizationId} member={member} name={name} onClose={editor.close} />}
    >
      <td>{name}</td>
      <td>{member.email}</td>
      <td>{member.role}</td>
      <td>
        <Time value={member.expires_at} />
      </td>
      <td>
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
