/**
 * The console's entry (behaviour §14): TanStack Query's client, then the app. A call the service
 * refuses with 401 signs the tab out; other failures are not retried blindly (a 4xx will not change
 * by asking again), and the pages show the service's message. A page that shows an outage asks
 * again every 5 s, and shows the service's answer once there is one.
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { errorView, isSignedOut } from '@org-service/client/react';
import '@org-service/client/react/styles.css';
import { App, type SignOutSignal } from './app.tsx';
import './console.css';
import { takeTokenFromFragment } from './session.ts';

takeTokenFromFragment();

const signOutRef: SignOutSignal = { current: undefined };
const onError = (error: unknown) => {
  if (isSignedOut(error)) signOutRef.current?.('refused');
};

/** A failure without an answer (the network, a 5xx): the only kind worth asking again. */
const isOutage = (error: unknown) => (errorView(error).status ?? 503) >= 500;

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      retry: (failures, error) => failures < 2 && isOutage(error),
      // A page showing an outage asks again by itself, so that it comes back with the service.
      refetchInterval: (query) => (query.state.status === 'error' && isOutage(query.state.error) ? 5_000 : false),
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App signOutRef={signOutRef} />
    </QueryClientProvider>
  </StrictMode>,
);
