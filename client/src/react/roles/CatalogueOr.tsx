import type { ReactNode } from 'react';
import { Busy, ErrorNotice } from '../ui/index.ts';
import type { Catalogue, CatalogueQuery } from './role.ts';

/** What needs the permission catalogue, once it is in. */
export function CatalogueOr({
  catalogue,
  children,
}: {
  catalogue: CatalogueQuery;
  children: (entries: Catalogue) => ReactNode;
}) {
  if (catalogue.data) return children(catalogue.data);
  if (catalogue.error) return <ErrorNotice error={catalogue.error} />;
  return <Busy label="Loading permissions…" />;
}
