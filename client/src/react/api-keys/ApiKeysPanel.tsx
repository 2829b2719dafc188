/**
 * API keys (behaviour §16), for those holding api_keys:manage (nothing is shown to others): the
 * organization's keys with their last use, creating one (its secret shown once, with a copy
 * button) and revoking.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { usePermissions } from '../permissions.ts';
import { useTRPC } from '../service.tsx';
import { ErrorNotice, FocusedNotice, QueryList, SecretNotice, Section } from '../ui/index.ts';
import type { CreatedApiKey } from './api-key.ts';
import { ApiKeysTable } from './ApiKeysTable.tsx';
import { CreateApiKeyForm } from './CreateApiKeyForm.tsx';

export interface ApiKeysPanelProps {
  organizationId: string;
}

export function ApiKeysPanel(props: ApiKeysPanelProps) {
  const { can } = usePermissions(props.organizationId);
  if (!can('api_keys:manage')) return null;
  // Another organization starts afresh: no secret or notice of the last one.
  return <ApiKeysOf key={props.organizationId} {...props} />;
}

function ApiKeysOf({ organizationId }: ApiKeysPanelProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions({ organization_id: organizationId }));
  const [created, setCreated] = useState<CreatedApiKey>();
  const [notice, setNotice] = useState<string>();
  const list = useRef<HTMLDivElement>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.pathKey() });
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: async (_, { key_id }) => {
        const key = keys.data?.find((each) => each.key_id === key_id);
        setNotice(`API key ${key?.name ?? key_id} revoked.`);
        await refresh();
      },
    }),
  );

  return (
    <>
      <Section
        title="API keys"
        description="Keys the organization's own systems call the service with, each with a role."
      >
        {created && (
          <SecretNotice
            title={`Secret of the API key ${created.name}`}
            note="Send it as Authorization: Bearer <secret>."
            secret={created.secret}
            onDismiss={() => {
              setCreated(undefined);
              list.current?.focus();
            }}
          />
        )}
        {notice && <FocusedNotice>{notice}</FocusedNotice>}
        <ErrorNotice error={revoke.error} />
        <div ref={list} tabIndex={-1}>
          <QueryList
            query={keys}
            items={keys.data}
            loading="Loading API keys…"
            empty="This organization has no API keys yet."
          >
            {(rows) => (
              <ApiKeysTable
                keys={rows}
                revoking={(key) => revoke.isPending && revoke.variables?.key_id === key.key_id}
                onRevoke={(key) => {
                  setNotice(undefined);
                  revoke.mutate({ organization_id: organizationId, key_id: key.key_id });
                }}
              />
            )}
          </QueryList>
        </div>
      </Section>
      <CreateApiKeyForm
        organizationId={organizationId}
        onCreated={(key) => {
          setNotice(undefined);
          setCreated(key);
          return refresh();
        }}
      />
    </>
  );
}
