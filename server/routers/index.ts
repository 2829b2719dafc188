/** The whole API as one tRPC router; its type is what the typed client imports. */
import { router } from '../trpc/init.ts';
import { eventsRouter } from './events.ts';
import { membersRouter } from './members.ts';
import { organizationsRouter } from './organizations.ts';
import { usersRouter } from './users.ts';

export const appRouter = router({
  users: usersRouter,
  organizations: organizationsRouter,
  members: membersRouter,
  events: eventsRouter,
});

export type AppRouter = typeof appRouter;
