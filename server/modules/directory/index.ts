/**
 * The organization's directory as its people manage it (behaviour §18):
 * /organizations/{organization_id}/directory (also under /api), one procedure a file. The identity
 * provider itself speaks SCIM (scim/).
 */
import { router } from '../../platform/rpc/init.ts';
import { getDirectoryProcedure } from './get.ts';
import { directoryGroupsPageProcedure, directoryGroupsProcedure } from './groups.ts';
import { updateDirectoryProcedure } from './update.ts';
import { directoryUsersPageProcedure, directoryUsersProcedure } from './users.ts';

export const directoryRouter = router({
  get: getDirectoryProcedure,
  update: updateDirectoryProcedure,
  users: directoryUsersProcedure,
  usersPage: directoryUsersPageProcedure,
  groups: directoryGroupsProcedure,
  groupsPage: directoryGroupsPageProcedure,
});
