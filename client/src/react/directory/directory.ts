import type { RouterOutputs } from '../../index.ts';

export type Directory = RouterOutputs['directory']['get'];
export type DirectoryUser = RouterOutputs['directory']['usersPage']['items'][number];
export type DirectoryGroup = RouterOutputs['directory']['groupsPage']['items'][number];

/** How many of a directory's users and groups a page of the console shows. */
export const DIRECTORY_PAGE_SIZE = 100;

/** The key an identity provider is given: `admin` holds directory:sync (behaviour §18). */
export const IDENTITY_PROVIDER_KEY = { name: 'Identity provider (SCIM)', role: 'admin' } as const;

/** The directory's read as the page's parts show it: loading, failed, or its answer. */
export interface DirectoryRead {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: Directory | undefined;
}
