import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useTRPC } from '../service.tsx';
import { Badge, Button, ConfirmButton, ErrorNotice, Notice, Time } from '../ui/index.ts';
import type { Domain } from './domain.ts';
import { DomainSettingsForm } from './DomainSettingsForm.tsx';
import { VerificationRecord } from './VerificationRecord.tsx';

/**
 * One domain: its state, the TXT record and Verify while it is pending (a failure says what the
 * service found), its enrollment and default role, and removing it.
 */
export function DomainItem({
  organizationId,
  domain,
  removing,
  onRemove,
}: {
  organizationId: string;
  domain: Domain;
  removing: boolean;
  onRemove: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const verify = useMutation(
    trpc.domains.verify.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.domains.pathKey() }),
    }),
  );
  const pending = domain.status === 'pending';

  return (
    <article className="osc-item osc-stack" aria-labelledby={headingId}>
      <header className="osc-row">
        <h3 className="osc-item__title" id={headingId}>
          {domain.domain}
        </h3>
        <Badge tone={pending ? 'warning' : 'success'}>{domain.status}</Badge>
        {domain.verified_at && (
          <span className="osc-muted">
            verified <Time value={domain.verified_at} />
          </span>
        )}
      </header>
      {pending && (
        <>
          <VerificationRecord domain={domain} />
          <ErrorNotice error={verify.error} />
          <div className="osc-row">
            <Button
              variant="primary"
              busy={verify.isPending}
              onClick={() => verify.mutate({ organization_id: organizationId, domain_id: domain.domain_id })}
            >
              Verify
            </Button>
          </div>
        </>
      )}
      {verify.isSuccess && !pending && <Notice tone="success">{domain.domain} is verified.</Notice>}
      <DomainSettingsForm organizationId={organizationId} domain={domain} />
      <div className="osc-row">
        <ConfirmButton
          confirmLabel={`Remove ${domain.domain}? Its people no longer find or join the organization by it.`}
          busy={removing}
          onConfirm={onRemove}
        >
          Remove
        </ConfirmButton>
      </div>
    </article>
  );
}
