/**
 * One member's page (`members.details`, behaviour §15): who they are, their role and expiry, their
 * teams, their public metadata and what they may do, with what gives each permission where the
 * caller may read the teams' and the roles' permissions (teams:read, roles:read).
 */
import { useQuery } from '@tanstack/react-query';
import { usePermissions } from '../permissions.ts';
import { keyedByOrganization, useTRPC } from '../service.tsx';
import { Badge, Busy, EmptyState, ErrorNotice, Section, Table, Time } from '../ui/index.ts';
import { EffectivePermissions } from './EffectivePermissions.tsx';
import { fullName } from './member.ts';

export interface MemberProfileProps {
  organizationId: string;
  userId: string;
}

export function MemberProfile({ organizationId, userId }: MemberProfileProps) {
  const trpc = useTRPC();
  const permissions = usePermissions(organizationId);
  const member = useQuery(
    keyedByOrganization(
      trpc.members.details.queryOptions({ organization_id: organizationId, user_id: userId }),
      organizationId,
    ),
  );
  // The roles each of their teams gives, for what gives each permission: one read of the team list,
  // for a caller who may read the teams (behaviour §14); any other sees their teams' names alone.
  const readsTeams = permissions.can('teams:read');
  const allTeams = useQuery({
    ...trpc.teams.list.queryOptions({ organization_id: organizationId }),
    enabled: readsTeams,
  });
  if (member.isError) return <ErrorNotice error={member.error} />;
  if (permissions.error) return <ErrorNotice error={permissions.error} />;
  if (member.isPending || !permissions.loaded) return <Busy label="Loading the member…" />;
  const data = member.data;
  const rolesOf = allTeams.data && new Map(allTeams.data.map((team) => [team.team_id, team.roles]));
  // What gives a permission also needs every role's permissions (roles:read).
  const givers =
    rolesOf && permissions.can('roles:read')
      ? data.teams.map((team) => ({ ...team, roles: rolesOf.get(team.team_id) ?? [] }))
      : undefined;
  return (
    <>
      <Section title={fullName(data)}>
        <Table label="Member details">
          <tr>
            <th scope="row">Email</th>
            <td className="osc-wrap">{data.email}</td>
          </tr>
          <tr>
            <th scope="row">Role</th>
            <td>
              <Badge tone="accent">{data.role}</Badge>
            </td>
          </tr>
          <tr>
            <th scope="row">Membership expires</th>
            <td>
              <Time value={data.expires_at} />
            </td>
          </tr>
          <tr>
            <th scope="row">Joined</th>
            <td>
              <Time value={data.created_at} />
            </td>
          </tr>
          <tr>
            <th scope="row">User id</th>
            <td className="osc-mono">{data.user_id}</td>
          </tr>
        </Table>
      </Section>
      <Section title="Teams">
        {data.teams.length === 0 ? (
          <EmptyState>Not in any team.</EmptyState>
        ) : readsTeams && allTeams.isError ? (
          <ErrorNotice error={allTeams.error} />
        ) : readsTeams && !rolesOf ? (
          <Busy label="Loading their teams…" />
        ) : (
          <ul className="osc-list">
            {data.teams.map((team) => (
              <li key={team.team_id}>
                {team.name}
                {rolesOf && (
                  <span className="osc-muted"> gives {rolesOf.get(team.team_id)?.join(', ') || 'no role'}</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Public metadata">
        <pre className="osc-code">{JSON.stringify(data.public_metadata, null, 2)}</pre>
      </Section>
      <Section
        title="Effective permissions"
        description={
          givers ? 'What the service answers they may do, and what gives it.' : 'What the service answers they may do.'
        }
      >
        {readsTeams && allTeams.isPending ? (
          <Busy label="Reading their permissions…" />
        ) : (
          <EffectivePermissions organizationId={organizationId} userId={userId} role={data.role} teams={givers} />
        )}
      </Section>
    </>
  );
}
