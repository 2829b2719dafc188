/** The application's lists across the service (behaviour §16): /admin, with an application key alone. */
import { router } from '../../platform/rpc/init.ts';
import { listAllOrganizationsProcedure } from './list-organizations.ts';
import { listAllUsersProcedure } from './list-users.ts';
import { userMembershipsProcedure } from './user-memberships.ts';

export const adminRouter = router({
  organizations: listAllOrganizationsProcedure,
  users: listAllUsersProcedure,
  userMemberships: userMembershipsProcedure,
});
