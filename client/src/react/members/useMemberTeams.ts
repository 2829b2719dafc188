import { useQueries, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';

/**
 * The organization's teams `userId` is in, each with its roles: from the team list and each team's
 * members (an organization has tens of teams, not thousands). Pending until all are read.
 */
export function useMemberTeams(organizationId: string, userId: string) {
  const trpc = useTRPC();
  const teams = useQuery(trpc.teams.list.queryOptions({ organization_id: organizationId }));
  const members = useQueries({
    queries: (teams.data ?? []).map((team) =>
      trpc.teams.members.queryOptions({ organization_id: organizationId, team_id: team.team_id }),
    ),
  });
  const error = teams.error ?? members.find((each) => each.isError)?.error;
  const pending = teams.isPending || members.some((each) => each.isPending);
  const theirs = (teams.data ?? []).filter((_, index) =>
    members[index]?.data?.some((member) => member.user_id === userId),
  );
  return { teams: pending || error ? undefined : theirs, error: error ?? null, isPending: pending && !error };
}
