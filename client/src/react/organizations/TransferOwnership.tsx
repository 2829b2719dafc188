import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';
import { ConfirmButton, ErrorNotice, QueryList, Section, SelectField } from '../ui/index.ts';

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
  const members = useQuery(
    keyedByOrganization(trpc.members.list.queryOptions(undefined, inOrganization(organizationId)), organizationId),
  );
  const [userId, setUserId] = useState('');
  const candidates = (members.data ?? [])
    .filter((member) => member.user_id !== callerId)
    .map((member) => ({ userId: member.user_id, name: `${member.first_name} ${member.last_name}`, member }));
  const chosen = candidates.find((candidate) => candidate.userId === userId);
  const transfer = useMutation(
    trpc.organizations.transferOwnership.mutationOptions({
      onSuccess: async () => {
        onTransferred(chosen?.name ?? userId);
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
      <QueryList
        query={members}
        items={candidates}
        loading="Loading members…"
        empty="There is no other member to hand ownership to. Invite someone first."
      >
        {(rows) => (
          <div className="osc-stack">
            <ErrorNotice error={transfer.error} />
            <SelectField
              label="New owner"
              value={userId}
              options={[
                { value: '', label: 'Choose a member' },
                ...rows.map((candidate) => ({
                  value: candidate.userId,
                  label: `${candidate.name} (${candidate.member.email}), ${candidate.member.role}`,
                })),
              ]}
              onChange={(event) => setUserId(event.target.value)}
              error={errorView(transfer.error).fields.user_id}
            />
            <div className="osc-row">
              <ConfirmButton
                confirmLabel={chosen ? `Make ${chosen.name} the owner?` : 'Transfer ownership?'}
                busy={transfer.isPending}
                disabled={!chosen}
                onConfirm={() => transfer.mutate({ organization_id: organizationId, user_id: userId })}
              >
                Transfer ownership
              </ConfirmButton>
            </div>
          </div>
        )}
      </QueryList>
    </Section>
  );
}
