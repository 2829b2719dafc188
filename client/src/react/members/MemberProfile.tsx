/**
 * One member's page: who they are, their role and expiry, their teams, their public metadata
 * (where the service gives it, behaviour §15) and what they may do, with what gives each permission.
 */
import { useQuery } from '@tanstack/react-query';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';
import { Badge, Busy, EmptyState, ErrorNotice, Section, Table, Time } from '../ui/index.ts';
import { EffectivePermissions } from './EffectivePermissions.tsx';
import { fullName } from './member.ts';
import { useMemberTeams } from './useMemberTeams.ts';

export interface MemberProfileProps {
  organizationId: string;
  userId: string;
}

export function MemberProfile({ organizationId, userId }: MemberProfileProps) {
  const trpc = useTRPC();
  const member = useQuery(
    keyedByOrganization(
      trpc.members.get.queryOptions({ user_id: userId }, inOrganization(organizationId)),
      organizationId,
    ),
  );
  const teams = useMemberTeams(organizationId, userId);
  if (member.isPending) return <Busy label="Loading the member…" />;
  if (member.isError) return <ErrorNotice error={member.error} />;
  const data = member.data;
  const metadata = 'public_metadata' in data ? data.public_metadata : undefined;
  return (
    <>
      <Section title={fullName(data)}>
        <Table label="Member details">
          <tr>
            <th scope="row">Email</th>
            <td>{data.email}</td>
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
        {teams.error ? (
          <ErrorNotice error={teams.error} />
        ) : !teams.teams ? (
          <Busy label="Loading their teams…" />
        ) : teams.teams.length === 0 ? (
          <EmptyState>Not in any team.</EmptyState>
        ) : (
          <ul className="osc-list">
            {teams.teams.map((team) => (
              <li key={team.team_id}>
                {team.name} <span className="osc-muted">gives {team.roles.join(', ') || 'no role'}</span>
              </li>
            ))}
          </ul>
        )}
      </Section>
      {metadata !== undefined && (
        <Section title="Public metadata">
          <pre className="osc-code">{JSON.stringify(metadata, null, 2)}</pre>
        </Section>
      )}
      <Section title="Effective permissions" description="What the service answers they may do, and what gives it.">
        {teams.teams ? (
          <EffectivePermissions organizationId={organizationId} userId={userId} role={data.role} teams={teams.teams} />
        ) : (
          !teams.error && <Busy label="Reading their permissions…" />
        )}
      </Section>
    </>
  );
}
