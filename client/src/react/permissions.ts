/**
 * What the caller may do in an organization, from `GET /organizations/{id}/permissions` (their role
 * and their teams' roles together): components show only the controls it allows. The service
 * checks every call again; this only spares the caller buttons that would answer 403.
 */
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from './service.tsx';

export interface Permissions {
  /** Whether the caller holds `permission`; false until the answer is in. */
  can: (permission: string) => boolean;
  /** The caller's own role, once known. */
  role: string | undefined;
  /** The caller's user id, once known (none for an API key). */
  userId: string | undefined;
  loaded: boolean;
  /** The failure to read them (the organization is not the caller's, its id is malformed), or null. */
  error: unknown;
}

export function usePermissions(organizationId: string): Permissions {
  const trpc = useTRPC();
  const { data, error } = useQuery(trpc.permissions.mine.queryOptions({ organization_id: organizationId }));
  const held = new Set(data?.permissions);
  return {
    can: (permission) => held.has(permission),
    role: data?.role,
    userId: data?.user_id ?? undefined,
    loaded: data !== undefined,
    error,
  };
}
