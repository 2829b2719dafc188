import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, Form, FormActions, Section, TextField } from '../ui/index.ts';
import type { Domain } from './domain.ts';

/** A new domain: pending until its TXT record is found, or verified at once when the caller's verified e-mail is at it. */
export function AddDomainForm({
  organizationId,
  onAdded,
}: {
  organizationId: string;
  onAdded: (added: Domain) => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const [domain, setDomain] = useState('');
  const add = useMutation(
    trpc.domains.add.mutationOptions({
      onSuccess: (added) => {
        setDomain('');
        return onAdded(added);
      },
    }),
  );

  return (
    <Section
      title="Add a domain"
      description="An e-mail domain of the organization's people. Public e-mail providers' domains are refused."
    >
      <Form
        busy={add.isPending}
        label="Add a domain"
        onSubmit={() => add.mutate({ organization_id: organizationId, domain })}
      >
        <ErrorNotice error={add.error} />
        <TextField
          label="Domain"
          value={domain}
          onChange={(event) => setDomain(event.target.value)}
          error={errorView(add.error).fields.domain}
          hint="For example acme.example"
          autoComplete="off"
          spellCheck={false}
        />
        <FormActions submit="Add domain" />
      </Form>
    </Section>
  );
}
