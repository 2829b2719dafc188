import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { fullName, type Member } from '../members/member.ts';
import { MemberPicker } from '../members/MemberPicker.tsx';
import { useTRPC } from '../service.tsx';
import { ConfirmButton, ErrorNotice, Section } from '../ui/index.ts';

export function TransferOwnership({
  organizationId,
  callerId,
  onTransferred,
}: {
  organizationId: string;
  callerId: string | undefined;
  onTransferred: (newOwner: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<Member>();
  const transfer = useMutation(
    trpc.organizations.transferOwnership.mutationOptions({
      onSuccess: async () => {
        onTransferred(chosen ? fullName(chosen) : '');
        // The caller's role, permissions and the member list all change.
        await Promise.all(
          [trpc.organizations, trpc.members, trpc.permissions].map((procedures) =>
            queryClient.invalidateQueries({ queryKey: procedures.pathKey() }),
          ),
        );
      },
    }),
  );

  return (
    <Section title="Transfer ownership" description="The member you choose becomes the owner, and you become an admin.">
      <div className="osc-stack">
        <ErrorNotice error={transfer.error} />
        <MemberPicker
          organizationId={organizationId}
          label="New owner"
          value={chosen}
          onChange={setChosen}
          exclude={(member) => member.user_id === callerId}
          error={errorView(transfer.error).fields.user_id}
        />
        <div className="osc-row">
          <ConfirmButton
            confirmLabel={chosen ? `Make ${fullName(chosen)} the owner?` : 'Transfer ownership?'}
            busy={transfer.isPending}
            disabled={!chosen}
            onConfirm={() => chosen && transfer.mutate({ organization_id: organizationId, user_id: chosen.user_id })}
          >
            Transfer ownership
          </ConfirmButton>
        </div>
      </div>
    </Section>
  );
}
