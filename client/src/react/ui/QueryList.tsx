import type { ReactNode } from 'react';
import { Busy } from './Busy.tsx';
import { EmptyState } from './EmptyState.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';

/**
 * What a list read from the service shows: busy while `query` loads, the service's message if it
 * failed, `empty` when there is nothing, else `children` with the `items`.
 */
export function QueryList<Item>({
  query,
  items,
  loading,
  empty,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown };
  /** What the answer lists. */
  items: readonly Item[] | undefined;
  /** Said while it loads, e.g. "Loading members…". */
  loading: string;
  empty: ReactNode;
  children: (items: readonly Item[]) => ReactNode;
}) {
  if (query.isPending) return <Busy label={loading} />;
  if (query.isError) return <ErrorNotice error={query.error} />;
  if (!items?.length) return <EmptyState>{empty}</EmptyState>;
  return children(items);
}
