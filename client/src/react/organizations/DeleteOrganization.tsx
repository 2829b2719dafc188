import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';
import { ConfirmButton, ErrorNotice, Section } from '../ui/index.ts';
import type { OrganizationDetails } from './organization.ts';

export function DeleteOrganization({ details, onDeleted }: { details: OrganizationDetails; onDeleted: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.organizations.remove.mutationOptions({
      onSuccess: async () => {
        // Dropped before the lists are refreshed, so that it is not read again (it would answer 403).
        queryClient.removeQueries({
          queryKey: trpc.organizations.get.queryKey({ organization_id: details.organization_id }),
        });
        onDeleted();
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
      },
    }),
  );

  return (
    <Section
      title="Delete organization"
      description="Deletes the organization with its memberships, invitations, teams and webhook endpoints. This cannot be undone."
    >
      <ErrorNotice error={remove.error} />
      <ConfirmButton
        confirmLabel={`Delete “${details.organization_name}” for good?`}
        busy={remove.isPending}
        onConfirm={() => remove.mutate({ organization_id: details.organization_id })}
      >
        Delete organization
      </ConfirmButton>
    </Section>
  );
}
