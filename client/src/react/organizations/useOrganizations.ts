import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';

/** The organizations the caller belongs to (`organizations.list`): id, name, description, creator, creation time. */
export function useOrganizations() {
  const trpc = useTRPC();
  return useQuery(trpc.organizations.list.queryOptions(undefined));
}
