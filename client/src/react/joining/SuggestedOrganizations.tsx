import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { Button, ErrorNotice, FocusedNotice, QueryList, Section, Table } from '../ui/index.ts';
import type { Suggestion } from './join-request.ts';

/**
 * The organizations the caller's verified e-mail address lets them join (behaviour §17): Join where
 * the domain lets them in at once, Ask to join where an administrator decides.
 */
export function SuggestedOrganizations() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const suggestions = useQuery(trpc.joining.suggestions.queryOptions());
  const [notice, setNotice] = useState<string>();
  const join = useMutation(
    trpc.joining.join.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.joining.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() }),
        ]),
    }),
  );
  const ask = (suggestion: Suggestion) => {
    setNotice(undefined);
    join.mutate(
      { organization_id: suggestion.organization_id },
      {
        onSuccess: (joined) =>
          setNotice(
            joined.status === 'member'
              ? `You joined ${suggestion.organization_name} as ${joined.role}.`
              : `You asked to join ${suggestion.organization_name}: its administrators decide.`,
          ),
      },
    );
  };

  return (
    <Section
      title="Organizations you may join"
      description="Organizations that your verified e-mail address's domain belongs to."
    >
      <FocusedNotice>{notice}</FocusedNotice>
      <ErrorNotice error={join.error} />
      <QueryList
        query={suggestions}
        items={suggestions.data}
        loading="Loading the organizations you may join…"
        empty="No organization lets you join by your e-mail address."
      >
        {(rows) => (
          <Table label="Organizations you may join" columns={['Organization', 'Joining']} actions>
            {rows.map((suggestion) => {
              const atOnce = suggestion.enrollment === 'automatic';
              return (
                <tr key={suggestion.organization_id}>
                  <th scope="row">{suggestion.organization_name}</th>
                  <td data-label="Joining">{atOnce ? 'At once' : 'An administrator approves'}</td>
                  <td className="osc-table__actions">
                    <Button
                      variant="primary"
                      busy={join.isPending && join.variables?.organization_id === suggestion.organization_id}
                      onClick={() => ask(suggestion)}
                    >
                      {atOnce ? 'Join' : 'Ask to join'}
                    </Button>
                  </td>
                </tr>
              );
            })}
          </Table>
        )}
      </QueryList>
    </Section>
  );
}
