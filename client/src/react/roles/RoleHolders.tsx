/**
 * How many members hold a role as theirs (behaviour §15: the member page filtered by role), as a
 * link to them where the host application has a member list. The page has no total: one page of
 * the largest size is read, and a role held by more says so rather than reading every page.
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';

/** The largest page the service answers: the most holders counted in one read. */
const COUNTED = 1000;

export interface RoleHoldersProps {
  organizationId: string;
  role: string;
  /** The count as a link to the role's holders in the member list, where the host has one. */
  link?: ((role: string, count: string) => ReactNode) | undefined;
}

export function RoleHolders({ organizationId, role, link }: RoleHoldersProps) {
  const trpc = useTRPC();
  const holders = useQuery(
    keyedByOrganization(
      trpc.members.page.queryOptions({ limit: COUNTED, cursor: null, role }, inOrganization(organizationId)),
      organizationId,
    ),
  );
  if (holders.isPending) return <span className="osc-muted">…</span>;
  if (holders.isError) return <span className="osc-muted">Not known</span>;
  const count = holders.data.items.length;
  const text = holders.data.nextCursor
    ? `More than ${COUNTED.toLocaleString('en')} members`
    : `${count} ${count === 1 ? 'member' : 'members'}`;
  return <>{link ? link(role, text) : text}</>;
}
