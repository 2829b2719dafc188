/**
 * One member's page (`members.details`, behaviour §15): who they are, their role and expiry, their
 * teams, their public metadata and what they may do, with what gives each permission.
 */
import { useQuery } from '@tanstack/react-query';
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
  const member = useQuery(
    keyedByOrganization(
      trpc.members.details.queryOptions({ organization_id: organizationId, user_id: userId }),
      organizationId,
    ),
  );
  // The roles each of their teams gives, for what gives each permission: one read of the team list.
  const allTeams = useQuery(trpc.teams.list.queryOptions({ organization_id: organizationId }));
  if (member.isPending) return <Busy label="Loading the member…" />;
  if (member.isError) return <ErrorNotice error={member.error} />;
  const data = member.data;
  const rolesOf = new Map(allTeams.data?.map((team) => [team.team_id, team.roles]));
  const teams = allTeams.data && data.teams.map((team) => ({ ...team, roles: rolesOf.get(team.team_id) ?? [] }));
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
        {allTeams.isError ? (
          <ErrorNotice error={allTeams.error} />
        ) : !teams ? (
          <Busy label="Loading their teams…" />
        ) : teams.length === 0 ? (
          <EmptyState>Not in any team.</EmptyState>
        ) : (
          <ul className="osc-list">
            {teams.map((team) => (
              <li key={team.team_id}>
                {team.name} <span className="osc-muted">gives {team.roles.join(', ') || 'no role'}</span>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Public metadata">
        <pre className="osc-code">{JSON.stringify(data.public_metadata, null, 2)}</pre>
      </Section>
      <Section title="Effective permissions" description="What the service answers they may do, and what gives it.">
        {teams ? (
          <EffectivePermissions organizationId={organizationId} userId={userId} role={data.role} teams={teams} />
        ) : (
          !allTeams.isError && <Busy label="Reading their permissions…" />
        )}
      </Section>
    </>
  );
}
