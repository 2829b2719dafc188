/** The whole API as one tRPC router; its type is what the typed client imports. */
import { router } from '../platform/rpc/init.ts';
import { accountRouter } from './account/index.ts';
import { adminRouter } from './admin/index.ts';
import { apiKeysRouter } from './api-keys/index.ts';
import { directoryRouter } from './directory/index.ts';
import { domainsRouter } from './domains/index.ts';
import { eventsRouter } from './events/index.ts';
import { invitationsRouter } from './invitations/index.ts';
import { joiningRouter } from './joining/index.ts';
import { membersRouter } from './members/index.ts';
import { organizationsRouter } from './organizations/index.ts';
import { permissionsRouter } from './permissions/index.ts';
import { rolesRouter } from './roles/index.ts';
import { teamsRouter } from './teams/index.ts';
import { usersRouter } from './users/index.ts';
import { webhooksRouter } from './webhooks/index.ts';

export const appRouter = router({
  users: usersRouter,
  account: accountRouter,
  organizations: organizationsRouter,
  members: membersRouter,
  invitations: invitationsRouter,
  events: eventsRouter,
  permissions: permissionsRouter,
  roles: rolesRouter,
  teams: teamsRouter,
  webhooks: webhooksRouter,
  apiKeys: apiKeysRouter,
  domains: domainsRouter,
  directory: directoryRouter,
  joining: joiningRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
