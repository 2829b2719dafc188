import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { CreatedApiKey } from '../api-keys/api-key.ts';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { Button, ErrorNotice, SecretNotice, Section } from '../ui/index.ts';
import { IDENTITY_PROVIDER_KEY } from './directory.ts';

/**
 * What an identity provider is given: the SCIM base URL, and a key it calls with, made here (for
 * those holding api_keys:manage) and shown once.
 */
export function IdentityProviderConnection({
  organizationId,
  scimBaseUrl,
}: {
  organizationId: string;
  scimBaseUrl: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { can } = usePermissions(organizationId);
  const [created, setCreated] = useState<CreatedApiKey>();
  const createButton = useRef<HTMLButtonElement>(null);
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (key) => {
        setCreated(key);
        return queryClient.invalidateQueries({ queryKey: trpc.apiKeys.pathKey() });
      },
    }),
  );

  return (
    <Section
      title="Identity provider"
      description="Okta, Microsoft Entra ID or any SCIM 2.0 client keeps the members and teams in step with your company's directory."
    >
      <p>
        SCIM base URL: <span className="osc-mono">{scimBaseUrl}</span>
      </p>
      {created && (
        <SecretNotice
          title={`Secret of the API key ${created.name}`}
          note="Give it to your identity provider as its bearer token."
          secret={created.secret}
          onDismiss={() => {
            setCreated(undefined);
            // The secret took the focus; it goes back to the button that made it, not to the page.
            createButton.current?.focus();
          }}
        />
      )}
      <ErrorNotice error={create.error} />
      {can('api_keys:manage') && (
        <div className="osc-row">
          <Button
            ref={createButton}
            variant="primary"
            busy={create.isPending}
            onClick={() => create.mutate({ organization_id: organizationId, ...IDENTITY_PROVIDER_KEY })}
          >
            Create a key for your identity provider
          </Button>
        </div>
      )}
    </Section>
  );
}
