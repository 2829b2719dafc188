/**
 * What every component stands on: the service's typed client, made once per provider, behind
 * `@trpc/tanstack-react-query`, so that components read with `useQuery(trpc.x.y.queryOptions(…))`
 * and share TanStack Query's cache with the host application.
 *
 *   <QueryClientProvider client={queryClient}>
 *     <OrgServiceProvider url="https://orgs.example.com" token={() => auth.currentToken()}>
 *       <MembersTable organizationId={organizationId} />
 *     </OrgServiceProvider>
 *   </QueryClientProvider>
 */
import { useQueryClient } from '@tanstack/react-query';
import { createTRPCContext, type TRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { useLayoutEffect, useMemo, useState, type ReactNode } from 'react';
import { createTrpcClient, type AppRouter, type ClientOptions } from '../index.ts';

const trpcContext = createTRPCContext<AppRouter>();

// The components' own, not the package's: their types are @trpc/tanstack-react-query's, which the
// package bundles rather than declares (client/build.ts), so no declaration of it may name them.
/** The typed options proxy: `useQuery(useTRPC().organizations.list.queryOptions())`. */
export const useTRPC: () => TRPCOptionsProxy<AppRouter> = trpcContext.useTRPC;

export interface OrgServiceProviderProps {
  /** Base URL of the service; the page's own origin when the console is served by the service. */
  url: string;
  /** The bearer token, or a function that returns a fresh one for each request. */
  token: ClientOptions['token'];
  children?: ReactNode;
}

/** The token the client sends, changed in place: the client asks it for the token at each request. */
function latestToken(initial: ClientOptions['token']) {
  let token = initial;
  return {
    set: (next: ClientOptions['token']) => {
      token = next;
    },
    get: () => (typeof token === 'function' ? token() : token),
  };
}

/** Must sit inside TanStack Query's `QueryClientProvider`: the components use its client. */
export function OrgServiceProvider({ url, token, children }: OrgServiceProviderProps) {
  const queryClient = useQueryClient();
  // A new token reaches the next request without a new client (and so without dropping the
  // cache). It is taken once the render that brings it commits, before the effects that may call.
  const [tokens] = useState(() => latestToken(token));
  useLayoutEffect(() => tokens.set(token), [tokens, token]);
  const trpcClient = useMemo(() => createTrpcClient({ url, token: tokens.get }), [url, tokens]);
  return (
    <trpcContext.TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
      {children}
    </trpcContext.TRPCProvider>
  );
}

/**
 * tRPC's options for a call on the member procedures, which read the organization from the
 * `organization_id` header rather than their input: `queryOptions(input, inOrganization(id))`.
 */
export const inOrganization = (organizationId: string) => ({ trpc: { context: { organizationId } } });

/**
 * The query options of a procedure called `inOrganization(id)`, with the organization in their
 * cache key too: tRPC builds the key from the input alone, so every organization's answers would
 * otherwise share one entry, and switching organizations would show the last one's. The
 * organization joins the key's last part, beside the `input` that is all tRPC's query function
 * reads of it; invalidating by `pathKey()` still reaches them.
 *
 *   useQuery(keyedByOrganization(trpc.members.list.queryOptions(undefined, inOrganization(id)), id))
 */
export function keyedByOrganization<Options extends { queryKey: readonly unknown[] }>(
  options: Options,
  organizationId: string,
): Options {
  const key = [...options.queryKey];
  key[key.length - 1] = { ...(key.at(-1) as object), organizationId };
  return { ...options, queryKey: key };
}
