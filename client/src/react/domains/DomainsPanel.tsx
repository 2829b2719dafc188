/**
 * An organization's e-mail domains (behaviour §17), for those holding domains:manage (nothing is
 * shown to others): each with its state, the TXT record that verifies a pending one, Verify,
 * enrollment and default role, and removing; and adding one.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, FocusedNotice, QueryList, Section } from '../ui/index.ts';
import { AddDomainForm } from './AddDomainForm.tsx';
import { DomainItem } from './DomainItem.tsx';

export interface DomainsPanelProps {
  organizationId: string;
}

export function DomainsPanel(props: DomainsPanelProps) {
  const { can } = usePermissions(props.organizationId);
  if (!can('domains:manage')) return null;
  // Another organization starts afresh: no notice of the last one.
  return <DomainsOf key={props.organizationId} {...props} />;
}

function DomainsOf({ organizationId }: DomainsPanelProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const domains = useQuery(trpc.domains.list.queryOptions({ organization_id: organizationId }));
  const [notice, setNotice] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.domains.pathKey() });
  const remove = useMutation(trpc.domains.remove.mutationOptions({ onSuccess: refresh }));

  return (
    <>
      <AddDomainForm
        organizationId={organizationId}
        onAdded={(added) => {
          setNotice(
            added.status === 'verified'
              ? `${added.domain} added, verified by your e-mail address.`
              : `${added.domain} added: create its TXT record, then verify it.`,
          );
          return refresh();
        }}
      />
      <Section
        title="Domains"
        description="People whose verified e-mail address is at a verified domain can find and join the organization, as its enrollment says."
      >
        <FocusedNotice>{notice}</FocusedNotice>
        <ErrorNotice error={remove.error} />
        <QueryList
          query={domains}
          items={domains.data}
          loading="Loading domains…"
          empty="This organization has no domains yet."
        >
          {(rows) => (
            <div className="osc-stack">
              {rows.map((domain) => (
                <DomainItem
                  key={domain.domain_id}
                  organizationId={organizationId}
                  domain={domain}
                  removing={remove.isPending && remove.variables?.domain_id === domain.domain_id}
                  onRemove={() => {
                    setNotice(undefined);
                    remove.mutate(
                      { organization_id: organizationId, domain_id: domain.domain_id },
                      { onSuccess: () => setNotice(`${domain.domain} removed.`) },
                    );
                  }}
                />
              ))}
            </div>
          )}
        </QueryList>
      </Section>
    </>
  );
}
