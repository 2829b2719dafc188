/**
 * What a member may do (behaviour §11), as the service's check answers it about them, each
 * permission with what gives it, where the caller may read that: their role, or a team's role
 * (several may).
 */
import { useQueries, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../service.tsx';
import { Badge, Busy, ErrorNotice, Table } from '../ui/index.ts';

/** The most permissions one check may name (MAX_PERMISSIONS_CHECKED). */
const PER_CHECK = 100;

interface Props {
  organizationId: string;
  userId: string;
  role: string;
  /**
   * Their teams with the roles each gives, to say what gives each permission with every role's
   * permissions (roles.list); undefined where the caller may not read those: the permissions alone.
   */
  teams: ReadonlyArray<{ name: string; roles: readonly string[] }> | undefined;
}

export function EffectivePermissions({ organizationId, userId, role, teams }: Props) {
  const trpc = useTRPC();
  const catalogue = useQuery(trpc.permissions.catalogue.queryOptions());
  const roles = useQuery({
    ...trpc.roles.list.queryOptions({ organization_id: organizationId }),
    enabled: teams !== undefined,
  });
  const asked = (catalogue.data ?? []).filter((entry) => !entry.application_only).map((entry) => entry.permission);
  const chunks = Array.from({ length: Math.ceil(asked.length / PER_CHECK) }, (_, index) =>
    asked.slice(index * PER_CHECK, (index + 1) * PER_CHECK),
  );
  const checks = useQueries({
    queries: chunks.map((permissions) =>
      trpc.permissions.check.queryOptions({ organization_id: organizationId, user_id: userId, permissions }),
    ),
  });
  const results = new Map(checks.flatMap((each) => Object.entries(each.data?.results ?? {})));
  const failure = catalogue.error ?? roles.error ?? checks.find((each) => each.isError)?.error;
  if (failure) return <ErrorNotice error={failure} />;
  if ((teams && !roles.data) || !catalogue.data || checks.some((each) => !each.data))
    return <Busy label="Reading their permissions…" />;

  const descriptions = new Map(catalogue.data.map((entry) => [entry.permission, entry.description]));
  const held = asked.filter((permission) => results.get(permission));
  const permissionsOf = roles.data && new Map(roles.data.map((each) => [each.role, new Set(each.permissions)]));
  const givenBy =
    teams &&
    permissionsOf &&
    ((permission: string) => {
      const fromTeams = teams.filter((team) => team.roles.some((each) => permissionsOf.get(each)?.has(permission)));
      // An owner's own powers are no role's (behaviour §11): their role gives them all the same.
      const fromRole = permissionsOf.get(role)?.has(permission) || fromTeams.length === 0;
      return [...(fromRole ? [`role ${role}`] : []), ...fromTeams.map((team) => `team ${team.name}`)];
    });
  return (
    <Table label="Effective permissions" columns={['Permission', 'What it allows', ...(givenBy ? ['Given by'] : [])]}>
      {held.map((permission) => (
        <tr key={permission}>
          <td data-label="Permission" className="osc-mono">
            {permission}
          </td>
          <td data-label="What it allows">{descriptions.get(permission)}</td>
          {givenBy && (
            <td data-label="Given by">
              <span className="osc-row">
                {givenBy(permission).map((source) => (
                  <Badge key={source} tone={source.startsWith('team') ? 'success' : 'accent'}>
                    {source}
                  </Badge>
                ))}
              </span>
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}
