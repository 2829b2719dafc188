/** The application's lists across the service (behaviour §16): /admin, with an application key alone. */
import { router } from '../../platform/rpc/init.ts';
import { allOrganizationsPageProcedure, listAllOrganizationsProcedure } from './list-organizations.ts';
import { allUsersPageProcedure, listAllUsersProcedure } from './list-users.ts';
import { userMembershipsPageProcedure, userMembershipsProcedure } from './user-memberships.ts';

/** Each REST list (always a page, its cursor in `Link`) with its tRPC page, `{items, nextCursor}`. */
export const adminRouter = router({
  organizations: listAllOrganizationsProcedure,
  organizationsPage: allOrganizationsPageProcedure,
  users: listAllUsersProcedure,
  usersPage: allUsersPageProcedure,
  userMemberships: userMembershipsProcedure,
  userMembershipsPage: userMembershipsPageProcedure,
});
