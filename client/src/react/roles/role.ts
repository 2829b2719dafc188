import type { ComponentProps } from 'react';
import type { RouterOutputs } from '../../index.ts';
import type { Badge } from '../ui/index.ts';

export type Role = RouterOutputs['roles']['list'][number];
export type Catalogue = RouterOutputs['permissions']['catalogue'];

/** The permission catalogue's query, as the forms that need it wait for it. */
export interface CatalogueQuery {
  data: Catalogue | undefined;
  isPending: boolean;
  error: unknown;
}

/** How each kind of role is named and badged. */
export const KINDS: Record<Role['kind'], { label: string; tone: ComponentProps<typeof Badge>['tone'] }> = {
  built_in: { label: 'built-in', tone: 'neutral' },
  instance: { label: 'instance', tone: 'accent' },
  organization: { label: 'organization', tone: 'success' },
};

/** The roles table's columns, before the one of each row's buttons. */
export const ROLE_COLUMNS = ['Role', 'Kind', 'Description', 'Permissions', 'Held by'];

/** What the create and edit forms send of a role, but its name. */
export interface RoleDraft {
  description: string;
  permissions: ReadonlySet<string>;
}

/** A draft as the service takes it: the chosen permissions in the catalogue's order, then any it no longer has. */
export const roleInput = (catalogue: Catalogue, { description, permissions }: RoleDraft) => {
  const known = catalogue.map((entry) => entry.permission);
  return {
    description,
    permissions: [
      ...known.filter((permission) => permissions.has(permission)),
      ...[...permissions].filter((permission) => !known.includes(permission)),
    ],
  };
};
