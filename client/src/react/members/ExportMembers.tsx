import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';
import { Button, ErrorNotice } from '../ui/index.ts';
import { membersCsv } from './csv.ts';
import { memberQueryInput, type Member, type MemberQuery } from './member.ts';

/** The largest page the service answers: the export reads the fewest pages. */
const EXPORT_PAGE = 1000;

/** Downloads every member the search, filter and order find (all pages, not the one shown) as a CSV file. */
export function ExportMembers({ organizationId, query }: { organizationId: string; query: MemberQuery }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<{ busy: boolean; error?: unknown }>({ busy: false });
  const exportAll = async () => {
    setState({ busy: true });
    try {
      const members: Member[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: Member[]; nextCursor: string | null } = await queryClient.fetchQuery(
          keyedByOrganization(
            trpc.members.page.queryOptions(
              { limit: EXPORT_PAGE, cursor, ...memberQueryInput(query) },
              inOrganization(organizationId),
            ),
            organizationId,
          ),
        );
        members.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([membersCsv(members)], { type: 'text/csv;charset=utf-8' }));
      link.download = 'members.csv';
      link.click();
      URL.revokeObjectURL(link.href);
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  return (
    <>
      <Button busy={state.busy} onClick={() => void exportAll()}>
        Export CSV
      </Button>
      {state.error !== undefined && <ErrorNotice error={state.error} />}
    </>
  );
}
