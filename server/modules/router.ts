/** The whole API as one tRPC router; its type is what the typed client imports. */
import { router } from '../trpc/init.ts';
import { eventsRouter } from './events.ts';
import { invitationsRouter } from './invitations/index.ts';
import { membersRouter } from './members.ts';
import { organizationsRouter } from './organizations/index.ts';
import { usersRouter } from './users.ts';

export const appRouter = router({
  users: usersRouter,
  organizations: organizationsRouter,
  members: membersRouter,
  invitations: invitationsRouter,
  events: eventsRouter,
});

export type AppRouter = typeof appRouter;
