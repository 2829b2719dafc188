import { useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';

/**
 * Refreshes what a change of an organization's memberships touches (behaviour §14): its members,
 * its teams (a member removed leaves them, behaviour §12) and the organization's own read, which
 * counts its members.
 */
export function useMembershipsChanged(organizationId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all(
      [
        trpc.members.pathKey(),
        trpc.teams.pathKey(),
        trpc.organizations.get.queryKey({ organization_id: organizationId }),
      ].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
    );
}
