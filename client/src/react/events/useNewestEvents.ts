import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';

/** The organization's newest `count` events, newest first: one page read newest first. */
export function useNewestEvents(organizationId: string, count: number) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.events.page.queryOptions({ organization_id: organizationId, limit: count, newest_first: true }),
    select: (page) => page.items,
    // Read once: what follows comes through the subscription, which starts after these.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}
