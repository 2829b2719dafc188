import { useQuery } from '@tanstack/react-query';
import type { RouterOutputs } from '../../index.ts';
import { errorView } from '../errors.ts';
import { useTRPC } from '../service.tsx';

export type User = RouterOutputs['users']['me'];

/**
 * The caller's user record, or null while they have none (`users.me` answers 404): an answer, kept
 * as data rather than as an error, so that it is neither retried nor refetched by every component
 * that mounts to show it (TanStack Query refetches an errored query on mount, going back to pending).
 */
export function useProfile() {
  const trpc = useTRPC();
  const options = trpc.users.me.queryOptions();
  return useQuery({
    queryKey: options.queryKey,
    queryFn: async (context): Promise<User | null> => {
      try {
        return await options.queryFn!(context);
      } catch (error) {
        if (errorView(error).status === 404) return null;
        throw error;
      }
    },
  });
}
