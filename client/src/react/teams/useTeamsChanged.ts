import { useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';

/** Refreshes the teams, and the caller's permissions, which a team's roles and members give (behaviour §11). */
export function useTeamsChanged() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all(
      [trpc.teams, trpc.permissions].map((procedures) =>
        queryClient.invalidateQueries({ queryKey: procedures.pathKey() }),
      ),
    );
}
